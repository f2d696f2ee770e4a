"""Works, volumes, chapters, canonical prose revisions and authorization snapshots.

Canonical text lives in ``prose_blocks``: one row per (chapter, revision), never updated, so every
earlier revision stays restorable. ``chapters.current_revision`` points at the canonical one and
moves only by compare-and-set (``WHERE current_revision = :expected``).
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

works = Table(
    "works",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("title", String(200), nullable=False),
    Column(
        "source_kind",
        String(32),
        nullable=False,
        comment="own | public_domain | licensed: where the text comes from (spec 000 §2.2)",
    ),
    Column(
        "allowed_purposes",
        JsonDoc,
        nullable=False,
        comment="list of purposes: production | evaluation",
    ),
    Column(
        "source_status",
        String(16),
        nullable=False,
        comment="active | suspended | withdrawn; anything but active fails closed",
    ),
    Column(
        "source_version",
        String(80),
        nullable=False,
        comment="sha256 prefix of the imported file, or 'manuscript' for own writing",
    ),
    Column(
        "source_note", Text, nullable=True, comment="licence or provenance in the author's words"
    ),
    Column(
        "default_chapter_chars",
        Integer,
        nullable=False,
        default=3000,
        comment="length target when fewer than 3 valid chapters exist (spec 000 §8.1 rule 4)",
    ),
    Column(
        "front_matter",
        Text,
        nullable=True,
        comment="text before the first chapter of an imported book; NULL: none",
    ),
    Column("created_at", UtcDateTime, nullable=False),
    Column("updated_at", UtcDateTime, nullable=False),
    CheckConstraint("source_kind IN ('own','public_domain','licensed')", name="source_kind"),
    CheckConstraint("source_status IN ('active','suspended','withdrawn')", name="source_status"),
)

authorization_snapshots = Table(
    "authorization_snapshots",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("work_id", Integer, ForeignKey("works.id"), nullable=False),
    Column("purpose", String(32), nullable=False, comment="production | evaluation"),
    Column("source_kind", String(32), nullable=False),
    Column("source_status", String(16), nullable=False, comment="the status when taken"),
    Column("source_version", String(80), nullable=False),
    Column("created_at", UtcDateTime, nullable=False),
    comment="Immutable: a row is never updated; a later check compares it with the live work.",
)

volumes = Table(
    "volumes",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("work_id", Integer, ForeignKey("works.id"), nullable=False),
    Column("number", Integer, nullable=False, comment="as written in the heading (第N卷)"),
    Column("title", String(200), nullable=False),
    Column(
        "heading",
        String(300),
        nullable=True,
        comment="the heading line as imported; NULL: none recorded (export writes 第N卷 title)",
    ),
    Column("position", Integer, nullable=False, comment="order of appearance, from 1"),
    UniqueConstraint("work_id", "position"),
)

chapters = Table(
    "chapters",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("work_id", Integer, ForeignKey("works.id"), nullable=False),
    Column("number", Integer, nullable=False, comment="absolute chapter number in the work"),
    Column("title", String(200), nullable=False),
    Column(
        "heading",
        String(300),
        nullable=True,
        comment="the heading line as imported (第一回　上联　下联); NULL: none recorded, export "
        "writes one in the book's own style",
    ),
    Column(
        "volume_id",
        Integer,
        ForeignKey("volumes.id"),
        nullable=True,
        comment="NULL: the work has no volumes",
    ),
    Column(
        "current_revision",
        Integer,
        nullable=False,
        comment="revision of the canonical prose block; moves only by compare-and-set",
    ),
    Column("created_at", UtcDateTime, nullable=False),
    Column("updated_at", UtcDateTime, nullable=False),
    UniqueConstraint("work_id", "number"),
)

prose_blocks = Table(
    "prose_blocks",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("chapter_id", Integer, ForeignKey("chapters.id"), nullable=False),
    Column("revision", Integer, nullable=False, comment="1 for the first text, then +1 per change"),
    Column("text", Text, nullable=False, comment="NFC, LF, no BOM"),
    Column("content_sha256", String(64), nullable=False),
    Column("han_count", Integer, nullable=False),
    Column(
        "origin",
        String(16),
        nullable=False,
        comment="import | accept | edit | revert: how this revision came to be",
    ),
    Column(
        "attribution",
        JsonDoc,
        nullable=False,
        comment="run, candidate, decision or file behind this revision; {} when none",
    ),
    Column("created_at", UtcDateTime, nullable=False),
    UniqueConstraint("chapter_id", "revision"),
)
# Covers the every-chapter reads of (number, han_count) and (number, content_sha256): they never
# walk a chapter's text to reach the two columns after it (migration 0026).
Index(
    "ix_prose_blocks_chapter_revision_counts",
    prose_blocks.c.chapter_id,
    prose_blocks.c.revision,
    prose_blocks.c.han_count,
    prose_blocks.c.content_sha256,
)
