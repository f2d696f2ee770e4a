"""Compare-and-set under real concurrency: N threads and N processes, exactly one wins.

Every contender has its own engine (its own connections) on the same database and waits at a
barrier, so the moves really overlap. The losers must get ``StaleTransition`` — never a second
success, never another error.
"""

from __future__ import annotations

import multiprocessing
import threading
from collections import Counter

from sqlalchemy import func, select

from muse.core.errors import StaleTransition
from muse.flow.deadlines import expire, guard_result, start_node
from muse.flow.tables import candidates, run_events, runs
from muse.flow.transitions import move_candidate, move_run
from muse.store.engine import make_engine

from .test_state_machine import candidate_in_state, new_work, row, run_in_state

N = 6


def _attempt(db_url: str, kind: str, row_id: str, target: str, seen: str) -> str:
    """One contender's move in its own engine, from the state it saw (``seen``): 'won', 'stale'
    or the unexpected error. Without ``expected_state`` a contender that loses could still move
    the row on from the winner's state (rewriting → failed is allowed), which is not a race."""
    engine = make_engine(db_url)
    try:
        with engine.begin() as conn:
            if kind == "run":
                move_run(conn, row_id, target, reason="竞争测试", expected_state=seen)
            else:
                move_candidate(conn, row_id, target, expected_state=seen)
        return "won"
    except StaleTransition:
        return "stale"
    except Exception as err:  # noqa: BLE001 - reported through the assertion
        return f"error: {err!r}"
    finally:
        engine.dispose()


def _race_threads(db_url: str, contenders: list[tuple[str, str, str, str]]) -> list[str]:
    barrier, results, lock = threading.Barrier(len(contenders)), [], threading.Lock()

    def run(kind: str, row_id: str, target: str, seen: str) -> None:
        barrier.wait()
        outcome = _attempt(db_url, kind, row_id, target, seen)
        with lock:
            results.append(f"{target}:{outcome}")

    threads = [threading.Thread(target=run, args=c) for c in contenders]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    return results


def _process_main(db_url, kind, row_id, target, seen, barrier, queue) -> None:
    barrier.wait(timeout=120)
    queue.put(f"{target}:{_attempt(db_url, kind, row_id, target, seen)}")


def _race_processes(db_url: str, contenders: list[tuple[str, str, str, str]]) -> list[str]:
    ctx = multiprocessing.get_context("spawn")  # no forked copies of open connections
    barrier, queue = ctx.Barrier(len(contenders)), ctx.Queue()
    procs = [
        ctx.Process(target=_process_main, args=(db_url, *c, barrier, queue)) for c in contenders
    ]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
    assert [p.exitcode for p in procs] == [0] * len(procs)
    return [queue.get(timeout=10) for _ in procs]


def _one_winner(results: list[str]) -> str:
    outcomes = Counter(r.split(":", 1)[1] for r in results)
    assert outcomes == {"won": 1, "stale": len(results) - 1}, results
    return next(r.split(":", 1)[0] for r in results if r.endswith(":won"))


def test_threads_race_the_same_run_move(db_url, engine):
    run_id = run_in_state(engine, new_work(engine), "validating_context")
    _one_winner(_race_threads(db_url, [("run", run_id, "retrieving", "validating_context")] * N))
    got = row(engine, runs, run_id)
    assert (got["state"], got["revision"]) == ("retrieving", 1)


def test_threads_race_different_targets_one_state_results(db_url, engine):
    run_id = run_in_state(engine, new_work(engine), "detecting")
    targets = ["shadow_ready", "rewriting", "blocked_user_action", "failed", "detecting_timeout"]
    winner = _one_winner(_race_threads(db_url, [("run", run_id, t, "detecting") for t in targets]))
    got = row(engine, runs, run_id)
    assert (got["state"], got["revision"]) == (winner, 4)


def test_threads_race_the_same_candidate_move(db_url, engine):
    _, cand_id = candidate_in_state(engine, new_work(engine), "PASSED")
    _one_winner(_race_threads(db_url, [("candidate", cand_id, "ACCEPTED", "PASSED")] * N))
    got = row(engine, candidates, cand_id)
    assert (got["state"], got["revision"]) == ("ACCEPTED", 3)


def test_processes_race_the_same_run_move(db_url, engine):
    run_id = run_in_state(engine, new_work(engine), "writing")
    _one_winner(_race_processes(db_url, [("run", run_id, "detecting", "writing")] * 4))
    got = row(engine, runs, run_id)
    assert (got["state"], got["revision"]) == ("detecting", 3)


def test_processes_race_accept_against_discard(db_url, engine):
    _, cand_id = candidate_in_state(engine, new_work(engine), "PASSED")
    contenders = [
        ("candidate", cand_id, t, "PASSED")
        for t in ("ACCEPTED", "DISCARDED", "ARCHIVED", "ACCEPTED")
    ]
    winner = _one_winner(_race_processes(db_url, contenders))
    assert row(engine, candidates, cand_id)["state"] == winner


def test_timeout_races_a_finishing_node(db_url, engine):
    """The deadline sweep and the node's own result race: exactly one of them moves the run."""
    from datetime import timedelta

    from muse.core.clock import utc_now

    run_id = run_in_state(engine, new_work(engine), "writing")
    with engine.begin() as conn:
        start_node(conn, run_id, "writing", 60)
    later = utc_now() + timedelta(seconds=61)
    barrier, outcomes = threading.Barrier(2), []

    def finish() -> None:
        eng = make_engine(db_url)
        barrier.wait()
        try:
            with eng.begin() as conn:
                if guard_result(conn, run_id, 1, "writing", now=later - timedelta(seconds=2)):
                    move_run(conn, run_id, "detecting")
                    outcomes.append("result")
        except StaleTransition:
            pass
        finally:
            eng.dispose()

    def sweep() -> None:
        eng = make_engine(db_url)
        barrier.wait()
        try:
            if expire(eng, later):
                outcomes.append("timeout")
        finally:
            eng.dispose()

    threads = [threading.Thread(target=finish), threading.Thread(target=sweep)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert len(outcomes) == 1, outcomes
    state = row(engine, runs, run_id)["state"]
    assert state == {"result": "detecting", "timeout": "writing_timeout"}[outcomes[0]]
    with engine.connect() as conn:
        timeouts = conn.execute(
            select(func.count()).where(
                run_events.c.run_id == run_id, run_events.c.status == "timeout"
            )
        ).scalar()
    assert timeouts == (1 if outcomes == ["timeout"] else 0)
