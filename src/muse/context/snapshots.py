"""Reading stored frozen contexts (table ``context_snapshots``) from other packages.

Only this package writes them (``writer_context.store_context``); flow and evaluation read them
through these functions, never through the table (docs/architecture.md §2).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Row, select

from muse.context.tables import context_snapshots
from muse.store.rows import FromRow


@dataclass(frozen=True, slots=True)
class SnapshotRow(FromRow):
    """A stored frozen context (table ``context_snapshots``), as other packages read it."""

    id: str
    run_id: str  # the run that froze it
    attempt: int
    work_id: int
    target_chapter: int
    as_of: int  # last chapter the context may read
    plan_id: str
    manifest_id: str
    sha256: str  # contextSnapshotSha256
    chapter_revisions: dict[str, int]  # {"<chapter>": revision} of every chapter read
    payload: dict[str, Any]  # the whole WriterContext v1
    created_at: datetime


def snapshot_payload(conn: Connection, snapshot_id: str) -> dict[str, Any]:
    """The stored WriterContext v1 of a snapshot, as a mapping (raises if there is none)."""
    payload: dict[str, Any] = conn.execute(
        select(context_snapshots.c.payload).where(context_snapshots.c.id == snapshot_id)
    ).scalar_one()
    return payload


def snapshot_revisions(conn: Connection, snapshot_id: str) -> dict[str, int]:
    """``{"<chapter>": revision}`` of every chapter the snapshot read (raises if there is none)."""
    revisions: dict[str, int] = conn.execute(
        select(context_snapshots.c.chapter_revisions).where(context_snapshots.c.id == snapshot_id)
    ).scalar_one()
    return revisions


def snapshot_row(conn: Connection, snapshot_id: str) -> SnapshotRow | None:
    """The whole stored row of a snapshot, or None."""
    found = (
        conn.execute(select(context_snapshots).where(context_snapshots.c.id == snapshot_id))
        .mappings()
        .first()
    )
    return None if found is None else SnapshotRow.from_row(found)


def run_snapshots(
    conn: Connection, run_id: str
) -> Sequence[Row[Any, Any, Any, Any, Any, Any, Any]]:
    """A run's snapshots, oldest first, without their payloads."""
    c = context_snapshots.c
    return conn.execute(
        select(c.id, c.attempt, c.as_of, c.plan_id, c.manifest_id, c.sha256, c.created_at)
        .where(c.run_id == run_id)
        .order_by(c.created_at)
    ).all()


def latest_snapshot(conn: Connection, run_id: str) -> Row[Any, Any] | None:
    """The id and payload of the run's newest snapshot, or None."""
    return conn.execute(
        select(context_snapshots.c.id, context_snapshots.c.payload)
        .where(context_snapshots.c.run_id == run_id)
        .order_by(context_snapshots.c.created_at.desc())
    ).first()
