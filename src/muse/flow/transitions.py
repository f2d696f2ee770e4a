"""Applying state moves by compare-and-set, and recording node events.

A move reads the row, checks the transition table (``states.py``) and then issues one
``UPDATE … WHERE id AND state AND revision AND attempt (or version)`` that must change exactly
one row; anything else raises ``StaleTransition``. A caller acting on what it saw earlier (a
node result, a timeout sweep, an author command) passes ``expected_*``: a move from a view that
is no longer current is stale even if the transition itself would be allowed (spec 000 §9: a
result of an older attempt or candidate version never moves the state).

The database triggers (``triggers.py``) refuse the same moves; their refusal also surfaces as
``StaleTransition``. Every run move clears the node deadline (``deadline_at``/``deadline_node``):
a deadline belongs to one state, and ``deadlines.start_node`` sets the next one.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, Table, bindparam, select
from sqlalchemy.exc import DBAPIError

from muse.core.clock import utc_now
from muse.core.errors import NotFound, StaleTransition
from muse.core.process import process_owner
from muse.flow.states import candidate_move_allowed, run_move_allowed
from muse.flow.tables import candidates, run_events, runs
from muse.flow.triggers import is_state_machine_refusal
from muse.store.cas import compare_and_set, prepare_update
from muse.store.prepared import Prepared

# Where a run or candidate stands, read before every move: built once with bound ids (a statement
# built per move paid its construction, its cache key and the zone filter's rewrite each time).
_RUN_POSITION = Prepared(
    select(runs.c.state, runs.c.revision, runs.c.attempt).where(
        runs.c.id == bindparam("run_id", type_=runs.c.id.type)
    )
)
_CANDIDATE_POSITION = Prepared(
    select(candidates.c.state, candidates.c.revision, candidates.c.version).where(
        candidates.c.id == bindparam("candidate_id", type_=candidates.c.id.type)
    )
)
_INSERT_EVENT = Prepared(  # the values as parameters: one cached statement for every event
    run_events.insert(),
    keys=("run_id", "attempt", "node", "status", "duration_ms", "detail", "created_at"),
)


# The moves a chapter write makes (store.cas: the columns in the order the moves below give them)
_POSITION_RUN = ("id", "state", "revision", "attempt")
_POSITION_CANDIDATE = ("id", "state", "revision", "version")
_MOVED = ("state", "revision", "updated_at")
_RESTARTED = ("deadline_at", "deadline_node", "owner")
for _table, _where, _values in (
    (runs, _POSITION_RUN, (*_MOVED, *_RESTARTED)),
    (runs, _POSITION_RUN, (*_MOVED, *_RESTARTED, "authorization_snapshot_id")),
    (candidates, _POSITION_CANDIDATE, _MOVED),
    (candidates, _POSITION_CANDIDATE, (*_MOVED, "report")),
):
    prepare_update(_table, _where, _values)


def _check_expected(what: str, seen: dict[str, Any], expected: dict[str, Any]) -> None:
    for name, value in expected.items():
        if value is not None and seen[name] != value:
            raise StaleTransition(
                f"{what} 的 {name} 已是 {seen[name]}（预期 {value}），此结果或操作已过期。"
            )


def _apply(conn: Connection, table: Table, where: dict[str, Any], values: dict[str, Any]) -> None:
    try:
        compare_and_set(conn, table, where=where, values=values)
    except DBAPIError as err:
        if not is_state_machine_refusal(err):
            raise
        raise StaleTransition(f"数据库拒绝了这次状态转移：{err.orig}") from err


def move_run(
    conn: Connection,
    run_id: str,
    new_state: str,
    *,
    reason: str | None = None,
    expected_state: str | None = None,
    expected_attempt: int | None = None,
    expected_revision: int | None = None,
    **values: Any,
) -> None:
    """Move a run from its current state to ``new_state`` if the transition table allows it."""
    row = _RUN_POSITION.run(conn, run_id=run_id).first()
    if row is None:
        raise NotFound(f"运行 {run_id} 不存在。")
    _check_expected(
        f"运行 {run_id}",
        row._asdict(),
        {"state": expected_state, "attempt": expected_attempt, "revision": expected_revision},
    )
    if not run_move_allowed(row.state, new_state):
        raise StaleTransition(f"运行 {run_id} 不能从 {row.state} 转到 {new_state}。")
    update = {
        "state": new_state,
        "revision": row.revision + 1,
        "updated_at": utc_now(),
        "deadline_at": None,
        "deadline_node": None,
        "owner": process_owner(),  # the process that moved it runs what comes next
        **values,
    }
    if reason is not None:
        update["reason"] = reason
    _apply(
        conn,
        runs,
        {"id": run_id, "state": row.state, "revision": row.revision, "attempt": row.attempt},
        update,
    )


def move_candidate(
    conn: Connection,
    candidate_id: str,
    new_state: str,
    *,
    expected_state: str | None = None,
    expected_version: int | None = None,
    expected_revision: int | None = None,
    **values: Any,
) -> None:
    row = _CANDIDATE_POSITION.run(conn, candidate_id=candidate_id).first()
    if row is None:
        raise NotFound(f"候选 {candidate_id} 不存在。")
    _check_expected(
        f"候选 {candidate_id}",
        row._asdict(),
        {"state": expected_state, "version": expected_version, "revision": expected_revision},
    )
    if not candidate_move_allowed(row.state, new_state):
        raise StaleTransition(f"候选 {candidate_id} 不能从 {row.state} 转到 {new_state}。")
    _apply(
        conn,
        candidates,
        {"id": candidate_id, "state": row.state, "revision": row.revision, "version": row.version},
        {"state": new_state, "revision": row.revision + 1, "updated_at": utc_now(), **values},
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
    """One row of the run's event log; ``status``: ok | failed | blocked | not_built | started |
    timeout | swept | late_discarded (at most 16 characters)."""
    _INSERT_EVENT.run(
        conn,
        run_id=run_id,
        attempt=attempt,
        node=node,
        status=status,
        duration_ms=duration_ms,
        detail=detail,
        created_at=utc_now(),
    )
