"""The job queue: enqueue in the caller's transaction, claim safely, finish exactly once.

Life of a job (ARCHITECTURE.md §6)::

    queued ──claim──▶ running ──finish──▶ done        (result stored with the handler's effects)
      ▲                  │
      └──retry/backoff───┤──last attempt──▶ failed    (last_error; ``retry_failed`` re-queues)
                         └──lease expired──▶ claimable again (the worker died)

* **Enqueue** (:func:`enqueue`) runs in the transaction of the change that causes the job, so a
  job exists if and only if its cause was committed.
* **Claim** (:func:`claim_next`) picks the oldest due job in one short transaction: PostgreSQL
  locks the row with ``FOR UPDATE SKIP LOCKED`` (other workers skip it instead of waiting);
  SQLite's ``engine.begin()`` is ``BEGIN IMMEDIATE`` (store/engine.py), so two claims never
  interleave. The claim sets status ``running``, ``locked_by``, ``locked_at`` and attempts + 1;
  that triple is the claim's token. A ``running`` job whose ``locked_at`` is older than the lease
  belonged to a worker that died: it is claimable again, or ``failed`` if it has no attempts left.
* **Finish** (:func:`finish_job`) is a compare-and-set on the token, written in the same
  transaction as the handler's effects: a worker whose job was reclaimed meanwhile gets
  :class:`LeaseLost` and its effects roll back, so a job's effects are committed at most once.
* **Fail** (:func:`fail_job`) re-queues with exponential backoff (``run_after = now + base ×
  2^(attempts−1)``) while attempts remain, else ends the job ``failed`` with the error.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, Connection, Engine, and_, or_, select

from muse.core.clock import iso, utc_now
from muse.core.errors import InvalidInput, NotFound, StaleTransition
from muse.core.ids import new_id
from muse.store.cas import compare_and_set
from muse.store.tables import jobs

STATUSES = ("queued", "running", "done", "failed")
DEFAULT_LEASE = timedelta(minutes=30)
DEFAULT_BACKOFF = timedelta(seconds=30)


class LeaseLost(StaleTransition):
    """The job was reclaimed (or changed) since this worker claimed it: its result is discarded."""


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


@dataclass(frozen=True)
class ClaimedJob:
    """A job as one worker claimed it; (id, locked_by, attempts) is the claim's token."""

    id: str
    kind: str
    work_id: int | None
    payload: dict[str, Any]
    attempts: int
    max_attempts: int
    locked_by: str
    locked_at: datetime


@dataclass(frozen=True)
class JobInfo:
    """A job row for listings (``muse jobs``) and the dashboard."""

    id: str
    kind: str
    work_id: int | None
    payload: dict[str, Any]
    status: str
    attempts: int
    max_attempts: int
    run_after: datetime
    locked_by: str | None
    locked_at: datetime | None
    last_error: str | None
    result: dict[str, Any] | None
    created_at: datetime
    updated_at: datetime
    finished_at: datetime | None

    @property
    def skipped(self) -> bool:
        return self.status == "done" and bool((self.result or {}).get("skipped"))

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "workId": self.work_id,
            "payload": self.payload,
            "status": self.status,
            "skipped": self.skipped,
            "attempts": self.attempts,
            "maxAttempts": self.max_attempts,
            "runAfter": iso(self.run_after),
            "lockedBy": self.locked_by,
            "lockedAt": iso(self.locked_at),
            "lastError": self.last_error,
            "result": self.result,
            "createdAt": iso(self.created_at),
            "updatedAt": iso(self.updated_at),
            "finishedAt": iso(self.finished_at),
        }


def _due(now: datetime, lease: timedelta) -> ColumnElement[bool]:
    return or_(
        and_(jobs.c.status == "queued", jobs.c.run_after <= now),
        and_(jobs.c.status == "running", jobs.c.locked_at < now - lease),
    )


def claim_next(
    engine: Engine,
    worker_id: str,
    *,
    now: datetime | None = None,
    lease: timedelta = DEFAULT_LEASE,
    kinds: tuple[str, ...] | None = None,
) -> ClaimedJob | None:
    """Claim the oldest due job for ``worker_id``; None when nothing is due.

    A job abandoned by a dead worker (running past the lease) is claimed again, unless it has no
    attempts left: then it ends ``failed`` here and the next due job is tried.
    """
    now = now or utc_now()
    while True:
        with engine.begin() as conn:
            query = select(jobs).where(_due(now, lease))
            if kinds:
                query = query.where(jobs.c.kind.in_(kinds))
            query = query.order_by(jobs.c.run_after, jobs.c.created_at, jobs.c.id).limit(1)
            row = conn.execute(query.with_for_update(skip_locked=True)).mappings().first()
            if row is None:
                return None
            if row["status"] == "running" and row["attempts"] >= row["max_attempts"]:
                _abandon(conn, row, now)
                continue
            conn.execute(
                jobs.update()
                .where(jobs.c.id == row["id"])
                .values(
                    status="running",
                    locked_by=worker_id,
                    locked_at=now,
                    attempts=row["attempts"] + 1,
                    updated_at=now,
                )
            )
            return ClaimedJob(
                id=row["id"],
                kind=row["kind"],
                work_id=row["work_id"],
                payload=dict(row["payload"]),
                attempts=row["attempts"] + 1,
                max_attempts=row["max_attempts"],
                locked_by=worker_id,
                locked_at=now,
            )


