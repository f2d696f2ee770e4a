"""Applying state moves by compare-and-set, and recording node events."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, select

from muse.core.clock import utc_now
from muse.core.errors import StaleTransition
from muse.flow.states import candidate_move_allowed, run_move_allowed
from muse.flow.tables import candidates, run_events, runs
from muse.store.cas import compare_and_set


def move_run(
    conn: Connection, run_id: str, new_state: str, *, reason: str | None = None, **values: Any
) -> None:
    """Move a run from its current state to ``new_state`` if the transition table allows it."""
    row = conn.execute(
        select(runs.c.state, runs.c.revision, runs.c.attempt).where(runs.c.id == run_id)
    ).one()
    if not run_move_allowed(row.state, new_state):
        raise StaleTransition(f"运行 {run_id} 不能从 {row.state} 转到 {new_state}。")
    update = {"state": new_state, "revision": row.revision + 1, "updated_at": utc_now(), **values}
    if reason is not None:
        update["reason"] = reason
    compare_and_set(
        conn,
        runs,
        where={"id": run_id, "state": row.state, "revision": row.revision, "attempt": row.attempt},
        values=update,
    )


def move_candidate(conn: Connection, candidate_id: str, new_state: str, **values: Any) -> None:
    row = conn.execute(
        select(candidates.c.state, candidates.c.revision, candidates.c.version).where(
            candidates.c.id == candidate_id
        )
    ).one()
    if not candidate_move_allowed(row.state, new_state):
        raise StaleTransition(f"候选 {candidate_id} 不能从 {row.state} 转到 {new_state}。")
    compare_and_set(
        conn,
        candidates,
        where={
            "id": candidate_id,
            "state": row.state,
            "revision": row.revision,
            "version": row.version,
        },
        values={
            "state": new_state,
            "revision": row.revision + 1,
            "updated_at": utc_now(),
            **values,
        },
    )


def record_event(
    conn: Connection,
    run_id: str,
    attempt: int,
    node: str,
    status: str,
    duration_ms: int,
    detail: dict[str, Any],
) -> None:
    conn.execute(
        run_events.insert().values(
            run_id=run_id,
            attempt=attempt,
            node=node,
            status=status,
            duration_ms=duration_ms,
            detail=detail,
            created_at=utc_now(),
        )
    )
