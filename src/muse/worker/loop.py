"""The worker loop: claim a due job, run its handler, finish it (or retry it later).

``run_once`` runs every job that is due now and returns what ran (``muse worker --once``);
``run_forever`` polls until its stop event is set (``muse worker``). A job is finished in the
transaction that writes its effects; a failure re-queues it with exponential backoff until its
attempts run out, then it ends ``failed`` with the error (visible in ``muse jobs``). A failure no
retry can fix (unknown kind, a refused model, missing configuration) fails at once.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Engine

from muse.agents import DispatchRefused
from muse.core.clock import iso, utc_now
from muse.core.errors import ConfigError, InvalidInput, MuseError, NotFound
from muse.core.ids import new_id
from muse.store.jobs import (
    DEFAULT_BACKOFF,
    DEFAULT_LEASE,
    ClaimedJob,
    LeaseLost,
    backoff_delay,
    claim_next,
    fail_job,
    finish_job,
    release_job,
)
from muse.worker.handlers import JobContext, PermanentJobError, handler_for, kind_label

PERMANENT = (PermanentJobError, DispatchRefused, ConfigError, NotFound, InvalidInput)


def default_worker_id() -> str:
    return f"{socket.gethostname()[:30]}:{os.getpid()}:{new_id('w')[-6:]}"


@dataclass(frozen=True)
class JobRun:
    """What one attempt of one job came to."""

    job_id: str
    kind: str
    attempt: int
    max_attempts: int
    outcome: str  # done | skipped | retry | failed | lost
    message: str
    result: dict[str, Any] | None = None
    run_after: datetime | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "jobId": self.job_id,
            "kind": self.kind,
            "kindLabel": kind_label(self.kind),
            "attempt": self.attempt,
            "maxAttempts": self.max_attempts,
            "outcome": self.outcome,
            "message": self.message,
            "result": self.result,
            "runAfter": iso(self.run_after),
        }


@dataclass
class Worker:
    engine: Engine
    worker_id: str = field(default_factory=default_worker_id)
    lease: timedelta = DEFAULT_LEASE
    backoff: timedelta = DEFAULT_BACKOFF
    kinds: tuple[str, ...] | None = None
    provider: str | None = None
    model: str | None = None
    clock: Callable[[], datetime] = utc_now

    def claim(self) -> ClaimedJob | None:
        return claim_next(
            self.engine, self.worker_id, now=self.clock(), lease=self.lease, kinds=self.kinds
        )

    def run_once(
        self, *, limit: int | None = None, on_run: Callable[[JobRun], None] | None = None
    ) -> list[JobRun]:
        """Run every job due now (at most ``limit``), one after another; then return."""
        runs: list[JobRun] = []
        while limit is None or len(runs) < limit:
            job = self.claim()
            if job is None:
                break
            run = self.process(job)
            runs.append(run)
            if on_run:
                on_run(run)
        return runs

    def run_forever(
        self,
        stop: threading.Event,
        *,
        poll_seconds: float = 2.0,
        on_run: Callable[[JobRun], None] | None = None,
    ) -> None:
        """Run due jobs, then wait ``poll_seconds`` (or until ``stop``), until ``stop`` is set."""
        while not stop.is_set():
            job = self.claim()
            if job is None:
                stop.wait(poll_seconds)
                continue
            run = self.process(job)
            if on_run:
                on_run(run)

    def process(self, job: ClaimedJob) -> JobRun:
        """Run one claimed job to an outcome; never raises for the job's own failures."""
        ctx = JobContext(self.engine, self.worker_id, self.clock(), self.provider, self.model)
        try:
            apply = handler_for(job.kind)(job, ctx)
            with self.engine.begin() as conn:
                result = apply(conn)
                finish_job(conn, job, result, now=self.clock())
        except LeaseLost as err:
            return self._run(job, "lost", err.message)
        except (KeyboardInterrupt, SystemExit):
            self._release(job)
            raise
        except Exception as err:  # noqa: BLE001 - any failure of a job is recorded on the job
            return self._failed(job, err)
        outcome = "skipped" if result.get("skipped") else "done"
        message = str(result.get("reason") or result.get("summary") or "已完成。")
        return self._run(job, outcome, message, result=result)

    def _failed(self, job: ClaimedJob, err: Exception) -> JobRun:
        message = str(err) if isinstance(err, MuseError) else f"{type(err).__name__}: {err}"
        now = self.clock()
        try:
            status = fail_job(
                self.engine,
                job,
                message,
                permanent=isinstance(err, PERMANENT),
                now=now,
                backoff=self.backoff,
            )
        except LeaseLost as lost:
            return self._run(job, "lost", lost.message)
        if status == "failed":
            return self._run(job, "failed", message)
        return self._run(
            job, "retry", message, run_after=now + backoff_delay(self.backoff, job.attempts)
        )

    def _release(self, job: ClaimedJob) -> None:
        with contextlib.suppress(LeaseLost):
            release_job(self.engine, job, now=self.clock())

    def _run(self, job: ClaimedJob, outcome: str, message: str, **extra: Any) -> JobRun:
        return JobRun(job.id, job.kind, job.attempts, job.max_attempts, outcome, message, **extra)
