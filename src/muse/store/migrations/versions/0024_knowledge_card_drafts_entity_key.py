"""knowledge: card_drafts.entity_key, one pending draft per entity, enforced by the database

Two extraction workers that meet a new entity in two batches at the same moment both read "no
pending draft" and both insert one, leaving two drafts for one entity. ``entity_key`` names the
entity a pending 拆书 draft is *the* draft of (``<card type>:<name>``); a partial unique index
over ``(work_id, entity_key)`` among pending rows makes the second insert fail, and the worker
merges its proposal into the winner's draft instead. NULL means the draft is not the entity's
keyed draft: a contradicting second opinion queued against it, an import, a per-chapter
extraction, or a draft stored before 0024 (none are backfilled: old pending duplicates would
break the index and ``muse drafts merge`` joins them).

Revision ID: 0024
Revises: 0017
"""

from alembic import op
import sqlalchemy as sa

revision = "0024"
down_revision = "0017"
branch_labels = None
depends_on = None

PENDING = sa.text("status = 'pending'")


def upgrade() -> None:
    op.add_column(
        "card_drafts",
        sa.Column(
            "entity_key",
            sa.String(length=200),
            nullable=True,
            comment="<type>:<name> of the entity this pending draft is the one draft of; NULL: not keyed",
        ),
    )
    op.create_index(
        "uq_card_drafts_pending_entity",
        "card_drafts",
        ["work_id", "entity_key"],
        unique=True,
        sqlite_where=PENDING,
        postgresql_where=PENDING,
    )


def downgrade() -> None:
    op.drop_index("uq_card_drafts_pending_entity", table_name="card_drafts")
    op.drop_column("card_drafts", "entity_key")
