"""Tables of the knowledge domain: cards, milestones, relations, source references, drafts,
conflicts, fact deltas and the fact ledger.

A card row holds its scalar content (fields, aliases, planning data) as JSON; its milestones and
relations are rows, so that "what happened in chapter N" is a query. Every source reference is a
row of ``source_refs`` whatever it belongs to, so that one pass over one table can check every
reference of a work against the current canonical text and mark the changed ones stale.

Shadow / canonical (ARCHITECTURE.md principle 2): a draft is a card row with status ``draft``
plus a ``card_drafts`` row saying where it came from and which confirmed card it would update.
Only an author's decision moves it on.
"""

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Column,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Table,
    Text,
)

from muse.store.metadata import JsonDoc, UtcDateTime, metadata

cards = Table(
    "cards",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("work_id", Integer, ForeignKey("works.id"), nullable=False),
    Column("type", String(32), nullable=False, comment="card type key of the registry"),
    Column("name", String(200), nullable=False),
    Column(
        "aliases",
        JsonDoc,
        nullable=False,
        comment="list of {name, since_chapter}; since_chapter NULL: known from the debut",
    ),
    Column(
        "fields",
        JsonDoc,
        nullable=False,
        comment="{key: {value | doubt, since_chapter}}; refs live in source_refs",
    ),
    Column(
        "growth_arc",
        JsonDoc,
        nullable=False,
        comment="成长弧线, planned steps; planning data, never in a state as of a chapter",
    ),
    Column("ending_direction", Text, nullable=True, comment="结局方向; NULL: not planned"),
    Column("end_state", Text, nullable=True, comment="全书终态 summary; NULL: not written"),
    Column(
        "status",
        String(16),
        nullable=False,
        comment="draft | confirmed | merged | rejected; only the author confirms",
    ),
    Column("revision", Integer, nullable=False, comment="+1 per change; moves by compare-and-set"),
    Column(
        "types_version",
        String(32),
        nullable=False,
        comment="card type registry version the card was validated against",
    ),
    Column(
        "spec_sha256",
        String(64),
        nullable=False,
        comment="sha256 of the canonical JSON of the card's content, computed before storing",
    ),
    Column("created_at", UtcDateTime, nullable=False),
    Column("updated_at", UtcDateTime, nullable=False),
    CheckConstraint("status IN ('draft','confirmed','merged','rejected')", name="status"),
)
Index("ix_cards_work_status", cards.c.work_id, cards.c.status)

card_milestones = Table(
    "card_milestones",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("card_id", String(40), ForeignKey("cards.id"), nullable=False),
    Column("position", Integer, nullable=False, comment="order within the card, from 0"),
    Column(
        "chapter",
        Integer,
        nullable=True,
        comment="absolute chapter; NULL: the chapter cannot be proven (excluded from every as-of)",
    ),
    Column(
        "chapter_note",
        Text,
        nullable=True,
        comment="the author's non-absolute chapter text (e.g. 第二卷第三章); NULL: none",
    ),
    Column("step", Text, nullable=False, comment="台阶"),
    Column("cycle", String(8), nullable=False, comment="周期: 登场 | 成长 | 高光 | 退场 | 结局"),
    Column("description", Text, nullable=False),
    CheckConstraint("cycle IN ('登场','成长','高光','退场','结局')", name="cycle"),
)
Index("ix_card_milestones_card", card_milestones.c.card_id, card_milestones.c.position)

card_relations = Table(
    "card_relations",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("card_id", String(40), ForeignKey("cards.id"), nullable=False),
    Column("position", Integer, nullable=False, comment="order within the card, from 0"),
    Column("kind", String(64), nullable=False, comment="the card's <kind> is <target>"),
    Column("target", String(200), nullable=False, comment="name of the related card or entity"),
    Column("since_chapter", Integer, nullable=True, comment="NULL: holds from the debut"),
    Column("note", Text, nullable=True),
)
Index("ix_card_relations_card", card_relations.c.card_id)

