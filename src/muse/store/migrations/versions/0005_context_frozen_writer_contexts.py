"""context: frozen writer contexts

Revision ID: 0005
Revises: 0001
Create Date: 2026-11-29 19:36:53.609945
"""

from alembic import op
import sqlalchemy as sa
import muse.store.metadata
from sqlalchemy.dialects import postgresql

revision = "0005"
down_revision = "0001"
branch_labels = ("context",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "context_snapshots",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("run_id", sa.String(length=40), nullable=False, comment="the run that froze it"),
        sa.Column("attempt", sa.Integer(), nullable=False),
        sa.Column("work_id", sa.Integer(), nullable=False),
        sa.Column("target_chapter", sa.Integer(), nullable=False),
        sa.Column(
            "as_of", sa.Integer(), nullable=False, comment="last chapter the context may read"
        ),
        sa.Column("plan_id", sa.String(length=64), nullable=False),
        sa.Column("manifest_id", sa.String(length=64), nullable=False),
        sa.Column(
            "sha256",
            sa.String(length=64),
            nullable=False,
            comment="contextSnapshotSha256, computed in Python before storing",
        ),
        sa.Column(
            "chapter_revisions",
            sa.JSON().with_variant(postgresql.JSONB(), "postgresql"),
            nullable=False,
            comment='{"<chapter>": revision} of every chapter read; accept preflight re-checks it',
        ),
        sa.Column(
            "payload",
            sa.JSON().with_variant(postgresql.JSONB(), "postgresql"),
            nullable=False,
            comment="the whole WriterContext v1",
        ),
        sa.Column("created_at", muse.store.metadata.UtcDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["work_id"], ["works.id"], name=op.f("fk_context_snapshots_work_id_works")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_context_snapshots")),
    )


def downgrade() -> None:
    op.drop_table("context_snapshots")
