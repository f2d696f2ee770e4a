"""Whole evaluations over real HTTP (a routing stub for every role): the stability outcomes,
every Gate A and Gate B verdict reached through a real run, and the oracle canary."""

from __future__ import annotations

import json

import pytest

from muse.evaluation.report import build_report
from muse.evaluation.runner import run_set
from tests.evaluation.harness import BOOKS, CANARY, register

from .harness import flat, set_yaml

ONE, TWO = BOOKS


def _run(engine, router, text: str) -> dict:
    set_id = register(engine, text, router)
    run_set(engine, set_id, concurrency=1)
    return build_report(engine, set_id)


def _states(report) -> list[str]:
    return [s["state"] for s in report["samples"]]


def test_stable_pair(engine, books, router):
    router.judge = lambda arm, dim, index, sample: {1: 3.5, 2: 4.0}[index]
    report = _run(engine, router, set_yaml("stable", {ONE: 1}))
    sample = report["samples"][0]
    assert sample["state"] == "stable_report" and sample["judges"] == 2, sample["reason"]
    assert sample["arms"]["C"]["final"]["settingFidelity"] == "3.75"


def test_unstable_pair_is_resolved_by_a_third_judge_median(engine, books, router):
    def judge(arm, dim, index, sample):
        if dim == "proseQuality":
            return {1: 2.0, 2: 4.0, 3: 3.5}[index]
        return 3.0

    router.judge = judge
    report = _run(engine, router, set_yaml("third", {ONE: 1}))
    sample = report["samples"][0]
    assert (sample["state"], sample["judges"]) == ("adjudicated_report", 3)
    assert sample["arms"]["A"]["final"]["proseQuality"] == "3.5"  # median of 2, 4, 3.5
    assert sample["arms"]["A"]["final"]["settingFidelity"] == "3"


def test_no_stable_pair_makes_the_sample_invalid_unstable(engine, books, router):
    router.judge = lambda arm, dim, index, sample: (
        {1: 1.0, 2: 3.0, 3: 5.0}[index] if dim == "styleConsistency" else 3.0
    )
    report = _run(engine, router, set_yaml("invalid", {ONE: 1}))
    sample = report["samples"][0]
    assert sample["state"] == "invalid_unstable" and sample["arms"]["C"]["final"] is None
    assert "文风一致" in sample["reason"]
    assert report["invalid"][0]["sampleId"] == sample["sampleId"]


def test_no_request_carries_the_oracle(engine, books, router, stub):
    """The canary planted in chapter 6 onward never reaches any model, in any role or arm."""
    report = _run(engine, router, set_yaml("canary", {ONE: 5, TWO: 5}))
    assert set(_states(report)) == {"stable_report"}
    roles = {"writer": 0, "detector": 0, "judge": 0}
    for request in stub.requests:
        text = json.dumps(request.body, ensure_ascii=False)
        assert CANARY not in text
        roles[
            "judge"
            if "你是「质量评委」" in text
            else "detector"
            if "你是「检测员」" in text
            else "writer"
        ] += 1
    assert roles == {"writer": 30, "detector": 30, "judge": 20}
    # the canary is really in the book: chapter 5 is read, chapter 6 is not
    assert any("标记005号" in json.dumps(r.body, ensure_ascii=False) for r in stub.requests)


def _c_better(field: str, by: float):
    def judge(arm, dim, index, sample):
        return 3.0 + (by if arm == "C" and dim == field else 0.0)

    return judge


@pytest.mark.parametrize(
    ("name", "books_", "judge", "gate_a", "gate_b"),
    [
        (
            "four",
            {ONE: 4},
            flat(3.0),
            ("insufficient_evidence", "valid_samples"),
            ("insufficient_evidence", "gate_a_insufficient"),
        ),
        (
            "one-book",
            {ONE: 5},
            flat(3.0),
            ("passed", "gate_a_pass"),
            ("insufficient_evidence", "coverage_books"),
        ),
        (
            "thin-book",
            {ONE: 6, TWO: 4},
            flat(3.0),
            ("passed", "gate_a_pass"),
            ("insufficient_evidence", "coverage_per_book"),
        ),
        (
            "no-gain",
            {ONE: 5, TWO: 5},
            flat(3.0),
            ("passed", "gate_a_pass"),
            ("no_gain", "no_fidelity_gain"),
        ),
        (
            "gain",
            {ONE: 5, TWO: 5},
            _c_better("settingFidelity", 1.0),
            ("passed", "gate_a_pass"),
            ("passed", "fidelity_gain"),
        ),
        (
            "style-drop",
            {ONE: 5, TWO: 5},
            _c_better("styleConsistency", -1.0),
            ("passed", "gate_a_pass"),
            ("failed", "style_regression"),
        ),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_gates_through_a_real_run(engine, books, router, name, books_, judge, gate_a, gate_b):
    router.judge = judge
    report = _run(engine, router, set_yaml(name, books_))
    assert (report["gateA"]["verdict"], report["gateA"]["rule"]) == gate_a
    assert (report["gateB"]["verdict"], report["gateB"]["rule"]) == gate_b
