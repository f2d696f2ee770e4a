"""Planning tables (spec 001 §1A): every stage's output, shadow until the author confirms it.

``plan_sections`` holds one row per saved version of a stage's output. Only the author's
confirmation moves a row from ``shadow`` to ``confirmed``; the confirmed row it replaces becomes
``superseded``; a shadow the author drops becomes ``discarded``. ``plan_batches`` and
``plan_batch_items`` record the progress of long planner runs (a volume's fine outlines), so a
run that failed at item 37 resumes at item 37. ``plan_reviews`` stores each 需复核 mark: a
confirmed section whose upstream stage was superseded after its confirmation, open until a new
version of the marked stage is confirmed.
"""

from sqlalchemy import (
    CheckConstraint,
    Column,
    ForeignKey,
    Index,
    Integer,
    SmallInteger,
    String,
    Table,
    Text,
    UniqueConstraint,
)

from muse.store.metadata import JsonDoc, UtcDateTime, metadata

STAGE_TYPES_SQL = (
    "stage IS NULL OR (stage = 0 AND section_type = 'setting')"
    " OR (stage = 1 AND section_type = 'outline') OR (stage = 2 AND section_type = 'setting')"
    " OR (stage = 3 AND section_type = 'assembly') OR (stage = 4 AND section_type = 'fine_outline')"
)

plan_sections = Table(
    "plan_sections",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("work_id", Integer, ForeignKey("works.id"), nullable=False),
    Column(
        "section_type",
        String(16),
        nullable=False,
        comment="setting | outline | state | assembly | fine_outline (spec 001 §1A whitelist)",
    ),
    Column(
        "stage",
        SmallInteger,
        nullable=True,
        comment="0 定盘 … 4 细纲; NULL: a section outside the five stages (type 'state')",
    ),
    Column(
        "target_chapter",
        Integer,
        nullable=True,
        comment="the chapter a fine_outline plans; NULL for every other section type",
    ),
    Column(
        "state", String(12), nullable=False, comment="shadow | confirmed | superseded | discarded"
    ),
    Column("payload", JsonDoc, nullable=False, comment="the section's content, validated on save"),
    Column("payload_sha256", String(64), nullable=False, comment="hash of the canonical payload"),
    Column(
        "origin",
        String(16),
        nullable=True,
        comment="import | edit | planner | batch | ledger; NULL: saved before origins were kept",
    ),
    Column(
        "origin_detail",
        JsonDoc,
        nullable=True,
        comment="file, model call receipt, batch …; NULL when there is nothing to add",
    ),
    Column(
        "variant_group",
        String(40),
        nullable=True,
        comment="drafts generated together to be compared; NULL: not one of several variants",
    ),
    Column(
        "variant_index", Integer, nullable=True, comment="1-based index in its group; NULL alone"
    ),
    Column(
        "basis",
        JsonDoc,
        nullable=True,
        comment="confirmed upstream sections (id, sha256) checked at confirmation; NULL: none",
    ),
    Column(
        "check_report",
        JsonDoc,
        nullable=True,
        comment="findings of the latest check (save or refused confirmation); NULL: never checked",
    ),
    Column("checked_at", UtcDateTime, nullable=True, comment="when check_report was written"),
    Column("created_at", UtcDateTime, nullable=False),
    Column("confirmed_at", UtcDateTime, nullable=True, comment="NULL until confirmed"),
    Column(
        "closed_at",
        UtcDateTime,
        nullable=True,
        comment="when it was superseded or discarded; NULL while shadow or confirmed",
    ),
    CheckConstraint(
        "section_type IN ('setting','outline','state','assembly','fine_outline')",
        name="section_type",
    ),
    CheckConstraint("state IN ('shadow','confirmed','superseded','discarded')", name="state"),
    CheckConstraint(
        "section_type <> 'fine_outline' OR target_chapter IS NOT NULL", name="fine_outline_chapter"
    ),
    CheckConstraint(STAGE_TYPES_SQL, name="stage_type"),
)
Index(
    "ix_plan_sections_lookup",
    plan_sections.c.work_id,
    plan_sections.c.section_type,
    plan_sections.c.target_chapter,
    plan_sections.c.state,
)
Index(
    "ix_plan_sections_stage", plan_sections.c.work_id, plan_sections.c.stage, plan_sections.c.state
)

