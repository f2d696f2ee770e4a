"""Enqueueing jobs in the caller's transaction (ARCHITECTURE.md §6). Claiming and running them
is the worker's business (the decisions issue)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import Connection, select

from muse.core.clock import utc_now
from muse.core.ids import new_id
from muse.store.tables import jobs


def enqueue(
    conn: Connection,
    kind: str,
    payload: Mapping[str, Any],
    *,
    work_id: int | None = None,
    dedupe_key: str | None = None,
    max_attempts: int = 3,
) -> str:
    """Queue a job in the current transaction; with ``dedupe_key``, at most one per key."""
    if dedupe_key is not None:
        existing = conn.execute(select(jobs.c.id).where(jobs.c.dedupe_key == dedupe_key)).scalar()
        if existing:
            return str(existing)
    job_id = new_id("job")
    now = utc_now()
    conn.execute(
        jobs.insert().values(
            id=job_id,
            kind=kind,
            work_id=work_id,
            payload=dict(payload),
            status="queued",
            attempts=0,
            max_attempts=max_attempts,
            run_after=now,
            dedupe_key=dedupe_key,
            created_at=now,
            updated_at=now,
        )
    )
    return job_id
