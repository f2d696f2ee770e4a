"""Arm C on the production policy: the production rewrite loop inside an evaluation, its budget
as a declared variable, and crash points inside the loop (every call made exactly once)."""

from __future__ import annotations

import json

import pytest
import yaml
from sqlalchemy import select

from muse.evaluation.report import build_report
from muse.evaluation.runner import run_set
from muse.evaluation.sample_state import zone_engine
from muse.flow.tables import candidates, runs
from tests.evaluation.harness import BOOKS, register

from .harness import set_yaml

ONE = BOOKS[0]
META = "作者的话：本章写得匆忙，求月票！"


def _meta_on_first_c_draft(draft: dict, task_input: dict) -> dict:
    """Arm C's first draft carries author's meta text (a located, blocking mechanical finding);
    its rewrite, which receives the revision list, does not."""
    if task_input["mode"] == "production" and "revisionRequest" not in task_input:
        draft["paragraphs"] = [*draft["paragraphs"], META]
    return draft


def _roles(stub) -> dict[str, int]:
    counts = {"writer": 0, "detector": 0, "judge": 0}
    for r in stub.requests:
        text = json.dumps(r.body, ensure_ascii=False)
        if "你是「质量评委」" in text:
            counts["judge"] += 1
        elif "你是「检测员」" in text:
            counts["detector"] += 1
        else:
            counts["writer"] += 1
    return counts


def _with_variables(text: str, **variables: int) -> str:
    doc = yaml.safe_load(text)
    doc["variables"] = variables
    return yaml.safe_dump(doc, allow_unicode=True, sort_keys=False)


def test_arm_c_rewrites_a_rejected_draft_within_the_production_budget(engine, books, router, stub):
    router.writer_edit = _meta_on_first_c_draft
    set_id = register(engine, set_yaml("rewrite-c", {ONE: 1}), router)
    run_set(engine, set_id, concurrency=1)
    report = build_report(engine, set_id)
    sample = report["samples"][0]
    assert sample["state"] == "stable_report", sample["reason"]
    arms = sample["arms"]
    assert (arms["C"]["check"]["attempts"], arms["C"]["check"]["runState"]) == (2, "shadow_ready")
    assert arms["C"]["check"]["highSeverity"] == 0
    assert [arms[a]["check"]["attempts"] for a in "AB"] == [1, 1]
    # the judged C candidate is the rewrite (version 2), never the rejected first draft
    with zone_engine(engine).connect() as conn:
        judged = conn.execute(
            select(candidates.c.version, candidates.c.body).where(
                candidates.c.id == arms["C"]["candidateId"]
            )
        ).one()
        run = conn.execute(
            select(runs.c.state, runs.c.attempt).where(runs.c.id == arms["C"]["runId"])
        ).one()
    assert judged.version == 2 and META not in judged.body
    assert (run.state, run.attempt) == ("shadow_ready", 2)
    writer_bodies = [
        json.dumps(r.body, ensure_ascii=False)
        for r in stub.requests
        if "你是「质量评委」" not in json.dumps(r.body, ensure_ascii=False)
        and "你是「检测员」" not in json.dumps(r.body, ensure_ascii=False)
    ]
    assert sum("上一稿没有通过检测" in b for b in writer_bodies) == 1  # the loop's revision list
    judge_bodies = [
        json.dumps(r.body, ensure_ascii=False)
        for r in stub.requests
        if "你是「质量评委」" in json.dumps(r.body, ensure_ascii=False)
    ]
    assert judge_bodies and all(META not in b for b in judge_bodies)
    # C1 is rejected by the mechanical gate, so the detector sees A, B and C2
    assert _roles(stub) == {"writer": 4, "detector": 3, "judge": 2}


def test_the_rewrite_budget_is_the_sets_declared_variable(engine, books, router, stub):
    router.writer_edit = _meta_on_first_c_draft
    text = _with_variables(set_yaml("rewrite-off", {ONE: 1}), maxRewrites=0)
    set_id = register(engine, text, router)
    run_set(engine, set_id, concurrency=1)
    check = build_report(engine, set_id)["samples"][0]["arms"]["C"]["check"]
    assert (check["attempts"], check["runState"]) == (1, "blocked_user_action")
    assert check["highSeverity"] >= 1
    assert _roles(stub)["writer"] == 3


class Killed(Exception):
    pass


def _kill_at(step: str, status: str, nth: int):
    seen = {"n": 0}

    def progress(sample: str, got_step: str, got_status: str) -> None:
        if (got_step, got_status) == (step, status):
            seen["n"] += 1
            if seen["n"] == nth:
                raise Killed(f"{sample} {step} {status} #{nth}")

    return progress


@pytest.mark.parametrize(
    ("step", "status", "nth"),
    [
        ("C:detector", "rejected", 1),  # attempt 1 committed (run rewriting), no rewrite yet
        ("C:writer", "ok", 2),  # the rewrite's reply receipted, its candidate not stored
        ("C:detector", "replied", 2),  # attempt 2's detector reply receipted, not committed
        ("C:detector", "passed", 1),  # attempt 2 committed, the sample not yet judging
    ],
)
def test_a_crash_inside_the_rewrite_loop_repeats_no_call(
    engine, books, router, stub, step, status, nth
):
    router.writer_edit = _meta_on_first_c_draft
    set_id = register(engine, set_yaml(f"kill-loop-{step}-{nth}", {ONE: 1}), router)
    with pytest.raises(Killed):
        run_set(engine, set_id, concurrency=1, progress=_kill_at(step, status, nth))
    result = run_set(engine, set_id, concurrency=1)
    assert set(result.states.values()) == {"stable_report"}
    assert _roles(stub) == {"writer": 4, "detector": 3, "judge": 2}  # exactly once each
    check = build_report(engine, set_id)["samples"][0]["arms"]["C"]["check"]
    assert (check["attempts"], check["runState"]) == (2, "shadow_ready")
