"""The semantic detector end to end through dispatch, with the offline provider and scripted
detector replies: what blocks, what is advice, what is a gap, and what is a forgery."""

from __future__ import annotations

import pytest

from muse.agents.contracts import load_roles
from muse.agents.guards import forbidden_input_findings
from muse.agents.receipts import get_receipt
from muse.agents.tools import ToolSet
from muse.core.canonical import sha256_hex
from muse.quality.anti_forgery import verify_binding
from muse.quality.mechanical import Finding
from muse.quality.semantic import CHECKS, detector_input, run_semantic_detector
from tests.agents.minimal_reader import MinimalAsOfReader
from tests.support.marked_book import NEXT


def _detect(engine, checked, tools=None, output=None):
    return run_semantic_detector(
        engine,
        context=checked.context,
        output=output or checked.output,
        run_id=checked.run_id,
        provider="offline",
        model="offline-1",
        tools=tools,
    )


def _report(verdict="passed", issues=(), gaps=()):
    return {
        "verdict": verdict,
        "issues": list(issues),
        "evidenceGaps": list(gaps),
        "summary": "脚本",
    }


def _issue(quote, *, category="fact_conflict", severity="blocking", evidence=("fe-outline-H1",)):
    return {
        "category": category,
        "severity": severity,
        "quote": quote,
        "explanation": "脚本问题",
        "evidence": list(evidence),
    }


def _passage(body: str) -> str:
    """A real sentence of the candidate body, copied verbatim."""
    return body.split("\n\n")[1].split("。")[0] + "。"


def test_offline_detector_passes_a_clean_candidate_with_a_bound_report(engine, checked):
    report = _detect(engine, checked)
    assert report.status == "passed" and report.passed
    assert report.findings == () and report.gaps == () and report.problems == ()
    assert report.candidate_sha256 == sha256_hex(checked.output.candidate_body)
    assert report.candidate_version == 1
    assert report.context_snapshot_sha256 == checked.context.context_snapshot.sha256
    assert get_receipt(engine, report.receipt_id).status == "ok"
    assert verify_binding(report.wire(), body=checked.output.candidate_body, version=1)


def test_detector_input_carries_the_candidate_outline_evidence_and_checks(checked):
    task_input = detector_input(checked.context, checked.output)
    candidate = task_input["candidate"]
    assert candidate["body"] == checked.output.candidate_body
    assert candidate["candidateSha256"] == checked.output.candidate_sha256
    assert candidate["candidateVersion"] == 1
    hard = task_input["fineOutline"]["hardConstraints"]
    assert hard["hard_events"][0]["id"] == "H1" and hard["chapter_end_hook"]["id"] == "K1"
    assert {f["id"] for f in task_input["factEvidence"]} == {
        f.id for f in checked.context.fact_evidence
    }
    assert all(f["text"] for f in task_input["factEvidence"])
    assert [c["id"] for c in task_input["checks"]] == [c for c, _ in CHECKS]
    assert {"hard_events", "knowledge_scope", "ability_costs", "item_limits"} <= {
        c["id"] for c in task_input["checks"]
    }
    # The detector's input guard has nothing to refuse, and no run identity travels in it.
    guards = load_roles().role("detector").forbiddenInput
    assert forbidden_input_findings(task_input, guards) == []
    assert checked.run_id not in str(task_input)


def test_a_forged_quote_rejects_the_report(engine, checked, scripted):
    body = checked.output.candidate_body
    real = _passage(body)
    forged = real[:-2] + "猛" + real[-1]  # one character changed
    assert forged not in body
    scripted("detector", "check").reply(
        lambda _: _report("rejected", [_issue(real), _issue(forged)])
    )
    report = _detect(engine, checked)
    assert report.status == "forged" and report.failure_reason == "detector_forgery"
    assert [(p.code, p.issue_index) for p in report.problems] == [("quote_not_in_candidate", 1)]
    assert report.findings == () and not report.passed  # nothing of a forged report is trusted


def test_evidence_outside_the_dependency_list_rejects_the_report(engine, checked, scripted):
    quote = _passage(checked.output.candidate_body)
    scripted("detector", "check").reply(
        lambda _: _report("rejected", [_issue(quote, evidence=["read_chapter:7"])])
    )
    report = _detect(engine, checked)
    assert report.status == "forged"
    assert [p.code for p in report.problems] == ["evidence_not_in_dependencies"]
    assert "read_chapter:7" in report.problems[0].message

    # Once the run has really read chapter 7, the same reference is a verified one.
    tools = ToolSet(MinimalAsOfReader(engine, checked.work_id, as_of=NEXT - 1))
    tools.call("read_chapter", {"number": 7}, engine=engine, run_id=checked.run_id)
    report = _detect(engine, checked, tools=tools)
    assert report.status == "rejected" and report.dependency_reads == 1
    assert report.blocking[0].evidence == ("read_chapter:7",)


