"""Two worker processes on one queue: every job runs exactly once."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

from muse.store.jobs import list_jobs
from tests.worker.records import enqueue_records, executions

ROOT = Path(__file__).resolve().parents[2]
JOBS = 60


def test_two_worker_processes_run_every_job_exactly_once(engine, db_url, record_log):
    ids = enqueue_records(engine, JOBS)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "tests.worker.record_worker", db_url, str(record_log), f"p{i}"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(2)
    ]
    outputs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outputs
    ran = executions(record_log)
    assert Counter(ran) == Counter(ids)  # each job executed once: no duplicates, none missing
    assert sum(int(out.strip()) for out, _ in outputs) == JOBS
    with engine.connect() as conn:
        done = list_jobs(conn, status="done", limit=1000)
    assert sorted(j.id for j in done) == sorted(ids)
    assert {j.result["by"] for j in done} <= {"p0", "p1"}
