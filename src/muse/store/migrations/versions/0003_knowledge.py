"""knowledge: cards, milestones, drafts, facts

The knowledge domain's branch (off the foundation 0001): typed cards and their milestones and
relations, the source references that tie them (and fact deltas) to canonical prose, drafts and
the conflict queue (shadow → confirmed), fact deltas and the fact ledger. What each column means
and what NULL means is in the column comments (muse/knowledge/tables.py).

Revision ID: 0003
Revises: 0001
Create Date: 2026-11-29 19:42:22.518177
"""

from alembic import op
import sqlalchemy as sa
import muse.store.metadata
from sqlalchemy.dialects import postgresql

revision = "0003"
down_revision = "0001"
branch_labels = ("knowledge",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "cards",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("work_id", sa.Integer(), nullable=False),
        sa.Column(
            "type", sa.String(length=32), nullable=False, comment="card type key of the registry"
        ),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column(
            "aliases",
            sa.JSON().with_variant(postgresql.JSONB(), "postgresql"),
            nullable=False,
            comment="list of {name, since_chapter}; since_chapter NULL: known from the debut",
        ),
        sa.Column(
            "fields",
            sa.JSON().with_variant(postgresql.JSONB(), "postgresql"),
            nullable=False,
            comment="{key: {value | doubt, since_chapter}}; refs live in source_refs",
        ),
        sa.Column(
            "growth_arc",
            sa.JSON().with_variant(postgresql.JSONB(), "postgresql"),
            nullable=False,
            comment="成长弧线, planned steps; planning data, never in a state as of a chapter",
        ),
        sa.Column(
            "ending_direction", sa.Text(), nullable=True, comment="结局方向; NULL: not planned"
        ),
        sa.Column(
            "end_state", sa.Text(), nullable=True, comment="全书终态 summary; NULL: not written"
        ),
        sa.Column(
            "status",
            sa.String(length=16),
            nullable=False,
            comment="draft | confirmed | merged | rejected; only the author confirms",
        ),
        sa.Column(
            "revision",
            sa.Integer(),
            nullable=False,
            comment="+1 per change; moves by compare-and-set",
        ),
        sa.Column(
            "types_version",
            sa.String(length=32),
            nullable=False,
            comment="card type registry version the card was validated against",
        ),
        sa.Column(
            "spec_sha256",
            sa.String(length=64),
            nullable=False,
            comment="sha256 of the canonical JSON of the card's content, computed before storing",
        ),
        sa.Column("created_at", muse.store.metadata.UtcDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", muse.store.metadata.UtcDateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "status IN ('draft','confirmed','merged','rejected')", name=op.f("ck_cards_status")
        ),
        sa.ForeignKeyConstraint(["work_id"], ["works.id"], name=op.f("fk_cards_work_id_works")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_cards")),
    )
    with op.batch_alter_table("cards", schema=None) as batch_op:
        batch_op.create_index("ix_cards_work_status", ["work_id", "status"], unique=False)

    op.create_table(
        "fact_deltas",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("work_id", sa.Integer(), nullable=False),
        sa.Column(
            "type", sa.String(length=16), nullable=False, comment="one of the six fact delta types"
        ),
        sa.Column(
            "chapter", sa.Integer(), nullable=False, comment="the chapter whose text proves it"
        ),
        sa.Column(
            "subject",
            sa.String(length=200),
            nullable=False,
            comment="whom or what the delta is about",
        ),
        sa.Column(
            "payload",
            sa.JSON().with_variant(postgresql.JSONB(), "postgresql"),
            nullable=False,
            comment="type-specific fields",
        ),
        sa.Column("evidence_quote", sa.Text(), nullable=False, comment="verbatim quote, NFC"),
        sa.Column(
            "delta_sha256", sa.String(length=64), nullable=False, comment="sha256 of the proposal"
        ),
        sa.Column("origin", sa.String(length=16), nullable=False, comment="extract | manual"),
        sa.Column(
            "origin_detail",
            sa.JSON().with_variant(postgresql.JSONB(), "postgresql"),
            nullable=False,
            comment="run or job behind it; {} when none",
        ),
        sa.Column(
            "status", sa.String(length=16), nullable=False, comment="proposed | approved | rejected"
        ),
        sa.Column("decided_by", sa.String(length=64), nullable=True),
        sa.Column("decision_note", sa.Text(), nullable=True),
        sa.Column("created_at", muse.store.metadata.UtcDateTime(timezone=True), nullable=False),
        sa.Column(
            "decided_at",
            muse.store.metadata.UtcDateTime(timezone=True),
            nullable=True,
            comment="NULL while proposed",
        ),
        sa.CheckConstraint(
            "status IN ('proposed','approved','rejected')", name=op.f("ck_fact_deltas_status")
        ),
        sa.CheckConstraint(
            "type IN ('entity_state','relation','location','possession','knowledge','ability_cost')",
            name=op.f("ck_fact_deltas_type"),
        ),
        sa.ForeignKeyConstraint(
            ["work_id"], ["works.id"], name=op.f("fk_fact_deltas_work_id_works")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_fact_deltas")),
    )
    with op.batch_alter_table("fact_deltas", schema=None) as batch_op:
        batch_op.create_index("ix_fact_deltas_work_status", ["work_id", "status"], unique=False)

    op.create_table(
        "source_refs",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("work_id", sa.Integer(), nullable=False),
        sa.Column("owner_kind", sa.String(length=16), nullable=False, comment="card | fact_delta"),
        sa.Column(
            "owner_id", sa.String(length=40), nullable=False, comment="id of the card or fact delta"
        ),
        sa.Column(
            "target",
            sa.String(length=240),
            nullable=False,
            comment="what inside the owner: card | field:<key> | milestone:<id> | relation:<id> | evidence",
        ),
        sa.Column(
            "position", sa.Integer(), nullable=False, comment="order among the target's refs"
        ),
        sa.Column("chapter", sa.Integer(), nullable=False, comment="absolute chapter number"),
        sa.Column(
            "start_offset", sa.Integer(), nullable=False, comment="code point offset, inclusive"
        ),
        sa.Column(
            "end_offset", sa.Integer(), nullable=False, comment="code point offset, exclusive"
        ),
        sa.Column(
            "span_sha256", sa.String(length=64), nullable=False, comment="sha256 of text[start:end]"
        ),
        sa.Column(
            "chapter_revision",
            sa.Integer(),
            nullable=False,
            comment="chapter revision the span was verified against",
        ),
        sa.Column("quote", sa.Text(), nullable=False, comment="text[start:end] when verified"),
        sa.Column(
            "stale",
            sa.Boolean(),
            nullable=False,
            comment="true: the canonical text no longer holds this span; never silently kept",
        ),
        sa.Column(
            "stale_reason", sa.Text(), nullable=True, comment="why it is stale; NULL when valid"
        ),
        sa.Column("checked_at", muse.store.metadata.UtcDateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "owner_kind IN ('card','fact_delta')", name=op.f("ck_source_refs_owner_kind")
        ),
        sa.CheckConstraint("end_offset > start_offset", name=op.f("ck_source_refs_span")),
        sa.ForeignKeyConstraint(
            ["work_id"], ["works.id"], name=op.f("fk_source_refs_work_id_works")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_source_refs")),
    )
    with op.batch_alter_table("source_refs", schema=None) as batch_op:
        batch_op.create_index("ix_source_refs_owner", ["owner_kind", "owner_id"], unique=False)
        batch_op.create_index("ix_source_refs_work_chapter", ["work_id", "chapter"], unique=False)

    op.create_table(
        "card_drafts",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("work_id", sa.Integer(), nullable=False),
        sa.Column(
            "card_id",
            sa.String(length=40),
            nullable=False,
            comment="the shadow card holding the proposed content",
        ),
        sa.Column(
            "target_card_id",
            sa.String(length=40),
            nullable=True,
            comment="confirmed card it would update; NULL: proposes a new card",
        ),
        sa.Column(
            "origin", sa.String(length=16), nullable=False, comment="import | extract | manual"
        ),
        sa.Column(
            "origin_detail",
            sa.JSON().with_variant(postgresql.JSONB(), "postgresql"),
            nullable=False,
            comment="file, run or chapter behind the draft; {} when none",
        ),
        sa.Column(
            "payload_sha256",
            sa.String(length=64),
            nullable=False,
            comment="spec_sha256 of the proposal",
        ),
        sa.Column(
            "status", sa.String(length=16), nullable=False, comment="pending | confirmed | rejected"
        ),
        sa.Column(
            "decided_by",
            sa.String(length=64),
            nullable=True,
            comment="who decided; NULL while pending",
        ),
        sa.Column("decision_note", sa.Text(), nullable=True),
        sa.Column("created_at", muse.store.metadata.UtcDateTime(timezone=True), nullable=False),
        sa.Column(
            "decided_at",
            muse.store.metadata.UtcDateTime(timezone=True),
            nullable=True,
            comment="NULL while pending",
        ),
        sa.CheckConstraint(
            "origin IN ('import','extract','manual')", name=op.f("ck_card_drafts_origin")
        ),
        sa.CheckConstraint(
            "status IN ('pending','confirmed','rejected')", name=op.f("ck_card_drafts_status")
        ),
        sa.ForeignKeyConstraint(
            ["card_id"], ["cards.id"], name=op.f("fk_card_drafts_card_id_cards")
        ),
        sa.ForeignKeyConstraint(
            ["target_card_id"], ["cards.id"], name=op.f("fk_card_drafts_target_card_id_cards")
        ),
        sa.ForeignKeyConstraint(
            ["work_id"], ["works.id"], name=op.f("fk_card_drafts_work_id_works")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_card_drafts")),
    )
    with op.batch_alter_table("card_drafts", schema=None) as batch_op:
        batch_op.create_index("ix_card_drafts_work_status", ["work_id", "status"], unique=False)

    op.create_table(
        "card_milestones",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("card_id", sa.String(length=40), nullable=False),
        sa.Column(
            "position", sa.Integer(), nullable=False, comment="order within the card, from 0"
        ),
        sa.Column(
            "chapter",
            sa.Integer(),
            nullable=True,
            comment="absolute chapter; NULL: the chapter cannot be proven (excluded from every as-of)",
        ),
        sa.Column(
            "chapter_note",
            sa.Text(),
            nullable=True,
            comment="the author's non-absolute chapter text (e.g. 第二卷第三章); NULL: none",
        ),
        sa.Column("step", sa.Text(), nullable=False, comment="台阶"),
        sa.Column(
            "cycle",
            sa.String(length=8),
            nullable=False,
            comment="周期: 登场 | 成长 | 高光 | 退场 | 结局",
        ),
        sa.Column("description", sa.Text(), nullable=False),
        sa.CheckConstraint(
            "cycle IN ('登场','成长','高光','退场','结局')", name=op.f("ck_card_milestones_cycle")
        ),
        sa.ForeignKeyConstraint(
            ["card_id"], ["cards.id"], name=op.f("fk_card_milestones_card_id_cards")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_card_milestones")),
    )
    with op.batch_alter_table("card_milestones", schema=None) as batch_op:
        batch_op.create_index("ix_card_milestones_card", ["card_id", "position"], unique=False)

    op.create_table(
        "card_relations",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("card_id", sa.String(length=40), nullable=False),
        sa.Column(
            "position", sa.Integer(), nullable=False, comment="order within the card, from 0"
        ),
        sa.Column(
            "kind", sa.String(length=64), nullable=False, comment="the card's <kind> is <target>"
        ),
        sa.Column(
            "target",
            sa.String(length=200),
            nullable=False,
            comment="name of the related card or entity",
        ),
        sa.Column(
            "since_chapter", sa.Integer(), nullable=True, comment="NULL: holds from the debut"
        ),
        sa.Column("note", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(
            ["card_id"], ["cards.id"], name=op.f("fk_card_relations_card_id_cards")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_card_relations")),
    )
    with op.batch_alter_table("card_relations", schema=None) as batch_op:
        batch_op.create_index("ix_card_relations_card", ["card_id"], unique=False)

    op.create_table(
        "fact_ledger",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("work_id", sa.Integer(), nullable=False),
        sa.Column(
            "delta_id",
            sa.String(length=40),
            nullable=False,
            comment="the approved delta; one ledger entry per delta",
        ),
        sa.Column("type", sa.String(length=16), nullable=False),
        sa.Column("chapter", sa.Integer(), nullable=False),
        sa.Column("subject", sa.String(length=200), nullable=False),
        sa.Column(
            "payload", sa.JSON().with_variant(postgresql.JSONB(), "postgresql"), nullable=False
        ),
        sa.Column("evidence_quote", sa.Text(), nullable=False),
        sa.Column("delta_sha256", sa.String(length=64), nullable=False),
        sa.Column("approved_by", sa.String(length=64), nullable=False),
        sa.Column("approved_at", muse.store.metadata.UtcDateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "type IN ('entity_state','relation','location','possession','knowledge','ability_cost')",
            name=op.f("ck_fact_ledger_type"),
        ),
        sa.ForeignKeyConstraint(
            ["delta_id"], ["fact_deltas.id"], name=op.f("fk_fact_ledger_delta_id_fact_deltas")
        ),
        sa.ForeignKeyConstraint(
            ["work_id"], ["works.id"], name=op.f("fk_fact_ledger_work_id_works")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_fact_ledger")),
        sa.UniqueConstraint("delta_id", name=op.f("uq_fact_ledger_delta_id")),
        comment="Canonical facts (spec 001 §6). Immutable: entries are only ever inserted.",
    )
    with op.batch_alter_table("fact_ledger", schema=None) as batch_op:
        batch_op.create_index("ix_fact_ledger_work_chapter", ["work_id", "chapter"], unique=False)

    op.create_table(
        "card_conflicts",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("work_id", sa.Integer(), nullable=False),
        sa.Column("draft_id", sa.String(length=40), nullable=False),
        sa.Column(
            "card_id",
            sa.String(length=40),
            nullable=False,
            comment="the confirmed card the draft contradicts",
        ),
        sa.Column(
            "kind", sa.String(length=16), nullable=False, comment="field | relation | debut | plan"
        ),
        sa.Column(
            "subject",
            sa.String(length=240),
            nullable=False,
            comment="what is contradicted: field key, relation kind→target, 登场, plan key",
        ),
        sa.Column(
            "confirmed_side",
            sa.JSON().with_variant(postgresql.JSONB(), "postgresql"),
            nullable=False,
            comment="the confirmed value and its evidence",
        ),
        sa.Column(
            "draft_side",
            sa.JSON().with_variant(postgresql.JSONB(), "postgresql"),
            nullable=False,
            comment="the draft's value and its evidence",
        ),
        sa.Column(
            "status", sa.String(length=16), nullable=False, comment="open | resolved | dismissed"
        ),
        sa.Column(
            "resolution",
            sa.String(length=16),
            nullable=True,
            comment="keep | replace | merge; NULL while open or dismissed",
        ),
        sa.Column(
            "resolved_value",
            sa.JSON().with_variant(postgresql.JSONB(), "postgresql"),
            nullable=True,
            comment="the value merge wrote; NULL otherwise",
        ),
        sa.Column("created_at", muse.store.metadata.UtcDateTime(timezone=True), nullable=False),
        sa.Column("resolved_at", muse.store.metadata.UtcDateTime(timezone=True), nullable=True),
        sa.CheckConstraint(
            "resolution IS NULL OR resolution IN ('keep','replace','merge')",
            name=op.f("ck_card_conflicts_resolution"),
        ),
        sa.CheckConstraint(
            "status IN ('open','resolved','dismissed')", name=op.f("ck_card_conflicts_status")
        ),
        sa.ForeignKeyConstraint(
            ["card_id"], ["cards.id"], name=op.f("fk_card_conflicts_card_id_cards")
        ),
        sa.ForeignKeyConstraint(
            ["draft_id"], ["card_drafts.id"], name=op.f("fk_card_conflicts_draft_id_card_drafts")
        ),
        sa.ForeignKeyConstraint(
            ["work_id"], ["works.id"], name=op.f("fk_card_conflicts_work_id_works")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_card_conflicts")),
    )
    with op.batch_alter_table("card_conflicts", schema=None) as batch_op:
        batch_op.create_index("ix_card_conflicts_work_status", ["work_id", "status"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("card_conflicts", schema=None) as batch_op:
        batch_op.drop_index("ix_card_conflicts_work_status")

    op.drop_table("card_conflicts")
    with op.batch_alter_table("fact_ledger", schema=None) as batch_op:
        batch_op.drop_index("ix_fact_ledger_work_chapter")

    op.drop_table("fact_ledger")
    with op.batch_alter_table("card_relations", schema=None) as batch_op:
        batch_op.drop_index("ix_card_relations_card")

    op.drop_table("card_relations")
    with op.batch_alter_table("card_milestones", schema=None) as batch_op:
        batch_op.drop_index("ix_card_milestones_card")

    op.drop_table("card_milestones")
    with op.batch_alter_table("card_drafts", schema=None) as batch_op:
        batch_op.drop_index("ix_card_drafts_work_status")

    op.drop_table("card_drafts")
    with op.batch_alter_table("source_refs", schema=None) as batch_op:
        batch_op.drop_index("ix_source_refs_work_chapter")
        batch_op.drop_index("ix_source_refs_owner")

    op.drop_table("source_refs")
    with op.batch_alter_table("fact_deltas", schema=None) as batch_op:
        batch_op.drop_index("ix_fact_deltas_work_status")

    op.drop_table("fact_deltas")
    with op.batch_alter_table("cards", schema=None) as batch_op:
        batch_op.drop_index("ix_cards_work_status")

    op.drop_table("cards")