def _abandon(conn: Connection, row: Any, now: datetime) -> None:
    conn.execute(
        jobs.update()
        .where(jobs.c.id == row["id"])
        .values(
            status="failed",
            locked_by=None,
            locked_at=None,
            last_error=(
                f"执行该任务的进程（{row['locked_by']}）中断，租约已过期；"
                f"已用完全部 {row['max_attempts']} 次尝试。"
            ),
            updated_at=now,
            finished_at=now,
        )
    )


def _token(job: ClaimedJob) -> dict[str, Any]:
    return {"id": job.id, "status": "running", "locked_by": job.locked_by, "attempts": job.attempts}


def _lost(job: ClaimedJob) -> str:
    return f"任务 {job.id} 已不归本进程（{job.locked_by}）执行：租约过期后被重新领取或已被改动，本次结果作废。"


def finish_job(
    conn: Connection, job: ClaimedJob, result: Mapping[str, Any], *, now: datetime | None = None
) -> None:
    """Mark ``job`` done with ``result``, in the transaction that wrote its effects."""
    now = now or utc_now()
    compare_and_set(
        conn,
        jobs,
        where=_token(job),
        values={
            "status": "done",
            "result": dict(result),
            "last_error": None,
            "locked_by": None,
            "locked_at": None,
            "updated_at": now,
            "finished_at": now,
        },
        error=LeaseLost,
        message=_lost(job),
    )


def backoff_delay(base: timedelta, attempts: int) -> timedelta:
    """The wait before the next attempt after ``attempts`` failed ones: base × 2^(attempts−1)."""
    return base * int(2 ** max(attempts - 1, 0))


def fail_job(
    engine: Engine,
    job: ClaimedJob,
    error: str,
    *,
    permanent: bool = False,
    now: datetime | None = None,
    backoff: timedelta = DEFAULT_BACKOFF,
) -> str:
    """Record a failed attempt: re-queued with backoff (returns ``queued``), or ``failed``."""
    now = now or utc_now()
    final = permanent or job.attempts >= job.max_attempts
    values: dict[str, Any] = {
        "last_error": error,
        "locked_by": None,
        "locked_at": None,
        "updated_at": now,
    }
    if final:
        values.update(status="failed", finished_at=now)
    else:
        values.update(status="queued", run_after=now + backoff_delay(backoff, job.attempts))
    with engine.begin() as conn:
        compare_and_set(
            conn, jobs, where=_token(job), values=values, error=LeaseLost, message=_lost(job)
        )
    return "failed" if final else "queued"


def release_job(engine: Engine, job: ClaimedJob, *, now: datetime | None = None) -> None:
    """Give a claimed job back untouched (the worker is stopping): due again at once."""
    now = now or utc_now()
    with engine.begin() as conn:
        compare_and_set(
            conn,
            jobs,
            where=_token(job),
            values={
                "status": "queued",
                "attempts": job.attempts - 1,
                "locked_by": None,
                "locked_at": None,
                "run_after": now,
                "updated_at": now,
            },
            error=LeaseLost,
            message=_lost(job),
        )


def _info(row: Any) -> JobInfo:
    return JobInfo(**{name: row[name] for name in JobInfo.__dataclass_fields__})


def list_jobs(
    conn: Connection,
    *,
    status: str | None = None,
    kind: str | None = None,
    work_id: int | None = None,
    limit: int = 100,
) -> list[JobInfo]:
    """Jobs, newest first."""
    if status is not None and status not in STATUSES:
        raise InvalidInput(f"未知的任务状态「{status}」，可选：{' / '.join(STATUSES)}。")
    query = select(jobs).order_by(jobs.c.created_at.desc(), jobs.c.id.desc()).limit(limit)
    if status is not None:
        query = query.where(jobs.c.status == status)
    if kind is not None:
        query = query.where(jobs.c.kind == kind)
    if work_id is not None:
        query = query.where(jobs.c.work_id == work_id)
    return [_info(row) for row in conn.execute(query).mappings()]


def get_job(conn: Connection, job_id: str) -> JobInfo:
    row = conn.execute(select(jobs).where(jobs.c.id == job_id)).mappings().first()
    if row is None:
        raise NotFound(f"任务 {job_id} 不存在。", hint="用 muse jobs 查看任务队列。")
    return _info(row)


def retry_failed(conn: Connection, job_id: str, *, now: datetime | None = None) -> JobInfo:
    """Re-queue a failed job with a fresh set of attempts (the author fixed the cause)."""
    now = now or utc_now()
    job = get_job(conn, job_id)
    if job.status != "failed":
        raise InvalidInput(f"任务 {job_id} 的状态是 {job.status}，只有失败的任务可以重试。")
    compare_and_set(
        conn,
        jobs,
        where={"id": job_id, "status": "failed"},
        values={
            "status": "queued",
            "attempts": 0,
            "run_after": now,
            "finished_at": None,
            "updated_at": now,
        },
        message=f"任务 {job_id} 已被其他操作改动，请刷新后重试。",
    )
    return get_job(conn, job_id)


def live_jobs_of_kind(conn: Connection, kind: str, work_id: int) -> list[tuple[Any, str]]:
    """(payload, status) of the work's jobs of ``kind`` that did not fail."""
    rows = conn.execute(
        select(jobs.c.payload, jobs.c.status).where(
            jobs.c.kind == kind, jobs.c.work_id == work_id, jobs.c.status != "failed"
        )
    ).all()
    return [(payload, status) for payload, status in rows]
