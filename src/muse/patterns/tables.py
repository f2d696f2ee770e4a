"""Tables of the patterns domain: pattern cards, bindings, bound style profiles (spec 001 §1A stage 3).

Public pattern cards have no work: ``work_id`` is NULL (the spec's "work_id=0"; there is no works
row 0). Because SQL never treats two NULLs as equal, uniqueness of (owner, key, version) is kept
on ``scope``, which is ``public`` or ``work:<id>``; a check keeps the two columns consistent.

Bindings and bound styles are written only when the author confirms an assembly (装配) and are
released when a later assembly is confirmed: a row with state ``bound`` is, by construction,
confirmed. Nothing unconfirmed is ever stored here.
"""

from sqlalchemy import (
    CheckConstraint,
    Column,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    Text,
    UniqueConstraint,
)

from muse.store.metadata import JsonDoc, UtcDateTime, metadata

pattern_cards = Table(
    "pattern_cards",
    metadata,
    Column("id", String(40), primary_key=True),
    Column(
        "work_id",
        Integer,
        ForeignKey("works.id"),
        nullable=True,
        comment="the work owning a private card; NULL: a public card (spec: work_id=0)",
    ),
    Column(
        "scope",
        String(24),
        nullable=False,
        comment="'public' or 'work:<id>': the uniqueness key (NULL work ids never collide)",
    ),
    Column(
        "key",
        String(80),
        nullable=False,
        comment="stable key across versions, e.g. chapter-end-hook",
    ),
    Column(
        "version", Integer, nullable=False, comment="1, 2, …; a changed content is a new version"
    ),
    Column("name", String(200), nullable=False),
    Column("category", String(40), nullable=False),
    Column("content", JsonDoc, nullable=False, comment="PatternContent; never edited in place"),
    Column(
        "content_sha256",
        String(64),
        nullable=False,
        comment="sha256 of the canonical content, computed before storing",
    ),
    Column("created_at", UtcDateTime, nullable=False),
    UniqueConstraint("scope", "key", "version"),
    CheckConstraint(
        "(work_id IS NULL AND scope = 'public') OR (work_id IS NOT NULL AND scope <> 'public')",
        name="scope",
    ),
    CheckConstraint("version >= 1", name="version"),
)

pattern_bindings = Table(
    "pattern_bindings",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("work_id", Integer, ForeignKey("works.id"), nullable=False),
    Column(
        "assembly_section_id",
        String(40),
        nullable=False,
        comment="the confirmed assembly (plan_sections.id) that made this binding",
    ),
    Column(
        "pattern_id",
        String(40),
        ForeignKey("pattern_cards.id"),
        nullable=False,
        comment="the exact card version bound",
    ),
    Column(
        "content_sha256",
        String(64),
        nullable=False,
        comment="hash pinned by the assembly; equals the card's content_sha256",
    ),
    Column("position", Integer, nullable=False, comment="order within the assembly, from 0"),
    Column("purpose", Text, nullable=False, comment="what the author binds it for, in their words"),
    Column(
        "state",
        String(12),
        nullable=False,
        comment="bound: part of the confirmed assembly | released: a later assembly replaced it",
    ),
    Column("bound_at", UtcDateTime, nullable=False),
    Column("released_at", UtcDateTime, nullable=True, comment="NULL while bound"),
    CheckConstraint("state IN ('bound','released')", name="state"),
)
Index("ix_pattern_bindings_work_state", pattern_bindings.c.work_id, pattern_bindings.c.state)

style_profiles = Table(
    "style_profiles",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("work_id", Integer, ForeignKey("works.id"), nullable=False),
    Column(
        "assembly_section_id",
        String(40),
        nullable=False,
        comment="the confirmed assembly (plan_sections.id) that carried this profile",
    ),
    Column("profile", JsonDoc, nullable=False, comment="StyleProfile, the eight fields"),
    Column("profile_sha256", String(64), nullable=False, comment="sha256 of the canonical profile"),
    Column(
        "state",
        String(12),
        nullable=False,
        comment="bound: the work's confirmed style | released: replaced by a later assembly",
    ),
    Column("bound_at", UtcDateTime, nullable=False),
    Column("released_at", UtcDateTime, nullable=True, comment="NULL while bound"),
    CheckConstraint("state IN ('bound','released')", name="state"),
)
Index("ix_style_profiles_work_state", style_profiles.c.work_id, style_profiles.c.state)
