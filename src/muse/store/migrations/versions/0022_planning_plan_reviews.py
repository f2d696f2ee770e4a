"""planning: plan_reviews (需复核 marks, stored)

When a confirmed planning stage is superseded (a new version confirmed), every confirmed section
that was confirmed against the old version is marked 需复核: one ``open`` row naming the marked
section, the upstream stage, the old basis and the section that replaced it. Confirming a new
version of the marked stage clears the row (``cleared``, with the clearing section). Before 0022
the mark was only computed from each section's basis; works superseded before it have no rows.

Revision ID: 0022
Revises: 0007
"""

from alembic import op
import sqlalchemy as sa

revision = "0022"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "plan_reviews",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("work_id", sa.Integer(), nullable=False),
        sa.Column(
            "section_id",
            sa.String(length=40),
            nullable=False,
            comment="the confirmed lower section marked 需复核",
        ),
        sa.Column("stage", sa.SmallInteger(), nullable=False, comment="the marked section's stage"),
        sa.Column(
            "upstream_stage",
            sa.SmallInteger(),
            nullable=False,
            comment="the stage that was superseded",
        ),
        sa.Column(
            "basis_id",
            sa.String(length=40),
            nullable=False,
            comment="the upstream section the marked one was confirmed against",
        ),
        sa.Column(
            "superseded_by",
            sa.String(length=40),
            nullable=False,
            comment="the upstream section confirmed in its place",
        ),
        sa.Column("reason", sa.Text(), nullable=False, comment="what the author is told (Chinese)"),
        sa.Column("state", sa.String(length=12), nullable=False, comment="open | cleared"),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column(
            "cleared_at",
            sa.DateTime(timezone=True),
            nullable=True,
            comment="when a new version of the marked stage was confirmed; NULL while open",
        ),
        sa.Column(
            "cleared_by",
            sa.String(length=40),
            nullable=True,
            comment="the section whose confirmation cleared it; NULL while open",
        ),
        sa.CheckConstraint("state IN ('open','cleared')", name=op.f("ck_plan_reviews_state")),
        sa.ForeignKeyConstraint(
            ["section_id"],
            ["plan_sections.id"],
            name=op.f("fk_plan_reviews_section_id_plan_sections"),
        ),
        sa.ForeignKeyConstraint(
            ["superseded_by"],
            ["plan_sections.id"],
            name=op.f("fk_plan_reviews_superseded_by_plan_sections"),
        ),
        sa.ForeignKeyConstraint(
            ["work_id"], ["works.id"], name=op.f("fk_plan_reviews_work_id_works")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_plan_reviews")),
    )
    op.create_index("ix_plan_reviews_work", "plan_reviews", ["work_id", "state"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_plan_reviews_work", table_name="plan_reviews")
    op.drop_table("plan_reviews")
