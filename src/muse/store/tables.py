"""Tables owned by the storage layer itself: the job queue.

Jobs (post-chapter extraction, indexing) are rows enqueued in the same transaction as the change
that causes them (ARCHITECTURE.md §6). Workers claim them with ``FOR UPDATE SKIP LOCKED`` on
PostgreSQL and ``BEGIN IMMEDIATE`` on SQLite.
"""

from sqlalchemy import Column, Index, Integer, String, Table, Text

from muse.store.metadata import JsonDoc, UtcDateTime, metadata

jobs = Table(
    "jobs",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("kind", String(64), nullable=False, comment="what the job does, e.g. extract_chapter"),
    Column("work_id", Integer, nullable=True, comment="the work it concerns; NULL: not work-bound"),
    Column("payload", JsonDoc, nullable=False),
    Column("status", String(16), nullable=False, comment="queued | running | done | failed"),
    Column("attempts", Integer, nullable=False, default=0),
    Column("max_attempts", Integer, nullable=False, default=3),
    Column("run_after", UtcDateTime, nullable=False, comment="not claimed before this time"),
    Column("locked_by", String(64), nullable=True, comment="worker id; NULL when not running"),
    Column("locked_at", UtcDateTime, nullable=True),
    Column("last_error", Text, nullable=True),
    Column(
        "result",
        JsonDoc,
        nullable=True,
        comment="what the finished job did (counts, ids, skip reason); NULL: not finished",
    ),
    Column(
        "finished_at",
        UtcDateTime,
        nullable=True,
        comment="when it ended done or failed; NULL: queued or running",
    ),
    Column(
        "dedupe_key",
        String(200),
        nullable=True,
        unique=True,
        comment="one live job per key; NULL: no de-duplication",
    ),
    Column("created_at", UtcDateTime, nullable=False),
    Column("updated_at", UtcDateTime, nullable=False),
)
Index("ix_jobs_claim", jobs.c.status, jobs.c.run_after)
