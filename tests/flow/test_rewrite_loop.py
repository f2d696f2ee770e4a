"""The automatic rewrite loop (issue #6): REJECTED → revision list → rewriting (attempt + 1) →
a new candidate version → detecting, up to the policy limit, then blocked for the author."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from muse.agents.tables import model_calls
from muse.core.errors import ConfigError, StaleTransition
from muse.flow.rewrite import RewritePolicy
from muse.flow.tables import candidates, run_events, runs
from muse.flow.verdicts import commit_verdict
from muse.quality.verdict import Verdict
from tests.support.fakes import write_offline
from tests.support.marked_book import NEXT


def _drop_h1(draft):
    return {**draft, "claims": [c for c in draft["claims"] if c["constraintId"] != "H1"]}


def _first_calls_broken(scripted, broken: int):
    """The writer's first ``broken`` drafts omit the claim for hard event H1."""
    calls = {"n": 0}

    def edit(draft):
        calls["n"] += 1
        return _drop_h1(draft) if calls["n"] <= broken else draft

    scripted("writer", "generate").edit(edit)
    return calls


def _candidates(engine, run_id):
    with engine.connect() as conn:
        return (
            conn.execute(
                select(candidates)
                .where(candidates.c.run_id == run_id)
                .order_by(candidates.c.version)
            )
            .mappings()
            .all()
        )


def _run(engine, run_id):
    with engine.connect() as conn:
        return conn.execute(select(runs).where(runs.c.id == run_id)).mappings().one()


def _events(engine, run_id):
    with engine.connect() as conn:
        return conn.execute(
            select(
                run_events.c.node, run_events.c.status, run_events.c.attempt, run_events.c.detail
            )
            .where(run_events.c.run_id == run_id)
            .order_by(run_events.c.id)
        ).all()


def _writer_calls(engine, run_id):
    with engine.connect() as conn:
        return (
            conn.execute(
                select(model_calls.c.task_input, model_calls.c.request_params)
                .where(
                    model_calls.c.run_id == run_id,
                    model_calls.c.role == "writer",
                    model_calls.c.task == "generate",  # not the explore phase's call
                )
                .order_by(model_calls.c.started_at)
            )
            .mappings()
            .all()
        )


def test_rejected_first_draft_is_rewritten_and_passes_on_attempt_2(engine, book, scripted):
    _first_calls_broken(scripted, 1)
    summary = write_offline(engine, book, NEXT)
    assert (summary.state, summary.attempt) == ("shadow_ready", 2), summary.reason
    rows = _candidates(engine, summary.run_id)
    assert [(c["version"], c["state"]) for c in rows] == [(1, "REJECTED"), (2, "PASSED")]
    assert summary.candidate_id == rows[1]["id"]
    assert rows[1]["report"]["candidateVersion"] == 2 and rows[1]["report"]["attempt"] == 2
    assert rows[1]["writer_output"]["attempt"] == 2
    run = _run(engine, summary.run_id)
    assert (run["state"], run["attempt"]) == ("shadow_ready", 2)
    # The rejected draft's report carries the structured revision list …
    [first] = summary.attempts[:1]
    assert [r["kind"] for r in first.revision_list] == ["hard_constraint_missing"]
    assert "H1" in first.revision_list[0]["problem"] and first.revision_list[0]["fix"]
    # … and the rewrite call got the same frozen context plus that list, without tools.
    calls = _writer_calls(engine, summary.run_id)
    assert len(calls) == 2
    assert "revisionRequest" not in calls[0]["task_input"]
    request = calls[1]["task_input"]["revisionRequest"]
    assert request["attempt"] == 2 and request["items"][0]["kind"] == "hard_constraint_missing"
    same = {k: v for k, v in calls[1]["task_input"].items() if k != "revisionRequest"}
    assert same == calls[0]["task_input"]
    assert [c["request_params"]["toolsOffered"] for c in calls] == [[], []]
    nodes = [(n, s, a) for n, s, a, _ in _events(engine, summary.run_id) if s != "started"]
    assert ("rewriting", "ok", 2) in nodes and ("detecting", "failed", 1) in nodes
    assert not any(s == "not_built" for _, s, _ in nodes)


def test_limit_zero_blocks_at_once(engine, book, scripted):
    calls = _first_calls_broken(scripted, 1)
    summary = write_offline(engine, book, NEXT, max_rewrites=0)
    assert summary.state == "blocked_user_action" and summary.attempt == 1
    assert "上限 0 轮" in summary.reason and calls["n"] == 1
    assert [c["state"] for c in _candidates(engine, summary.run_id)] == ["REJECTED"]
    assert [f["kind"] for f in summary.findings] == ["hard_constraint_missing"]


