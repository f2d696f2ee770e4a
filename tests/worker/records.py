"""A job kind that records every execution (job id, worker id) in a log file, for the
exactly-once tests; ``record_worker.py`` runs it in other processes."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from muse.store.jobs import enqueue

RECORD_KIND = "test.record"


def append_line(path: Path, line: str) -> None:
    """Append one line atomically (O_APPEND + a lock), from any thread or process."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.write(fd, (line + "\n").encode())
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def record_handler(log: Path):
    """A handler that logs every execution (job id, worker id) before committing."""

    def handler(job, ctx):
        append_line(log, f"{job.payload['n']} {job.id} {ctx.worker_id}")

        def apply(conn):
            return {"n": job.payload["n"], "by": ctx.worker_id}

        return apply

    return handler


def enqueue_records(engine, count: int, **kwargs) -> list[str]:
    with engine.begin() as conn:
        return [enqueue(conn, RECORD_KIND, {"n": i}, **kwargs) for i in range(count)]


def executions(log: Path) -> list[str]:
    """Job ids in the order they were executed."""
    if not log.exists():
        return []
    return [line.split()[1] for line in log.read_text().splitlines() if line]
