"""flow: runs, candidates, events, decisions

Revision ID: 0006
Revises: 0001
Create Date: 2026-11-29 19:36:54.263636
"""

from alembic import op
import sqlalchemy as sa
import muse.store.metadata
from sqlalchemy.dialects import postgresql

revision = "0006"
down_revision = "0001"
branch_labels = ("flow",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "runs",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("work_id", sa.Integer(), nullable=False),
        sa.Column("target_chapter", sa.Integer(), nullable=False),
        sa.Column(
            "run_type",
            sa.String(length=16),
            nullable=False,
            comment="production | evaluation; fixed at insert, decides acceptance eligibility",
        ),
        sa.Column(
            "mode", sa.String(length=20), nullable=False, comment="production | diagnostic_only"
        ),
        sa.Column("quality_policy_version", sa.String(length=40), nullable=False),
        sa.Column("state", sa.String(length=32), nullable=False),
        sa.Column("attempt", sa.Integer(), nullable=False, comment="writer attempt, from 1"),
        sa.Column(
            "revision",
            sa.Integer(),
            nullable=False,
            comment="transition counter for compare-and-set",
        ),
        sa.Column("provider", sa.String(length=64), nullable=False),
        sa.Column("model", sa.String(length=128), nullable=False),
        sa.Column("as_of", sa.Integer(), nullable=False),
        sa.Column(
            "base_revision",
            sa.Integer(),
            nullable=False,
            comment="canonical revision of the target chapter when the run began; 0: no chapter yet",
        ),
        sa.Column(
            "authorization_snapshot_id",
            sa.String(length=40),
            nullable=True,
            comment="NULL until the authorization is frozen",
        ),
        sa.Column(
            "reason",
            sa.Text(),
            nullable=True,
            comment="why the run stopped where it did; NULL: running",
        ),
        sa.Column("created_at", muse.store.metadata.UtcDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", muse.store.metadata.UtcDateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "run_type IN ('production','evaluation')", name=op.f("ck_runs_run_type")
        ),
        sa.ForeignKeyConstraint(["work_id"], ["works.id"], name=op.f("fk_runs_work_id_works")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_runs")),
    )
    op.create_table(
        "candidates",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("run_id", sa.String(length=40), nullable=False),
        sa.Column("work_id", sa.Integer(), nullable=False),
        sa.Column("chapter", sa.Integer(), nullable=False),
        sa.Column(
            "version", sa.Integer(), nullable=False, comment="candidateVersion within the run"
        ),
        sa.Column(
            "state",
            sa.String(length=12),
            nullable=False,
            comment="DRAFT | CHECKING | PASSED | REJECTED | ACCEPTED | ARCHIVED | DISCARDED",
        ),
        sa.Column(
            "revision",
            sa.Integer(),
            nullable=False,
            comment="transition counter for compare-and-set",
        ),
        sa.Column(
            "acceptance_eligible",
            sa.Boolean(),
            nullable=False,
            comment="derived from the run type at insert: only production candidates",
        ),
        sa.Column("body", sa.Text(), nullable=False, comment="NFC, LF"),
        sa.Column("sha256", sa.String(length=64), nullable=False, comment="candidateSha256"),
        sa.Column("han_count", sa.Integer(), nullable=False),
        sa.Column("context_snapshot_id", sa.String(length=40), nullable=False),
        sa.Column(
            "writer_output",
            sa.JSON().with_variant(postgresql.JSONB(), "postgresql"),
            nullable=False,
            comment="WriterOutput v1",
        ),
        sa.Column(
            "report",
            sa.JSON().with_variant(postgresql.JSONB(), "postgresql"),
            nullable=True,
            comment="check report bound to sha256 and version; NULL: not checked yet",
        ),
        sa.Column("created_at", muse.store.metadata.UtcDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", muse.store.metadata.UtcDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["run_id"], ["runs.id"], name=op.f("fk_candidates_run_id_runs")),
        sa.ForeignKeyConstraint(
            ["work_id"], ["works.id"], name=op.f("fk_candidates_work_id_works")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_candidates")),
    )
    with op.batch_alter_table("candidates", schema=None) as batch_op:
        batch_op.create_index("ix_candidates_chapter", ["work_id", "chapter"], unique=False)

    op.create_table(
        "run_events",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("run_id", sa.String(length=40), nullable=False),
        sa.Column("attempt", sa.Integer(), nullable=False),
        sa.Column(
            "node",
            sa.String(length=40),
            nullable=False,
            comment="pipeline node, e.g. retrieving, semantic_detector",
        ),
        sa.Column(
            "status",
            sa.String(length=16),
            nullable=False,
            comment="ok | failed | blocked | not_built",
        ),
        sa.Column("duration_ms", sa.Integer(), nullable=False),
        sa.Column(
            "detail",
            sa.JSON().with_variant(postgresql.JSONB(), "postgresql"),
            nullable=False,
            comment="hashes, counts, receipt ids, reasons",
        ),
        sa.Column("created_at", muse.store.metadata.UtcDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["run_id"], ["runs.id"], name=op.f("fk_run_events_run_id_runs")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_run_events")),
    )
    op.create_table(
        "decisions",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column(
            "command_id",
            sa.String(length=80),
            nullable=False,
            comment="idempotency key: the same command applied twice has one effect",
        ),
        sa.Column("candidate_id", sa.String(length=40), nullable=False),
        sa.Column(
            "kind",
            sa.String(length=16),
            nullable=False,
            comment="accept | edit_merge | revise | discard",
        ),
        sa.Column("actor", sa.String(length=80), nullable=False),
        sa.Column(
            "outcome",
            sa.String(length=32),
            nullable=False,
            comment="the state the decision ended in",
        ),
        sa.Column(
            "detail", sa.JSON().with_variant(postgresql.JSONB(), "postgresql"), nullable=False
        ),
        sa.Column("created_at", muse.store.metadata.UtcDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["candidate_id"], ["candidates.id"], name=op.f("fk_decisions_candidate_id_candidates")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_decisions")),
        sa.UniqueConstraint("command_id", name=op.f("uq_decisions_command_id")),
    )


def downgrade() -> None:
    op.drop_table("decisions")
    op.drop_table("run_events")
    with op.batch_alter_table("candidates", schema=None) as batch_op:
        batch_op.drop_index("ix_candidates_chapter")

    op.drop_table("candidates")
    op.drop_table("runs")