def test_limit_exhausted_blocks_with_the_last_findings(engine, book, scripted):
    calls = _first_calls_broken(scripted, 99)
    summary = write_offline(engine, book, NEXT)  # default policy: 2 rewrites
    assert summary.state == "blocked_user_action" and calls["n"] == 3
    assert summary.attempt == 3 and "自动返修 2 轮后" in summary.reason
    rows = _candidates(engine, summary.run_id)
    assert [(c["version"], c["state"]) for c in rows] == [(v, "REJECTED") for v in (1, 2, 3)]
    assert summary.candidate_id == rows[2]["id"]
    assert summary.findings[0]["kind"] == "hard_constraint_missing"
    assert _run(engine, summary.run_id)["attempt"] == 3


def test_policy_limit_comes_from_the_environment(engine, book, scripted, monkeypatch):
    calls = _first_calls_broken(scripted, 99)
    monkeypatch.setenv("MUSE_MAX_REWRITES", "1")
    summary = write_offline(engine, book, NEXT)
    assert (summary.state, calls["n"], summary.max_rewrites) == ("blocked_user_action", 2, 1)


@pytest.mark.parametrize("bad", ["-1", "x", "11"])
def test_bad_policy_values_are_refused(bad):
    with pytest.raises(ConfigError, match="返修"):
        RewritePolicy.resolve(environ={"MUSE_MAX_REWRITES": bad})
    assert RewritePolicy.resolve(3, environ={"MUSE_MAX_REWRITES": "bad"}).max_rewrites == 3


def _late_pass(engine, run_id: str, candidate_id: str) -> bool:
    """A detector verdict for attempt 1 arriving now: 'passed'."""
    with engine.connect() as conn:
        report = conn.execute(
            select(candidates.c.report).where(candidates.c.id == candidate_id)
        ).scalar()
    verdict = Verdict("passed", None, report, (), None)
    with engine.begin() as conn:
        return commit_verdict(
            conn,
            run_id=run_id,
            attempt=1,
            candidate_id=candidate_id,
            verdict=verdict,
            run_state="shadow_ready",
        )


def test_late_result_of_attempt_1_is_ignored_after_attempt_2_started(engine, book, scripted):
    seen = {}

    def edit(draft):
        with engine.connect() as conn:
            run = conn.execute(select(runs.c.id, runs.c.state, runs.c.attempt)).one()
        if run.attempt == 1:
            return _drop_h1(draft)
        # attempt 2 is being written: attempt 1's late "passed" arrives now
        [first] = _candidates(engine, run.id)
        seen["state"], seen["applied"] = run.state, _late_pass(engine, run.id, first["id"])
        return draft

    scripted("writer", "generate").edit(edit)
    summary = write_offline(engine, book, NEXT)
    assert seen == {"state": "rewriting", "applied": False}
    assert (summary.state, summary.attempt) == ("shadow_ready", 2)
    rows = _candidates(engine, summary.run_id)
    assert [c["state"] for c in rows] == ["REJECTED", "PASSED"]
    late = [d for n, s, a, d in _events(engine, summary.run_id) if s == "late_discarded"]
    assert len(late) == 1 and late[0]["resultAttempt"] == 1 and late[0]["runAttempt"] == 2


def test_a_verdict_about_another_candidate_version_moves_nothing(engine):
    from .test_state_machine import insert_candidate, new_work, row, run_in_state

    work_id = new_work(engine)
    run_id = run_in_state(engine, work_id, "detecting")
    with engine.begin() as conn:
        cand_id = insert_candidate(conn, run_id, work_id, state="DRAFT", sha256="a" * 64)
    with engine.begin() as conn:
        conn.execute(
            candidates.update()
            .where(candidates.c.id == cand_id)
            .values(state="CHECKING", revision=1)
        )
    report = {"candidateVersion": 2, "candidateSha256": "a" * 64}
    for wrong in (report, {**report, "candidateVersion": 1, "candidateSha256": "b" * 64}):
        with pytest.raises(StaleTransition, match="另一版候选"), engine.begin() as conn:
            commit_verdict(
                conn,
                run_id=run_id,
                attempt=1,
                candidate_id=cand_id,
                verdict=Verdict("passed", None, wrong, (), None),
                run_state="shadow_ready",
            )
    assert row(engine, runs, run_id)["state"] == "detecting"
    assert row(engine, candidates, cand_id)["state"] == "CHECKING"
