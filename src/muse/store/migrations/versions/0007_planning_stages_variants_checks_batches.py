"""planning: stages, variants, checks, batches

Adds to plan_sections the stage a section belongs to (stage 0 and stage 2 share the section type
'setting'), where it came from, its variant group, the upstream it was confirmed against, its
latest check report and the 'discarded' state; backfills the stage of existing rows from their
section type. Adds the batch tables that let a long planner run resume where it failed.

Revision ID: 0007
Revises: 0004
Create Date: 2026-11-29 19:49:06.796339
"""

from alembic import op
import sqlalchemy as sa
import muse.store.metadata
from sqlalchemy.dialects import postgresql

revision = "0007"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("plan_sections", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "stage",
                sa.SmallInteger(),
                nullable=True,
                comment="0 定盘 … 4 细纲; NULL: a section outside the five stages (type 'state')",
            )
        )
        batch_op.add_column(
            sa.Column(
                "origin",
                sa.String(length=16),
                nullable=True,
                comment="import | edit | planner | batch | ledger; NULL: saved before origins were kept",
            )
        )
        batch_op.add_column(
            sa.Column(
                "origin_detail",
                sa.JSON().with_variant(postgresql.JSONB(), "postgresql"),
                nullable=True,
                comment="file, model call receipt, batch …; NULL when there is nothing to add",
            )
        )
        batch_op.add_column(
            sa.Column(
                "variant_group",
                sa.String(length=40),
                nullable=True,
                comment="drafts generated together to be compared; NULL: not one of several variants",
            )
        )
        batch_op.add_column(
            sa.Column(
                "variant_index",
                sa.Integer(),
                nullable=True,
                comment="1-based index in its group; NULL alone",
            )
        )
        batch_op.add_column(
            sa.Column(
                "basis",
                sa.JSON().with_variant(postgresql.JSONB(), "postgresql"),
                nullable=True,
                comment="confirmed upstream sections (id, sha256) checked at confirmation; NULL: none",
            )
        )
        batch_op.add_column(
            sa.Column(
                "check_report",
                sa.JSON().with_variant(postgresql.JSONB(), "postgresql"),
                nullable=True,
                comment="findings of the latest check (save or refused confirmation); NULL: never checked",
            )
        )
        batch_op.add_column(
            sa.Column(
                "checked_at",
                muse.store.metadata.UtcDateTime(timezone=True),
                nullable=True,
                comment="when check_report was written",
            )
        )
        batch_op.add_column(
            sa.Column(
                "closed_at",
                muse.store.metadata.UtcDateTime(timezone=True),
                nullable=True,
                comment="when it was superseded or discarded; NULL while shadow or confirmed",
            )
        )
        batch_op.create_index("ix_plan_sections_stage", ["work_id", "stage", "state"], unique=False)

    # Existing rows: every fine_outline is stage 4; 'outline' is stage 1, 'assembly' stage 3;
    # 'setting' rows predate stage 2 sign-offs, so they are stage 0 (定盘).
    op.execute(
        "UPDATE plan_sections SET stage = CASE section_type WHEN 'fine_outline' THEN 4 "
        "WHEN 'outline' THEN 1 WHEN 'assembly' THEN 3 WHEN 'setting' THEN 0 END "
        "WHERE stage IS NULL"
    )
    with op.batch_alter_table("plan_sections", schema=None, recreate="auto") as batch_op:
        batch_op.alter_column(
            "state",
            existing_type=sa.String(length=12),
            existing_nullable=False,
            comment="shadow | confirmed | superseded | discarded",
            existing_comment="shadow | confirmed | superseded",
        )
        batch_op.drop_constraint(op.f("ck_plan_sections_state"), type_="check")
        batch_op.create_check_constraint(
            op.f("ck_plan_sections_state"),
            "state IN ('shadow','confirmed','superseded','discarded')",
        )
        batch_op.create_check_constraint(
            op.f("ck_plan_sections_stage_type"),
            "stage IS NULL OR (stage = 0 AND section_type = 'setting')"
            " OR (stage = 1 AND section_type = 'outline') OR (stage = 2 AND section_type = 'setting')"
            " OR (stage = 3 AND section_type = 'assembly') OR (stage = 4 AND section_type = 'fine_outline')",
        )

    op.create_table(
        "plan_batches",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("work_id", sa.Integer(), nullable=False),
        sa.Column(
            "stage",
            sa.SmallInteger(),
            nullable=False,
            comment="the stage drafted (4: fine outlines)",
        ),
        sa.Column(
            "params",
            sa.JSON().with_variant(postgresql.JSONB(), "postgresql"),
            nullable=False,
            comment="provider, model and the planner's options, frozen at creation",
        ),
        sa.Column(
            "state",
            sa.String(length=12),
            nullable=False,
            comment="running | failed | completed; failed resumes at its first unfinished item",
        ),
        sa.Column("total", sa.Integer(), nullable=False, comment="number of items"),
        sa.Column(
            "done", sa.Integer(), nullable=False, comment="items finished (each saved as a shadow)"
        ),
        sa.Column(
            "last_error",
            sa.Text(),
            nullable=True,
            comment="why the latest attempt stopped; NULL: none",
        ),
        sa.Column(
            "attempts", sa.Integer(), nullable=False, comment="runs of this batch (1 + resumes)"
        ),
        sa.Column("created_at", muse.store.metadata.UtcDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", muse.store.metadata.UtcDateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "state IN ('running','failed','completed')", name=op.f("ck_plan_batches_state")
        ),
        sa.ForeignKeyConstraint(
            ["work_id"], ["works.id"], name=op.f("fk_plan_batches_work_id_works")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_plan_batches")),
    )
    with op.batch_alter_table("plan_batches", schema=None) as batch_op:
        batch_op.create_index("ix_plan_batches_work", ["work_id", "state"], unique=False)

    op.create_table(
        "plan_batch_items",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("batch_id", sa.String(length=40), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False, comment="1-based order in the batch"),
        sa.Column(
            "target_chapter",
            sa.Integer(),
            nullable=True,
            comment="the chapter drafted; NULL: not a chapter",
        ),
        sa.Column("state", sa.String(length=12), nullable=False, comment="pending | done | failed"),
        sa.Column(
            "section_id",
            sa.String(length=40),
            nullable=True,
            comment="the shadow section saved for this item; NULL until done",
        ),
        sa.Column(
            "receipt_id",
            sa.String(length=40),
            nullable=True,
            comment="model call receipt; NULL until called",
        ),
        sa.Column(
            "error", sa.Text(), nullable=True, comment="why the item failed; NULL unless failed"
        ),
        sa.Column("attempts", sa.Integer(), nullable=False, comment="calls made for this item"),
        sa.Column("updated_at", muse.store.metadata.UtcDateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "state IN ('pending','done','failed')", name=op.f("ck_plan_batch_items_state")
        ),
        sa.ForeignKeyConstraint(
            ["batch_id"],
            ["plan_batches.id"],
            name=op.f("fk_plan_batch_items_batch_id_plan_batches"),
        ),
        sa.ForeignKeyConstraint(
            ["section_id"],
            ["plan_sections.id"],
            name=op.f("fk_plan_batch_items_section_id_plan_sections"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_plan_batch_items")),
        sa.UniqueConstraint(
            "batch_id", "position", name=op.f("uq_plan_batch_items_batch_id_position")
        ),
    )


def downgrade() -> None:
    op.drop_table("plan_batch_items")
    with op.batch_alter_table("plan_batches", schema=None) as batch_op:
        batch_op.drop_index("ix_plan_batches_work")
    op.drop_table("plan_batches")

    op.execute("UPDATE plan_sections SET state = 'superseded' WHERE state = 'discarded'")
    with op.batch_alter_table("plan_sections", schema=None, recreate="auto") as batch_op:
        batch_op.drop_constraint(op.f("ck_plan_sections_stage_type"), type_="check")
        batch_op.alter_column(
            "state",
            existing_type=sa.String(length=12),
            existing_nullable=False,
            comment="shadow | confirmed | superseded",
            existing_comment="shadow | confirmed | superseded | discarded",
        )
        batch_op.drop_constraint(op.f("ck_plan_sections_state"), type_="check")
        batch_op.create_check_constraint(
            op.f("ck_plan_sections_state"), "state IN ('shadow','confirmed','superseded')"
        )
    with op.batch_alter_table("plan_sections", schema=None) as batch_op:
        batch_op.drop_index("ix_plan_sections_stage")
        batch_op.drop_column("closed_at")
        batch_op.drop_column("checked_at")
        batch_op.drop_column("check_report")
        batch_op.drop_column("basis")
        batch_op.drop_column("variant_index")
        batch_op.drop_column("variant_group")
        batch_op.drop_column("origin_detail")
        batch_op.drop_column("origin")
        batch_op.drop_column("stage")
