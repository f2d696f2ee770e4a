"""Sweeping runs a crash left behind (ARCHITECTURE.md principle 7: every run ends explicitly).

A process that dies mid-node leaves its run in a working state forever. ``sweep`` ends such
runs in their ``<node>_timeout`` state with a reason:

* a run whose node deadline has passed (``deadlines.expire``), and
* a run in a working node without a running deadline whose ``updated_at`` is older than
  ``stale_after_s`` (default ``STALE_AFTER_S``, or ``MUSE_SWEEP_STALE_AFTER_S``) — longer than
  any node deadline, so a live process that records its deadlines is never swept by mistake.

* a run in a working node whose owner (``runs.owner``, the process that last moved it) is known
  to be dead on this host (``core.process.owner_alive``): a server that restarted, a killed
  ``muse write`` — at once, not after the deadline. An owner on another host, or a run from
  before owners were recorded, is unknown and left to the two rules above.

Runs that wait for the author (``shadow_ready``) are never swept. Sweeping is idempotent and
safe to run from two processes at once: each move is a compare-and-set, exactly one wins.
``muse runs sweep`` runs it on demand and ``sweep_on_startup`` at CLI start.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, Engine, or_, select
from sqlalchemy.exc import SQLAlchemyError

from muse.core.clock import iso, utc_now
from muse.core.errors import ConfigError, StaleTransition
from muse.core.process import owner_alive
from muse.flow.deadlines import DEFAULT_DEADLINES_S, TimedOut, expire, lock_run, time_out
from muse.flow.states import RUN_STATE_LABELS, WORKING_NODES
from muse.flow.sweep_probe import STALE_AFTER_ENV
from muse.flow.tables import runs
from muse.store.engine import reading

STALE_AFTER_S = max(3600.0, 2 * max(DEFAULT_DEADLINES_S.values()))


@dataclass
class SweepReport:
    timed_out: list[TimedOut] = field(default_factory=list)  # deadline passed
    swept: list[TimedOut] = field(default_factory=list)  # no deadline, stale
    orphaned: list[TimedOut] = field(default_factory=list)  # its owner process is dead
    error: str | None = None  # sweep_on_startup only: why the sweep could not run

    @property
    def moved(self) -> list[TimedOut]:
        return self.timed_out + self.swept + self.orphaned

    def to_dict(self) -> dict[str, Any]:
        return {
            "timedOut": [t.to_dict() for t in self.timed_out],
            "swept": [t.to_dict() for t in self.swept],
            "orphaned": [t.to_dict() for t in self.orphaned],
            "error": self.error,
        }


def stale_after_s() -> float:
    raw = os.environ.get(STALE_AFTER_ENV)
    if not raw:
        return STALE_AFTER_S
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if value <= 0:
        raise ConfigError(f"{STALE_AFTER_ENV}={raw} 无效，应为正的秒数。")
    return value


def sweep(
    engine: Engine, *, now: datetime | None = None, stale_after: float | None = None
) -> SweepReport:
    """End every run left in a working node by a crash; returns what moved."""
    now = now or utc_now()
    report = SweepReport(timed_out=expire(engine, now))
    cutoff = now - timedelta(seconds=stale_after if stale_after is not None else stale_after_s())
    with reading(engine) as conn:
        stale_ids = list(
            conn.execute(
                select(runs.c.id)
                .where(
                    runs.c.state.in_(WORKING_NODES),
                    or_(
                        runs.c.deadline_at.is_(None),
                        runs.c.deadline_node.is_distinct_from(runs.c.state),
                    ),
                    runs.c.updated_at < cutoff,
                )
                .order_by(runs.c.updated_at)
            ).scalars()
        )
    for run_id in stale_ids:
        moved = _sweep_one(engine, run_id, cutoff)
        if moved is not None:
            report.swept.append(moved)
    with reading(engine) as conn:
        orphans = orphaned_runs(conn)
    for run_id in orphans:
        moved = _end_orphan(engine, run_id)
        if moved is not None:
            report.orphaned.append(moved)
    return report


def orphaned_runs(conn: Connection, run_ids: list[str] | None = None) -> list[str]:
    """Runs in a working node whose owner process is known to be dead (已中断): nobody will
    finish them. ``run_ids`` narrows the look to those runs (a page asking about its run)."""
    query = select(runs.c.id, runs.c.owner).where(
        runs.c.state.in_(WORKING_NODES), runs.c.owner.is_not(None)
    )
    if run_ids is not None:
        query = query.where(runs.c.id.in_(run_ids))
    found = conn.execute(query.order_by(runs.c.updated_at)).all()
    return [run_id for run_id, owner in found if owner_alive(owner) is False]


def _end_orphan(engine: Engine, run_id: str) -> TimedOut | None:
    try:
        with engine.begin() as conn:
            row = lock_run(conn, run_id)
            if row.state not in WORKING_NODES or owner_alive(row.owner) is not False:
                return None  # it moved, or another process took it over, after we looked
            reason = (
                f"运行停在「{RUN_STATE_LABELS.get(row.state, row.state)}」，运行它的进程已结束"
                "（服务重启或进程被中止），已中断并按超时结束。请重新运行。"
            )
            return time_out(conn, row, kind="orphaned", reason=reason)
    except StaleTransition:
        return None


def _sweep_one(engine: Engine, run_id: str, cutoff: datetime) -> TimedOut | None:
    try:
        with engine.begin() as conn:
            row = lock_run(conn, run_id)
            running = row.deadline_at is not None and row.deadline_node == row.state
            if row.state not in WORKING_NODES or running or row.updated_at >= cutoff:
                return None  # it moved (or started a deadline) after we looked
            reason = (
                f"运行停在「{RUN_STATE_LABELS.get(row.state, row.state)}」，自 {iso(row.updated_at)}"
                " 起没有任何进展（进程可能已中断），已按超时结束。请重新运行。"
            )
            return time_out(conn, row, kind="swept", reason=reason)
    except StaleTransition:
        return None


def sweep_on_startup(engine: Engine) -> SweepReport:
    """The CLI's start-up sweep: never stops the command; a failure is reported, not raised."""
    try:
        return sweep(engine)
    except (SQLAlchemyError, ConfigError) as err:
        return SweepReport(error=f"启动时清理遗留运行失败：{err}")
