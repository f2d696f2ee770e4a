"""Frozen writer contexts: what a writer call was given, stored whole (principle 1)."""

from sqlalchemy import Column, ForeignKey, Integer, String, Table

from muse.store.metadata import JsonDoc, UtcDateTime, metadata

context_snapshots = Table(
    "context_snapshots",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("run_id", String(40), nullable=False, comment="the run that froze it"),
    Column("attempt", Integer, nullable=False),
    Column("work_id", Integer, ForeignKey("works.id"), nullable=False),
    Column("target_chapter", Integer, nullable=False),
    Column("as_of", Integer, nullable=False, comment="last chapter the context may read"),
    Column("plan_id", String(64), nullable=False),
    Column("manifest_id", String(64), nullable=False),
    Column(
        "sha256",
        String(64),
        nullable=False,
        comment="contextSnapshotSha256, computed in Python before storing",
    ),
    Column(
        "chapter_revisions",
        JsonDoc,
        nullable=False,
        comment='{"<chapter>": revision} of every chapter read; accept preflight re-checks it',
    ),
    Column("payload", JsonDoc, nullable=False, comment="the whole WriterContext v1"),
    Column("created_at", UtcDateTime, nullable=False),
)
