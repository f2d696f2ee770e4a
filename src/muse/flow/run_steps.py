"""The plumbing every node of a production run shares: committing a node, stopping, timing,
and telling a live display what happens (``NodeEvent``).

A node's work runs in one transaction that applies its result through :meth:`RunCtx.advance`
(or ``commit_verdict``); a result that is no longer current (late: the node timed out, or the
run is at a later attempt) raises ``_Late`` inside it, the transaction still commits its
``late_discarded`` event, and the run stops with the state it is really in.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy import Connection, Engine, bindparam, select

from muse.flow.deadlines import guard_result, remaining_s, start_node
from muse.flow.states import WORKING_NODES
from muse.flow.tables import runs
from muse.flow.transitions import move_run, record_event
from muse.store.engine import reading
from muse.store.prepared import Prepared

T = TypeVar("T")


@dataclass(frozen=True)
class NodeEvent:
    """One step of a run as a live display sees it."""

    node: str  # a run state (writing, rewriting…) or a check step (mechanical_gate…)
    status: str  # running | ok | failed | blocked
    attempt: int
    elapsed_ms: int = 0
    detail: dict[str, Any] = field(default_factory=dict)


Observer = Callable[[NodeEvent], None]


class Stopped(Exception):
    """The run ended (or was found ended) in ``state``; the summary reports it."""

    def __init__(self, state: str, reason: str) -> None:
        self.state, self.reason = state, reason


class _Late(Exception):
    def __init__(self, node: str) -> None:
        self.node = node


# Read before every model call (its timeout): built once with a bound run id.
_DEADLINE = Prepared(
    select(runs.c.deadline_at).where(runs.c.id == bindparam("run_id", type_=runs.c.id.type))
)


@dataclass
class RunCtx:
    engine: Engine
    run_id: str
    provider: str
    model: str
    progress: Callable[[str, str], None] | None = None
    observer: Observer | None = None

    # -- display ---------------------------------------------------------------------------------

    def emit(self, event: NodeEvent) -> None:
        if self.progress is not None:
            self.progress(event.node, event.status)
        if self.observer is not None:
            self.observer(event)

    def begin(self, node: str, attempt: int, detail: dict[str, Any] | None = None) -> float:
        self.emit(NodeEvent(node, "running", attempt, 0, detail or {}))
        return time.perf_counter()

    def end(
        self,
        node: str,
        attempt: int,
        status: str,
        started: float,
        detail: dict[str, Any] | None = None,
    ) -> None:
        self.emit(NodeEvent(node, status, attempt, self.ms(started), detail or {}))

    @staticmethod
    def ms(started: float) -> int:
        return int((time.perf_counter() - started) * 1000)

    # -- moves -----------------------------------------------------------------------------------

    def advance(
        self, conn: Connection, node: str, attempt: int, next_state: str, **values: Any
    ) -> None:
        """Apply ``node``'s result: refuse it if late, else move on and start the next deadline."""
        if not guard_result(conn, self.run_id, attempt, node):
            raise _Late(node)
        move_run(
            conn,
            self.run_id,
            next_state,
            expected_state=node,
            expected_attempt=attempt,
            **values,
        )
        if next_state in WORKING_NODES:
            start_node(conn, self.run_id, next_state)

    def late(self, node: str) -> Exception:
        return _Late(node)

    def commit_node(self, node: str, work: Callable[[Connection], T]) -> T:
        """Run ``work`` in one transaction and return what it returns; a late result is
        discarded and the run stops."""
        with self.engine.begin() as conn:
            try:
                return work(conn)
            except _Late:
                pass  # the late-discarded event and any timeout are committed on leaving
        state, reason = self.current_state()
        raise Stopped(state, reason or f"{node} 的结果迟到，已丢弃。")

    def stop(self, state: str, reason: str, node: str, attempt: int, started: float) -> Stopped:
        """End the run in ``state`` from ``node`` (its own transaction) and return the signal."""

        def work(conn: Connection) -> None:
            self.advance(conn, node, attempt, state, reason=reason)
            status = "failed" if state == "failed" or state.endswith("_stale") else "blocked"
            record_event(
                conn, self.run_id, attempt, node, status, self.ms(started), {"reason": reason}
            )

        self.commit_node(node, work)
        return Stopped(state, reason)

    # -- reads -----------------------------------------------------------------------------------

    def current_state(self) -> tuple[str, str | None]:
        with reading(self.engine) as conn:
            row = conn.execute(
                select(runs.c.state, runs.c.reason).where(runs.c.id == self.run_id)
            ).one()
        return row.state, row.reason

    def deadline_left(self) -> float | None:
        """Seconds left in the running node: the model call's timeout."""
        with reading(self.engine) as conn:  # a read: never the write lock (SQLite)
            deadline = _DEADLINE.run(conn, run_id=self.run_id).scalar()
        return remaining_s(deadline) if deadline is not None else None
