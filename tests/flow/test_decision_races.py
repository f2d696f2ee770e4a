"""Decisions racing on one candidate with real threads, each with its own engine (issue 19 §5).

Every decision takes its locks in one order (the run row, then the candidate row:
``flow.decisions.load``), so two decisions queue instead of deadlocking; the loser is told in
Chinese why it lost, and the same command id twice is "repeated" whoever wins. The first
contender is held inside its transaction (at ``accept.after_preflight``, the run row already
written) while the second starts, so the overlap is certain, not a matter of luck.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from muse.core.errors import InvalidInput
from muse.flow import accept as accept_module
from muse.flow.accept import AcceptOutcome, accept_candidate
from muse.flow.decisions import discard_candidate
from muse.flow.production import write_chapter
from muse.flow.tables import candidates, runs
from muse.store.engine import make_engine
from tests.support.marked_book import NEXT

from .test_state_machine import row

HOLD_S = 0.5  # how long the first contender keeps its locks after the second has started


@pytest.fixture
def shadow(engine, book) -> str:
    summary = write_chapter(engine, book, NEXT, provider="offline", model="offline-1")
    assert summary.state == "shadow_ready", summary
    return summary.candidate_id


@pytest.fixture
def hold_first_accept(monkeypatch) -> threading.Event:
    """The first accept to write the run row waits there; the event says it got there."""
    holding = threading.Event()

    def pause(name: str) -> None:
        if name == "accept.after_preflight" and not holding.is_set():
            holding.set()
            time.sleep(HOLD_S)

    monkeypatch.setattr(accept_module, "fault_point", pause)
    return holding


def _contend(db_url: str, jobs: dict[str, Any], holding: threading.Event) -> dict[str, Any]:
    """Run each job (name → fn(engine)) on its own thread and engine; all but 'first' start
    once the first is holding its locks. Results are outcomes or the exception raised."""
    results: dict[str, Any] = {}

    def run(name: str, job) -> None:
        if name != "first":
            holding.wait(30)
        engine = make_engine(db_url)
        try:
            results[name] = job(engine)
        except Exception as err:  # noqa: BLE001 - the assertions say what was expected
            results[name] = err
        finally:
            engine.dispose()

    threads = [threading.Thread(target=run, args=item) for item in jobs.items()]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    return results


def test_accept_and_discard_at_once_one_wins_and_the_other_is_told(
    db_url, engine, shadow, hold_first_accept
):
    results = _contend(
        db_url,
        {
            "first": lambda e: accept_candidate(e, shadow),
            "discard": lambda e: discard_candidate(e, shadow),
        },
        hold_first_accept,
    )
    assert isinstance(results["first"], AcceptOutcome) and results["first"].accepted, results
    lost = results["discard"]
    assert isinstance(lost, InvalidInput), repr(lost)
    assert "不能丢弃" in lost.message and "已采纳" in lost.message
    assert row(engine, candidates, shadow)["state"] == "ACCEPTED"
    assert row(engine, runs, row(engine, candidates, shadow)["run_id"])["state"] == (
        "extraction_queued"
    )


def test_the_same_accept_command_twice_at_once_is_repeated(
    db_url, engine, shadow, hold_first_accept
):
    results = _contend(
        db_url,
        {
            "first": lambda e: accept_candidate(e, shadow, command_id="cmd-1"),
            "second": lambda e: accept_candidate(e, shadow, command_id="cmd-1"),
        },
        hold_first_accept,
    )
    first, second = results["first"], results["second"]
    assert isinstance(first, AcceptOutcome) and isinstance(second, AcceptOutcome), results
    assert (first.accepted, first.repeated) == (True, False)
    assert (second.accepted, second.repeated) == (True, True)
    assert second.revision == first.revision


def test_a_second_accept_under_another_command_id_is_refused_in_chinese(
    db_url, engine, shadow, hold_first_accept
):
    results = _contend(
        db_url,
        {
            "first": lambda e: accept_candidate(e, shadow, command_id="cmd-a"),
            "second": lambda e: accept_candidate(e, shadow, command_id="cmd-b"),
        },
        hold_first_accept,
    )
    assert results["first"].accepted, results
    lost = results["second"]
    assert isinstance(lost, InvalidInput), repr(lost)
    assert "只有通过检测（PASSED）的候选可以采纳" in lost.message