source_refs = Table(
    "source_refs",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("work_id", Integer, ForeignKey("works.id"), nullable=False),
    Column("owner_kind", String(16), nullable=False, comment="card | fact_delta"),
    Column("owner_id", String(40), nullable=False, comment="id of the card or fact delta"),
    Column(
        "target",
        String(240),
        nullable=False,
        comment="what inside the owner: card | field:<key> | milestone:<id> | relation:<id> | evidence",
    ),
    Column("position", Integer, nullable=False, comment="order among the target's refs"),
    Column("chapter", Integer, nullable=False, comment="absolute chapter number"),
    Column("start_offset", Integer, nullable=False, comment="code point offset, inclusive"),
    Column("end_offset", Integer, nullable=False, comment="code point offset, exclusive"),
    Column("span_sha256", String(64), nullable=False, comment="sha256 of text[start:end]"),
    Column(
        "chapter_revision",
        Integer,
        nullable=False,
        comment="chapter revision the span was verified against",
    ),
    Column("quote", Text, nullable=False, comment="text[start:end] when verified"),
    Column(
        "stale",
        Boolean,
        nullable=False,
        comment="true: the canonical text no longer holds this span; never silently kept",
    ),
    Column("stale_reason", Text, nullable=True, comment="why it is stale; NULL when valid"),
    Column("checked_at", UtcDateTime, nullable=False),
    CheckConstraint("owner_kind IN ('card','fact_delta')", name="owner_kind"),
    CheckConstraint("end_offset > start_offset", name="span"),
)
Index("ix_source_refs_owner", source_refs.c.owner_kind, source_refs.c.owner_id)
Index("ix_source_refs_work_chapter", source_refs.c.work_id, source_refs.c.chapter)

card_drafts = Table(
    "card_drafts",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("work_id", Integer, ForeignKey("works.id"), nullable=False),
    Column(
        "card_id",
        String(40),
        ForeignKey("cards.id"),
        nullable=False,
        comment="the shadow card holding the proposed content",
    ),
    Column(
        "target_card_id",
        String(40),
        ForeignKey("cards.id"),
        nullable=True,
        comment="confirmed card it would update; NULL: proposes a new card",
    ),
    Column("origin", String(16), nullable=False, comment="import | extract | manual"),
    Column(
        "origin_detail",
        JsonDoc,
        nullable=False,
        comment="file, run or chapter behind the draft; {} when none",
    ),
    Column("payload_sha256", String(64), nullable=False, comment="spec_sha256 of the proposal"),
    Column(
        "entity_key",
        String(200),
        nullable=True,
        comment="<type>:<name> of the entity this pending draft is the one draft of; NULL: not keyed",
    ),
    Column("status", String(16), nullable=False, comment="pending | confirmed | rejected"),
    Column("decided_by", String(64), nullable=True, comment="who decided; NULL while pending"),
    Column("decision_note", Text, nullable=True),
    Column("created_at", UtcDateTime, nullable=False),
    Column("decided_at", UtcDateTime, nullable=True, comment="NULL while pending"),
    CheckConstraint("status IN ('pending','confirmed','rejected')", name="status"),
    CheckConstraint("origin IN ('import','extract','manual')", name="origin"),
)
Index("ix_card_drafts_work_status", card_drafts.c.work_id, card_drafts.c.status)
# One pending draft per entity: a second worker's insert fails and merges instead. Migration 0024
# creates it as a partial unique index (work_id, entity_key) WHERE status = 'pending' on both
# backends. It is not declared here: a dialect's keyword (postgresql_where) makes SQLAlchemy
# import that dialect at import time, ~110 M instructions for every SQLite process (issue 12).
# The schema comparison leaves it out as a raw-DDL object (muse.store.migrate.include_object).
metadata.info.setdefault("raw_ddl_objects", set()).add(("index", "uq_card_drafts_pending_entity"))

card_conflicts = Table(
    "card_conflicts",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("work_id", Integer, ForeignKey("works.id"), nullable=False),
    Column("draft_id", String(40), ForeignKey("card_drafts.id"), nullable=False),
    Column(
        "card_id",
        String(40),
        ForeignKey("cards.id"),
        nullable=False,
        comment="the confirmed card the draft contradicts",
    ),
    Column("kind", String(16), nullable=False, comment="field | relation | debut | plan"),
    Column(
        "subject",
        String(240),
        nullable=False,
        comment="what is contradicted: field key, relation kind→target, 登场, plan key",
    ),
    Column(
        "confirmed_side", JsonDoc, nullable=False, comment="the confirmed value and its evidence"
    ),
    Column("draft_side", JsonDoc, nullable=False, comment="the draft's value and its evidence"),
    Column("status", String(16), nullable=False, comment="open | resolved | dismissed"),
    Column(
        "resolution",
        String(16),
        nullable=True,
        comment="keep | replace | merge; NULL while open or dismissed",
    ),
    Column(
        "resolved_value", JsonDoc, nullable=True, comment="the value merge wrote; NULL otherwise"
    ),
    Column("created_at", UtcDateTime, nullable=False),
    Column("resolved_at", UtcDateTime, nullable=True),
    CheckConstraint("status IN ('open','resolved','dismissed')", name="status"),
    CheckConstraint(
        "resolution IS NULL OR resolution IN ('keep','replace','merge')", name="resolution"
    ),
)
Index("ix_card_conflicts_work_status", card_conflicts.c.work_id, card_conflicts.c.status)

