"""A killed evaluation resumes where it stopped and never calls a model again for stored work."""

from __future__ import annotations

import json

import pytest

from muse.evaluation.report import build_report
from muse.evaluation.runner import run_set
from tests.evaluation.harness import BOOKS, register

from .harness import set_yaml


class Killed(Exception):
    pass


def _kill_at(step: str, status: str):
    def progress(sample: str, got_step: str, got_status: str) -> None:
        if (got_step, got_status) == (step, status):
            raise Killed(f"{sample} {step} {status}")

    return progress


def _roles(stub) -> dict[str, int]:
    counts = {"writer": 0, "detector": 0, "judge": 0}
    for r in stub.requests:
        text = json.dumps(r.body, ensure_ascii=False)
        role = (
            "judge"
            if "你是「质量评委」" in text
            else "detector"
            if "你是「检测员」" in text
            else "writer"
        )
        counts[role] += 1
    return counts


@pytest.mark.parametrize(
    ("step", "status"),
    [
        ("A:frozen", "ok"),  # before any model call
        ("B:writer", "ok"),  # the reply is receipted, the candidate not yet stored
        ("A:detector", "replied"),  # the detector's reply receipted, its verdict not committed
        ("C:detector", "replied"),
        ("C:detector", "passed"),  # checks stored, the move to judging not yet made
        ("judge1", "ok"),  # one sheet receipted, not yet stored
        ("state", "judging_pair"),
    ],
)
def test_killed_run_resumes_without_repeating_a_stored_call(
    engine, books, router, stub, step, status
):
    set_id = register(engine, set_yaml(f"kill-{step}", {BOOKS[0]: 2}), router)
    with pytest.raises(Killed):
        run_set(engine, set_id, concurrency=1, progress=_kill_at(step, status))
    before = _roles(stub)

    events: list[tuple[str, str, str]] = []
    result = run_set(engine, set_id, concurrency=1, progress=lambda *e: events.append(e))
    assert set(result.states.values()) == {"stable_report"}
    assert _roles(stub) == {"writer": 6, "detector": 6, "judge": 4}  # exactly once each
    if step == "B:writer":
        assert ("b1s01", "B:writer", "reused") in events
        assert before["writer"] == 2, before  # A and B of the first sample, then killed
    if step == "judge1":
        assert ("b1s01", "judge1", "reused") in events
    report = build_report(engine, set_id)
    assert report["totals"]["calls"] == 16


def test_a_finished_set_runs_nothing(engine, books, router, stub):
    set_id = register(engine, set_yaml("done", {BOOKS[0]: 1}), router)
    run_set(engine, set_id, concurrency=1)
    sent = len(stub.requests)
    run_set(engine, set_id, concurrency=1)
    assert len(stub.requests) == sent
