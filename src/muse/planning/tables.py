"""Planning sections: every stage's output, shadow until the author confirms it (spec 001 §1A)."""

from sqlalchemy import CheckConstraint, Column, ForeignKey, Index, Integer, String, Table

from muse.store.metadata import JsonDoc, UtcDateTime, metadata

plan_sections = Table(
    "plan_sections",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("work_id", Integer, ForeignKey("works.id"), nullable=False),
    Column("section_type", String(16), nullable=False,
           comment="setting | outline | state | assembly | fine_outline (spec 001 §1A whitelist)"),
    Column("target_chapter", Integer, nullable=True,
           comment="the chapter a fine_outline plans; NULL for every other section type"),
    Column("state", String(12), nullable=False, comment="shadow | confirmed | superseded"),
    Column("payload", JsonDoc, nullable=False, comment="the section's content, validated on save"),
    Column("payload_sha256", String(64), nullable=False, comment="hash of the canonical payload"),
    Column("created_at", UtcDateTime, nullable=False),
    Column("confirmed_at", UtcDateTime, nullable=True, comment="NULL until confirmed"),
    CheckConstraint(
        "section_type IN ('setting','outline','state','assembly','fine_outline')",
        name="section_type"),
    CheckConstraint("state IN ('shadow','confirmed','superseded')", name="state"),
    CheckConstraint("section_type <> 'fine_outline' OR target_chapter IS NOT NULL",
                    name="fine_outline_chapter"),
)
Index("ix_plan_sections_lookup", plan_sections.c.work_id, plan_sections.c.section_type,
      plan_sections.c.target_chapter, plan_sections.c.state)