plan_batches = Table(
    "plan_batches",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("work_id", Integer, ForeignKey("works.id"), nullable=False),
    Column("stage", SmallInteger, nullable=False, comment="the stage drafted (4: fine outlines)"),
    Column(
        "params",
        JsonDoc,
        nullable=False,
        comment="provider, model and the planner's options, frozen at creation",
    ),
    Column(
        "state",
        String(12),
        nullable=False,
        comment="running | failed | completed; failed resumes at its first unfinished item",
    ),
    Column("total", Integer, nullable=False, comment="number of items"),
    Column("done", Integer, nullable=False, comment="items finished (each saved as a shadow)"),
    Column("last_error", Text, nullable=True, comment="why the latest attempt stopped; NULL: none"),
    Column("attempts", Integer, nullable=False, comment="runs of this batch (1 + resumes)"),
    Column("created_at", UtcDateTime, nullable=False),
    Column("updated_at", UtcDateTime, nullable=False),
    CheckConstraint("state IN ('running','failed','completed')", name="state"),
)
Index("ix_plan_batches_work", plan_batches.c.work_id, plan_batches.c.state)

plan_batch_items = Table(
    "plan_batch_items",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("batch_id", String(40), ForeignKey("plan_batches.id"), nullable=False),
    Column("position", Integer, nullable=False, comment="1-based order in the batch"),
    Column(
        "target_chapter", Integer, nullable=True, comment="the chapter drafted; NULL: not a chapter"
    ),
    Column("state", String(12), nullable=False, comment="pending | done | failed"),
    Column(
        "section_id",
        String(40),
        ForeignKey("plan_sections.id"),
        nullable=True,
        comment="the shadow section saved for this item; NULL until done",
    ),
    Column(
        "receipt_id", String(40), nullable=True, comment="model call receipt; NULL until called"
    ),
    Column("error", Text, nullable=True, comment="why the item failed; NULL unless failed"),
    Column("attempts", Integer, nullable=False, comment="calls made for this item"),
    Column("updated_at", UtcDateTime, nullable=False),
    UniqueConstraint("batch_id", "position"),
    CheckConstraint("state IN ('pending','done','failed')", name="state"),
)

plan_reviews = Table(
    "plan_reviews",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("work_id", Integer, ForeignKey("works.id"), nullable=False),
    Column(
        "section_id",
        String(40),
        ForeignKey("plan_sections.id"),
        nullable=False,
        comment="the confirmed lower section marked 需复核",
    ),
    Column("stage", SmallInteger, nullable=False, comment="the marked section's stage"),
    Column("upstream_stage", SmallInteger, nullable=False, comment="the stage that was superseded"),
    Column(
        "basis_id",
        String(40),
        nullable=False,
        comment="the upstream section the marked one was confirmed against",
    ),
    Column(
        "superseded_by",
        String(40),
        ForeignKey("plan_sections.id"),
        nullable=False,
        comment="the upstream section confirmed in its place",
    ),
    Column("reason", Text, nullable=False, comment="what the author is told (Chinese)"),
    Column("state", String(12), nullable=False, comment="open | cleared"),
    Column("created_at", UtcDateTime, nullable=False),
    Column(
        "cleared_at",
        UtcDateTime,
        nullable=True,
        comment="when a new version of the marked stage was confirmed; NULL while open",
    ),
    Column(
        "cleared_by",
        String(40),
        nullable=True,
        comment="the section whose confirmation cleared it; NULL while open",
    ),
    CheckConstraint("state IN ('open','cleared')", name="state"),
)
Index("ix_plan_reviews_work", plan_reviews.c.work_id, plan_reviews.c.state)
