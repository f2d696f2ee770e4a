"""Node deadlines, timeouts and late results (spec 000 §9, ARCHITECTURE.md §5).

Every working node has a deadline. A node that starts records it on the run
(``runs.deadline_at`` and ``runs.deadline_node``, set by :func:`start_node`); every state move
clears it. When the deadline passes, :func:`expire` moves the run to ``<node>_timeout`` — a
terminal state with a reason — and fails closed whatever the run left half-done: its candidates
still in DRAFT or CHECKING are REJECTED (spec 001 §6: no candidate is left "processing"). A
result that arrives after that is discarded: the node's code asks :func:`guard_result` before it
uses a result, in the transaction that would record it, and gets ``False`` (plus a
``late_discarded`` event) when the run is no longer in that node and attempt, or when the
deadline has passed meanwhile (the run is then timed out on the spot).

Deadlines are policy: ``DEFAULT_DEADLINES_S``, overridable per node with the environment
variable ``MUSE_NODE_DEADLINES`` ("writing=1800,detecting=900") or a ``DeadlinePolicy``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, Engine, bindparam, select

from muse.core.clock import as_utc, iso, utc_now
from muse.core.errors import ConfigError, InvalidInput, NotFound, StaleTransition
from muse.core.process import process_owner
from muse.flow.states import RUN_STATE_LABELS, WORKING_NODES, timeout_state
from muse.flow.tables import candidates, runs
from muse.flow.transitions import move_candidate, move_run, record_event
from muse.store.cas import compare_and_set, prepare_update
from muse.store.engine import reading
from muse.store.prepared import Prepared

# Seconds. A model node's deadline is longer than dispatch's own call timeout (600 s) plus one
# repair request, so the call normally fails by itself first and the deadline catches the rest.
DEFAULT_DEADLINES_S: Mapping[str, float] = {
    "validating_context": 60,
    "retrieving": 600,
    "writing": 1500,
    "detecting": 1500,
    "rewriting": 1500,
    "edited_candidate": 600,
    "accept_preflight": 120,
}
DEADLINES_ENV = "MUSE_NODE_DEADLINES"


@dataclass(frozen=True)
class DeadlinePolicy:
    seconds: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_DEADLINES_S))

    def for_node(self, node: str) -> float:
        if node not in self.seconds:
            raise InvalidInput(f"节点 {node} 没有截止时间策略。")
        return self.seconds[node]

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> DeadlinePolicy:
        """The defaults, with ``MUSE_NODE_DEADLINES`` overrides ("node=seconds,…")."""
        raw = (environ if environ is not None else os.environ).get(DEADLINES_ENV, "")
        seconds = dict(DEFAULT_DEADLINES_S)
        for item in filter(None, (part.strip() for part in raw.split(","))):
            node, _, value = item.partition("=")
            try:
                number = float(value)
            except ValueError:
                number = -1.0
            if node.strip() not in seconds or number <= 0:
                raise ConfigError(
                    f"{DEADLINES_ENV} 中的「{item}」无效。",
                    hint=f"格式：节点=秒数，用逗号分隔；节点：{'、'.join(DEFAULT_DEADLINES_S)}。",
                )
            seconds[node.strip()] = number
        return cls(seconds)


@dataclass(frozen=True)
class TimedOut:
    """One run moved to a timeout state by :func:`expire` or by the crash sweep."""

    run_id: str
    node: str
    state: str
    kind: str  # timeout (deadline passed) | swept (left behind by a crash) | orphaned (owner dead)
    reason: str
    rejected_candidates: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "runId": self.run_id,
            "node": self.node,
            "state": self.state,
            "kind": self.kind,
            "reason": self.reason,
            "rejectedCandidates": list(self.rejected_candidates),
        }


def start_node(
    conn: Connection,
    run_id: str,
    node: str,
    deadline_s: float | None = None,
    *,
    now: datetime | None = None,
) -> datetime:
    """Record that ``node`` (the run's current state) must finish within ``deadline_s`` seconds
    (default: the policy's) and return the deadline. Call it in the transaction that moved the
    run into ``node``."""
    if timeout_state(node) is None:
        raise InvalidInput(f"{node} 不是有截止时间的工作节点。")
    seconds = DeadlinePolicy.from_env().for_node(node) if deadline_s is None else deadline_s
    now = now or utc_now()
    deadline = now + timedelta(seconds=seconds)
    row = lock_run(conn, run_id)
    if row.state != node:
        raise StaleTransition(f"运行 {run_id} 当前处于 {row.state}，不在 {node}，不能开始计时。")
    compare_and_set(
        conn,
        runs,
        where={"id": run_id, "state": node, "revision": row.revision},
        values={
            "deadline_at": deadline,
            "deadline_node": node,
            "updated_at": now,
            "owner": process_owner(),  # whoever starts the node runs it
        },
    )
    record_event(
        conn,
        run_id,
        row.attempt,
        node,
        "started",
        0,
        {"deadlineAt": iso(deadline), "deadlineS": seconds},
    )
    return deadline


def remaining_s(deadline: datetime, now: datetime | None = None) -> float:
    """Seconds left before ``deadline`` (≥ 0): a model call's ``timeout_s`` inside the node."""
    aware = as_utc(deadline)
    assert aware is not None
    return max(0.0, (aware - (now or utc_now())).total_seconds())


def guard_result(
    conn: Connection, run_id: str, attempt: int, node: str, *, now: datetime | None = None
) -> bool:
    """Whether a result of ``node``/``attempt`` may still be used. ``False``: it is late — the run
    moved on, was timed out, or its deadline has just passed (the run is timed out now); a
    ``late_discarded`` event records it and the caller must commit and drop the result."""
    now = now or utc_now()
    row = lock_run(conn, run_id)
    current = row.state == node and row.attempt == attempt
    deadline = as_utc(row.deadline_at)
    if current and row.deadline_node == node and deadline is not None and deadline <= now:
        time_out(conn, row, kind="timeout", reason=_timeout_reason(node, deadline))
        current = False
    if current:
        return True
    record_event(
        conn,
        run_id,
        attempt,
        node,
        "late_discarded",
        0,
        {
            "event": "late_result_discarded",
            "runState": conn.execute(select(runs.c.state).where(runs.c.id == run_id)).scalar(),
            "runAttempt": row.attempt,
            "resultAttempt": attempt,
            "at": iso(now),
        },
    )
    return False


def expire(engine: Engine, now: datetime | None = None) -> list[TimedOut]:
    """Move every run whose running node's deadline has passed to ``<node>_timeout``."""
    now = now or utc_now()
    with reading(engine) as conn:
        due = conn.execute(
            select(runs.c.id)
            .where(
                runs.c.deadline_at <= now,
                runs.c.deadline_node == runs.c.state,
                runs.c.state.in_(WORKING_NODES),
            )
            .order_by(runs.c.deadline_at)
        ).scalars()
        due_ids = list(due)
    return [done for run_id in due_ids if (done := _expire_one(engine, run_id, now)) is not None]


def _expire_one(engine: Engine, run_id: str, now: datetime) -> TimedOut | None:
    try:
        with engine.begin() as conn:
            row = lock_run(conn, run_id)
            deadline = as_utc(row.deadline_at)
            if row.deadline_node != row.state or deadline is None or deadline > now:
                return None  # the node finished (or restarted) after we looked
            return time_out(conn, row, kind="timeout", reason=_timeout_reason(row.state, deadline))
    except StaleTransition:
        return None  # another process moved it first: exactly one of us wins


def time_out(conn: Connection, row: Any, *, kind: str, reason: str) -> TimedOut:
    """Move the run ``row`` (id, state, attempt, revision as read) to its timeout state and
    reject its unfinished candidates, in the caller's transaction."""
    target = timeout_state(row.state)
    if target is None:
        raise InvalidInput(f"运行状态 {row.state} 没有超时状态。")
    move_run(
        conn,
        row.id,
        target,
        reason=reason,
        expected_state=row.state,
        expected_attempt=row.attempt,
        expected_revision=row.revision,
    )
    rejected = _reject_unfinished(conn, row.id)
    record_event(
        conn,
        row.id,
        row.attempt,
        row.state,
        kind,
        0,
        {"reason": reason, "state": target, "rejectedCandidates": list(rejected)},
    )
    return TimedOut(row.id, row.state, target, kind, reason, rejected)


def _reject_unfinished(conn: Connection, run_id: str) -> tuple[str, ...]:
    rows = conn.execute(
        select(candidates.c.id, candidates.c.state)
        .where(candidates.c.run_id == run_id, candidates.c.state.in_(("DRAFT", "CHECKING")))
        .order_by(candidates.c.id)
    ).all()
    for cand in rows:
        if cand.state == "DRAFT":
            move_candidate(conn, cand.id, "CHECKING")
        move_candidate(conn, cand.id, "REJECTED")
    return tuple(c.id for c in rows)


# Built once with a bound run id: a run is locked several times per node, and a statement built
# per call paid its construction, its cache key and the zone filter's rewrite every time.
_LOCK_RUN = Prepared(
    select(
        runs.c.id,
        runs.c.state,
        runs.c.attempt,
        runs.c.revision,
        runs.c.deadline_at,
        runs.c.deadline_node,
        runs.c.updated_at,
        runs.c.owner,
    )
    .where(runs.c.id == bindparam("run_id", type_=runs.c.id.type))
    .with_for_update()
)


# start_node's update (store.cas)
prepare_update(
    runs, ("id", "state", "revision"), ("deadline_at", "deadline_node", "updated_at", "owner")
)


def lock_run(conn: Connection, run_id: str) -> Any:
    row = _LOCK_RUN.run(conn, run_id=run_id).first()
    if row is None:
        raise NotFound(f"运行 {run_id} 不存在。")
    return row


def _timeout_reason(node: str, deadline: datetime) -> str:
    return (
        f"节点「{RUN_STATE_LABELS.get(node, node)}」超过截止时间（{iso(deadline)}）仍未完成，"
        "本次尝试已标记超时，迟到的结果将被丢弃。请重新运行。"
    )