def test_a_read_of_another_run_is_not_evidence(engine, checked, scripted):
    tools = ToolSet(MinimalAsOfReader(engine, checked.work_id, as_of=NEXT - 1))
    tools.call("read_chapter", {"number": 7}, engine=engine, run_id="run_someone_else")
    quote = _passage(checked.output.candidate_body)
    scripted("detector", "check").reply(
        lambda _: _report("rejected", [_issue(quote, evidence=["read_chapter:7"])])
    )
    assert _detect(engine, checked).status == "forged"


def test_a_blocking_issue_with_a_real_quote_blocks(engine, checked, scripted):
    body = checked.output.candidate_body
    quote = _passage(body)
    # The scripted detector quotes from the body it was given, as a real one would.
    scripted("detector", "check").reply(
        lambda ti: _report("rejected", [_issue(_passage(ti["candidate"]["body"]))])
    )
    report = _detect(engine, checked)
    assert report.status == "rejected"
    [finding] = report.blocking
    assert isinstance(finding, Finding)
    assert (finding.kind, finding.severity, finding.quote) == (
        "semantic_fact_conflict",
        "high",
        quote,
    )
    assert body[finding.start : finding.end] == quote
    assert finding.evidence == ("fe-outline-H1",)
    assert report.wire()["findings"][0]["start"] == finding.start


def test_style_advice_never_blocks(engine, checked, scripted):
    quote = _passage(checked.output.candidate_body)
    scripted("detector", "check").reply(
        lambda _: _report(
            "passed",
            [
                _issue(quote, category="style_advice", severity="blocking", evidence=[]),
                _issue(quote, category="knowledge_scope", severity="advisory", evidence=[]),
            ],
        )
    )
    report = _detect(engine, checked)
    assert report.status == "passed" and report.blocking == ()
    assert [(f.kind, f.severity) for f in report.findings] == [
        ("semantic_style_advice", "low"),
        ("semantic_knowledge_scope", "medium"),
    ]


def test_an_evidence_gap_is_a_gap_not_a_pass(engine, checked, scripted):
    gap = {"subject": "玉佩的来历", "needed": "玉佩首次出现的章节原文"}
    scripted("detector", "check").reply(lambda _: _report("needs_evidence", gaps=[gap]))
    report = _detect(engine, checked)
    assert report.status == "needs_evidence" and not report.passed
    assert [(g.subject, g.origin) for g in report.gaps] == [("玉佩的来历", "model")]
    # A "passed" verdict that still lists a gap is not a pass either.
    scripted("detector", "check").reply(lambda _: _report("passed", gaps=[gap]))
    assert _detect(engine, checked).status == "needs_evidence"


@pytest.mark.parametrize(
    ("quote_of", "evidence"),
    [("", ["fe-outline-H1"]), ("passage", [])],
    ids=["no-quote", "no-evidence"],
)
def test_an_unverifiable_blocking_issue_becomes_a_gap(
    engine, checked, scripted, quote_of, evidence
):
    quote = _passage(checked.output.candidate_body) if quote_of else ""
    scripted("detector", "check").reply(
        lambda _: _report("rejected", [_issue(quote, evidence=evidence)])
    )
    report = _detect(engine, checked)
    assert report.status == "needs_evidence" and report.blocking == ()
    assert [g.origin for g in report.gaps] == ["unverifiable_blocking"]


def test_a_rejection_without_any_problem_is_not_a_pass(engine, checked, scripted):
    scripted("detector", "check").reply(lambda _: _report("rejected"))
    report = _detect(engine, checked)
    assert report.status == "needs_evidence"
    assert [g.origin for g in report.gaps] == ["verdict_without_issue"]


def test_a_body_that_does_not_match_its_hash_is_refused(engine, checked):
    tampered = checked.output.model_copy(update={"candidate_sha256": "0" * 64})
    report = _detect(engine, checked, output=tampered)
    assert report.status == "forged"
    assert [p.code for p in report.problems] == ["candidate_hash_mismatch"]
    assert report.candidate_sha256 == sha256_hex(checked.output.candidate_body)  # Muse's own


def test_the_binding_does_not_follow_an_edited_body(engine, checked):
    wire = _detect(engine, checked).wire()
    body = checked.output.candidate_body
    assert verify_binding(wire, body=body, version=1)
    assert not verify_binding(wire, body=body + "多写了一句。", version=1)
    assert not verify_binding(wire, body=body, version=2)


def test_an_output_from_another_context_is_refused_before_any_call(engine, checked):
    from muse.core.errors import ContractViolation

    other = checked.output.model_copy(update={"context_snapshot_sha256": "e" * 64})
    with pytest.raises(ContractViolation, match="contextSnapshotSha256"):
        _detect(engine, checked, output=other)
    with pytest.raises(ContractViolation, match="不属于运行"):
        run_semantic_detector(
            engine,
            context=checked.context,
            output=checked.output,
            run_id="run_other",
            provider="offline",
            model="offline-1",
        )
