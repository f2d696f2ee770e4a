"""planning: plan sections

Revision ID: 0004
Revises: 0001
Create Date: 2026-11-29 19:36:50.208565
"""

from alembic import op
import sqlalchemy as sa
import muse.store.metadata
from sqlalchemy.dialects import postgresql

revision = "0004"
down_revision = "0001"
branch_labels = ("planning",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "plan_sections",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("work_id", sa.Integer(), nullable=False),
        sa.Column(
            "section_type",
            sa.String(length=16),
            nullable=False,
            comment="setting | outline | state | assembly | fine_outline (spec 001 §1A whitelist)",
        ),
        sa.Column(
            "target_chapter",
            sa.Integer(),
            nullable=True,
            comment="the chapter a fine_outline plans; NULL for every other section type",
        ),
        sa.Column(
            "state", sa.String(length=12), nullable=False, comment="shadow | confirmed | superseded"
        ),
        sa.Column(
            "payload",
            sa.JSON().with_variant(postgresql.JSONB(), "postgresql"),
            nullable=False,
            comment="the section's content, validated on save",
        ),
        sa.Column(
            "payload_sha256",
            sa.String(length=64),
            nullable=False,
            comment="hash of the canonical payload",
        ),
        sa.Column("created_at", muse.store.metadata.UtcDateTime(timezone=True), nullable=False),
        sa.Column(
            "confirmed_at",
            muse.store.metadata.UtcDateTime(timezone=True),
            nullable=True,
            comment="NULL until confirmed",
        ),
        sa.CheckConstraint(
            "section_type <> 'fine_outline' OR target_chapter IS NOT NULL",
            name=op.f("ck_plan_sections_fine_outline_chapter"),
        ),
        sa.CheckConstraint(
            "section_type IN ('setting','outline','state','assembly','fine_outline')",
            name=op.f("ck_plan_sections_section_type"),
        ),
        sa.CheckConstraint(
            "state IN ('shadow','confirmed','superseded')", name=op.f("ck_plan_sections_state")
        ),
        sa.ForeignKeyConstraint(
            ["work_id"], ["works.id"], name=op.f("fk_plan_sections_work_id_works")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_plan_sections")),
    )
    with op.batch_alter_table("plan_sections", schema=None) as batch_op:
        batch_op.create_index(
            "ix_plan_sections_lookup",
            ["work_id", "section_type", "target_chapter", "state"],
            unique=False,
        )


def downgrade() -> None:
    with op.batch_alter_table("plan_sections", schema=None) as batch_op:
        batch_op.drop_index("ix_plan_sections_lookup")

    op.drop_table("plan_sections")