FACT_TYPES_SQL = "'entity_state','relation','location','possession','knowledge','ability_cost'"

fact_deltas = Table(
    "fact_deltas",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("work_id", Integer, ForeignKey("works.id"), nullable=False),
    Column("type", String(16), nullable=False, comment="one of the six fact delta types"),
    Column("chapter", Integer, nullable=False, comment="the chapter whose text proves it"),
    Column("subject", String(200), nullable=False, comment="whom or what the delta is about"),
    Column("payload", JsonDoc, nullable=False, comment="type-specific fields"),
    Column("evidence_quote", Text, nullable=False, comment="verbatim quote, NFC"),
    Column("delta_sha256", String(64), nullable=False, comment="sha256 of the proposal"),
    Column("origin", String(16), nullable=False, comment="extract | manual"),
    Column("origin_detail", JsonDoc, nullable=False, comment="run or job behind it; {} when none"),
    Column("status", String(16), nullable=False, comment="proposed | approved | rejected"),
    Column("decided_by", String(64), nullable=True),
    Column("decision_note", Text, nullable=True),
    Column("created_at", UtcDateTime, nullable=False),
    Column("decided_at", UtcDateTime, nullable=True, comment="NULL while proposed"),
    CheckConstraint(f"type IN ({FACT_TYPES_SQL})", name="type"),
    CheckConstraint("status IN ('proposed','approved','rejected')", name="status"),
)
Index("ix_fact_deltas_work_status", fact_deltas.c.work_id, fact_deltas.c.status)

fact_ledger = Table(
    "fact_ledger",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("work_id", Integer, ForeignKey("works.id"), nullable=False),
    Column(
        "delta_id",
        String(40),
        ForeignKey("fact_deltas.id"),
        nullable=False,
        unique=True,
        comment="the approved delta; one ledger entry per delta",
    ),
    Column("type", String(16), nullable=False),
    Column("chapter", Integer, nullable=False),
    Column("subject", String(200), nullable=False),
    Column("payload", JsonDoc, nullable=False),
    Column("evidence_quote", Text, nullable=False),
    Column("delta_sha256", String(64), nullable=False),
    Column("approved_by", String(64), nullable=False),
    Column("approved_at", UtcDateTime, nullable=False),
    CheckConstraint(f"type IN ({FACT_TYPES_SQL})", name="type"),
    comment="Canonical facts (spec 001 §6). Immutable: entries are only ever inserted.",
)
Index("ix_fact_ledger_work_chapter", fact_ledger.c.work_id, fact_ledger.c.chapter)

knowledge_versions = Table(
    "knowledge_versions",
    metadata,
    Column("work_id", Integer, ForeignKey("works.id"), primary_key=True, autoincrement=False),
    Column(
        "revision",
        Integer,
        nullable=False,
        comment="number of changes seen (per row on SQLite, per transaction on PostgreSQL)",
    ),
    Column(
        "token",
        String(32),
        nullable=False,
        comment="random, new with every change; never repeats, even after a rollback",
    ),
    Column(
        "writer_xid",
        BigInteger,
        nullable=True,
        comment="PostgreSQL: transaction that last changed it (its own writes skip the cache)",
    ),
    comment=(
        "One row per work, changed by database triggers in the same transaction as any write to "
        "cards, card_milestones, card_relations or source_refs: the key of the card cache."
    ),
)

card_book_cache = Table(
    "card_book_cache",
    metadata,
    Column("work_id", Integer, ForeignKey("works.id"), primary_key=True, autoincrement=False),
    Column(
        "token",
        String(32),
        nullable=False,
        comment="knowledge_versions.token the payload was read at; any other token: stale",
    ),
    Column("format", String(32), nullable=False, comment="payload layout; another one: ignored"),
    Column(
        "payload",
        LargeBinary,
        nullable=False,
        # the column comment is schema, as migration 0017 wrote it (the module is now speed/rows.py)
        comment="the work's confirmed cards as plain rows (card_rows.py), marshal-encoded",
    ),
    comment=(
        "Derived, disposable: a work's confirmed cards as one blob, so that a new process reads "
        "them with one query. Valid only while its token is the work's current change token."
    ),
)
