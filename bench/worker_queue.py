"""Benchmark: job queue throughput (claim → no-op handler → finish) with one or more workers.

    .venv/bin/python bench/worker_queue.py [--jobs 500] [--workers 1 2] [--url URL]

Without ``--url`` a fresh SQLite file is used; with a PostgreSQL URL the jobs table of that
database is used (the database must be migrated and should be a scratch one). Each worker is a
thread with its own claim/finish transactions, so the figure is the queue's overhead per job
(two transactions), not any handler's work. Reports jobs/s (wall clock) per worker count.
"""

from __future__ import annotations

import argparse
import tempfile
import threading
import time

from sqlalchemy import delete

from muse.store.engine import make_engine
from muse.store.jobs import enqueue
from muse.store.migrate import upgrade
from muse.store.tables import jobs
from muse.worker.handlers import register_handler
from muse.worker.loop import Worker

KIND = "bench.noop"


def _noop(job, ctx):
    return lambda conn: {"n": job.payload["n"]}


def run(engine, count: int, workers: int) -> float:
    with engine.begin() as conn:
        conn.execute(delete(jobs).where(jobs.c.kind == KIND))
        for n in range(count):
            enqueue(conn, KIND, {"n": n})
    threads = [
        threading.Thread(target=Worker(engine, worker_id=f"b{i}", kinds=(KIND,)).run_once)
        for i in range(workers)
    ]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return count / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", type=int, default=500)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--url", default=None)
    args = parser.parse_args()
    url = args.url or f"sqlite:///{tempfile.mkdtemp()}/bench.db"
    engine = make_engine(url)
    upgrade(engine)  # idempotent: a given PostgreSQL database is migrated to head first
    register_handler(KIND, _noop)
    for n in args.workers:
        rate = run(engine, args.jobs, n)
        print(f"{engine.dialect.name}: {n} worker(s), {args.jobs} jobs: {rate:.0f} jobs/s")


if __name__ == "__main__":
    main()
