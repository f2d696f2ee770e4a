"""The job queue under the worker: exactly-once claiming, leases, backoff, failure, retry."""

from __future__ import annotations

import threading
from collections import Counter
from datetime import timedelta

import pytest
from sqlalchemy import select

from muse.core.errors import InvalidInput
from muse.store.jobs import (
    LeaseLost,
    backoff_delay,
    claim_next,
    enqueue,
    finish_job,
    get_job,
    list_jobs,
    retry_failed,
)
from muse.store.tables import jobs
from muse.worker.handlers import register_handler, unregister_handler
from muse.worker.loop import Worker
from tests.worker.records import RECORD_KIND, enqueue_records, executions

JOBS = 40


def test_two_worker_threads_run_every_job_exactly_once(engine, record_log):
    ids = enqueue_records(engine, JOBS)
    results: dict[str, list] = {}

    def work(name: str) -> None:
        results[name] = Worker(engine, worker_id=name).run_once()

    threads = [threading.Thread(target=work, args=(f"t{i}",)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ran = executions(record_log)
    assert Counter(ran) == Counter(ids)  # every job once, none twice
    assert sorted(r.job_id for rs in results.values() for r in rs) == sorted(ids)
    with engine.connect() as conn:
        done = list_jobs(conn, status="done", limit=1000)
    assert len(done) == JOBS
    assert {j.result["by"] for j in done} <= {"t0", "t1"}
    assert all(j.locked_by is None and j.finished_at is not None for j in done)


def test_a_claim_marks_the_job_running_with_its_token(engine, record_log, clock):
    [job_id] = enqueue_records(engine, 1)
    job = claim_next(engine, "w1", now=clock())
    assert job is not None and (job.id, job.attempts, job.locked_by) == (job_id, 1, "w1")
    with engine.connect() as conn:
        row = get_job(conn, job_id)
    assert (row.status, row.locked_by, row.locked_at, row.attempts) == ("running", "w1", clock(), 1)
    assert claim_next(engine, "w2", now=clock()) is None  # nobody else gets it


def test_a_job_is_not_claimed_before_its_run_after(engine, record_log, clock):
    with engine.begin() as conn:
        job_id = enqueue(conn, RECORD_KIND, {"n": 1})
        conn.execute(
            jobs.update()
            .where(jobs.c.id == job_id)
            .values(run_after=clock.now + timedelta(hours=1))
        )
    assert claim_next(engine, "w", now=clock()) is None
    clock.advance(hours=1)
    assert claim_next(engine, "w", now=clock()).id == job_id


def test_a_dead_workers_job_is_reclaimed_after_the_lease_and_its_late_result_discarded(
    engine, record_log, clock
):
    [job_id] = enqueue_records(engine, 1)
    lease = timedelta(minutes=10)
    dead = claim_next(engine, "dead", now=clock(), lease=lease)  # claims, then "dies"
    clock.advance(minutes=9)
    assert claim_next(engine, "alive", now=clock(), lease=lease) is None  # lease still held
    clock.advance(minutes=2)
    runs = Worker(engine, worker_id="alive", lease=lease, clock=clock).run_once()
    assert [(r.job_id, r.attempt, r.outcome) for r in runs] == [(job_id, 2, "done")]
    with pytest.raises(LeaseLost), engine.begin() as conn:  # the dead worker wakes up too late
        finish_job(conn, dead, {"by": "dead"}, now=clock())
    with engine.connect() as conn:
        row = get_job(conn, job_id)
    assert (row.status, row.result["by"], row.attempts) == ("done", "alive", 2)


def test_an_abandoned_job_without_attempts_left_ends_failed(engine, record_log, clock):
    [job_id] = enqueue_records(engine, 1, max_attempts=1)
    claim_next(engine, "dead", now=clock())
    clock.advance(hours=1)
    assert Worker(engine, clock=clock, lease=timedelta(minutes=30)).run_once() == []
    with engine.connect() as conn:
        row = get_job(conn, job_id)
    assert row.status == "failed" and "中断" in row.last_error and row.finished_at == clock()
    assert executions(record_log) == []


@pytest.fixture
def failing_kind():
    calls = []

    def handler(job, ctx):
        calls.append((job.attempts, ctx.now))
        raise RuntimeError(f"模型服务暂时不可用（第 {job.attempts} 次）")

    register_handler("test.failing", handler)
    yield calls
    unregister_handler("test.failing")


def test_retries_back_off_exponentially_then_the_job_fails_visibly(engine, failing_kind, clock):
    with engine.begin() as conn:
        job_id = enqueue(conn, "test.failing", {}, max_attempts=3)
    base = timedelta(seconds=30)
    worker = Worker(engine, backoff=base, clock=clock)
    start = clock()

    [first] = worker.run_once()
    assert (first.outcome, first.attempt, first.run_after) == ("retry", 1, start + base)
    assert worker.run_once() == []  # not due yet
    clock.advance(seconds=29)
    assert worker.run_once() == []
    clock.advance(seconds=1)
    [second] = worker.run_once()
    assert (second.outcome, second.attempt) == ("retry", 2)
    assert second.run_after == clock() + 2 * base  # base × 2^(attempts−1)
    clock.advance(seconds=59)
    assert worker.run_once() == []
    clock.advance(seconds=1)
    [third] = worker.run_once()
    assert (third.outcome, third.attempt) == ("failed", 3)
    assert clock.now - start == base + 2 * base
    assert [a for a, _ in failing_kind] == [1, 2, 3]
    clock.advance(days=1)
    assert worker.run_once() == []  # a failed job is never picked up again
    with engine.connect() as conn:
        [row] = list_jobs(conn, status="failed")
    assert row.id == job_id and row.attempts == 3
    assert row.last_error == "RuntimeError: 模型服务暂时不可用（第 3 次）"


def test_backoff_doubles_per_attempt():
    base = timedelta(seconds=10)
    assert [backoff_delay(base, n).total_seconds() for n in (1, 2, 3, 4)] == [10, 20, 40, 80]


def test_an_unknown_kind_fails_at_once_with_a_clear_message(engine, clock):
    with engine.begin() as conn:
        job_id = enqueue(conn, "from.the.future", {}, max_attempts=5)
    [run] = Worker(engine, clock=clock).run_once()
    assert run.outcome == "failed" and run.attempt == 1
    with engine.connect() as conn:
        row = get_job(conn, job_id)
    assert row.status == "failed"
    assert "未知的任务类型「from.the.future」" in row.last_error


def test_a_failed_job_can_be_retried_by_the_author(engine, failing_kind, clock):
    with engine.begin() as conn:
        job_id = enqueue(conn, "test.failing", {}, max_attempts=1)
    Worker(engine, clock=clock).run_once()
    with engine.begin() as conn:
        retry_failed(conn, job_id)
    with engine.connect() as conn:
        row = get_job(conn, job_id)
    assert (row.status, row.attempts, row.finished_at) == ("queued", 0, None)
    assert row.last_error  # the previous error stays visible until the next attempt
    [run] = Worker(engine, clock=clock).run_once()
    assert run.attempt == 1 and run.outcome == "failed"


def test_only_failed_jobs_can_be_retried(engine, record_log):
    [job_id] = enqueue_records(engine, 1)
    with engine.begin() as conn, pytest.raises(InvalidInput):
        retry_failed(conn, job_id)


def test_a_handler_error_in_the_apply_step_rolls_back_its_effects(engine, clock):
    def handler(job, ctx):
        def apply(conn):
            conn.execute(jobs.update().where(jobs.c.id == job.id).values(payload={"touched": 1}))
            raise ValueError("写入中途失败")

        return apply

    register_handler("test.half", handler)
    try:
        with engine.begin() as conn:
            job_id = enqueue(conn, "test.half", {"n": 1})
        [run] = Worker(engine, clock=clock).run_once()
    finally:
        unregister_handler("test.half")
    assert run.outcome == "retry"
    with engine.connect() as conn:
        payload = conn.execute(select(jobs.c.payload).where(jobs.c.id == job_id)).scalar()
    assert payload == {"n": 1}


def test_run_forever_polls_until_stopped(engine, record_log):
    ids = enqueue_records(engine, 5)
    stop = threading.Event()
    seen: list[str] = []

    def on_run(run) -> None:
        seen.append(run.job_id)
        if len(seen) == len(ids):
            stop.set()

    thread = threading.Thread(
        target=Worker(engine).run_forever,
        args=(stop,),
        kwargs={"poll_seconds": 0.05, "on_run": on_run},
    )
    thread.start()
    thread.join(timeout=120)
    assert not thread.is_alive()
    assert sorted(seen) == sorted(ids) and Counter(executions(record_log)) == Counter(ids)


def test_an_interrupted_worker_gives_its_job_back(engine, clock):
    def handler(job, ctx):
        raise KeyboardInterrupt

    register_handler("test.interrupted", handler)
    try:
        with engine.begin() as conn:
            job_id = enqueue(conn, "test.interrupted", {})
        with pytest.raises(KeyboardInterrupt):
            Worker(engine, clock=clock).run_once()
    finally:
        unregister_handler("test.interrupted")
    with engine.connect() as conn:
        row = get_job(conn, job_id)
    assert (row.status, row.attempts, row.locked_by) == ("queued", 0, None)
