"""The verdict policy (``quality.verdict``), table-driven: check results in, verdict out.

No detector call and no search here: each case hands the pure functions the results flow would
have gathered (mechanical findings, a verified semantic report, gap resolutions) and checks the
outcome, the reason, where the run goes, the revision list and the stored report. The context
and output are the offline writer's real ones (``checked``), because the report is bound to them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from muse.quality.findings import Finding
from muse.quality.semantic import EvidenceGap, SemanticFinding, SemanticReport
from muse.quality.verdict import (
    DEFAULT_FIX,
    FIXES,
    SEMANTIC_FIX,
    GapResolution,
    Verdict,
    detector_failed,
    gap_verdict,
    mechanical_verdict,
    overall,
    semantic_verdict,
)

LENGTH = Finding("length_band", "high", "篇幅不足接受区间。")
ODD = Finding("invented_kind", "high", "一个没有专门修法的问题。", 3, 7, "林远拔剑")
ADVICE = Finding("ai_flavor", "low", "“不禁”出现 2 次。")
CONTRADICTION = SemanticFinding(
    "semantic_fact_conflict", "high", "林远此时不在山门。", 0, 4, "却说林远", None, "fact_conflict",
    ("fe-outline-H1",),
)  # fmt: skip
MODEL_GAP = EvidenceGap("玉佩", "玉佩的来历", "model")
UNVERIFIABLE = EvidenceGap("", "阻断问题没有可核对的证据", "unverifiable_blocking")


def semantic(
    status: str,
    findings: tuple[SemanticFinding, ...] = (),
    gaps: tuple[EvidenceGap, ...] = (),
) -> SemanticReport:
    return SemanticReport(
        status=status,  # type: ignore[arg-type]
        candidate_sha256="ab" * 32,
        candidate_version=1,
        context_snapshot_sha256="cd" * 32,
        quality_policy_version="writer-production-v1",
        receipt_id="mc_1",
        model_returned="offline-1",
        model_verdict=status,
        summary="",
        findings=findings,
        gaps=gaps,
    )


def gap(index: int, outcome: str, evidence: int = 0, note: str = "") -> GapResolution:
    setting = (
        {"name": "玉佩", "kind": "other", "statement": "x"} if outcome == "new_setting" else None
    )
    found = tuple({"id": f"fe-gap-{index}-{i}"} for i in range(evidence))
    return GapResolution(index, MODEL_GAP, outcome, found, setting, note or f"第{index}个缺口")


@dataclass(frozen=True)
class Case:
    name: str
    findings: tuple[Finding, ...] = ()
    report: SemanticReport | None = None  # None: the mechanical step decides
    gaps: tuple[GapResolution, ...] | None = None  # None: no search ran
    error: str | None = None  # the detector call failed
    outcome: str | None = None  # None: the step hands on to the next one
    reason: str | None = None  # a fragment of the reason
    run_state: str | None = None  # with may_rewrite=True
    fixes: tuple[str, ...] = ()
    semantic_status: str | None = None  # as stored in the report
    stored_gaps: int = 0
    extra: dict[str, object] = field(default_factory=dict)


CASES = [
    Case("clean gate hands on", findings=(ADVICE,)),
    Case(
        "gate blocks",
        findings=(LENGTH, ADVICE, ODD),
        outcome="rejected",
        reason="机械门发现 2 个阻断问题。",
        run_state="rewriting",
        fixes=(FIXES["length_band"], DEFAULT_FIX),
        semantic_status="skipped",
    ),
    Case(
        "detector call fails",
        error="连接超时",
        outcome="detector_failed",
        reason="语义检测员调用失败：连接超时",
        run_state="failed",
        semantic_status="failed",
    ),
    Case(
        "forged report",
        report=semantic("forged"),
        outcome="forged",
        reason="detector_forgery",
        run_state="failed",
        semantic_status="forged",
    ),
    Case(
        "verified contradiction",
        findings=(ADVICE,),
        report=semantic("rejected", (CONTRADICTION,)),
        outcome="rejected",
        reason="语义检测发现 1 个阻断问题。",
        run_state="rewriting",
        fixes=(SEMANTIC_FIX,),
        semantic_status="rejected",
    ),
    Case(
        "detector passes",
        report=semantic("passed"),
        outcome="passed",
        run_state="shadow_ready",
        semantic_status="passed",
    ),
    Case("needs evidence hands on", report=semantic("needs_evidence", gaps=(MODEL_GAP,))),
    Case(
        "nothing anywhere: new settings",
        report=semantic("needs_evidence", gaps=(MODEL_GAP, MODEL_GAP)),
        gaps=(gap(1, "new_setting"), gap(2, "new_setting")),
        outcome="passed",
        run_state="shadow_ready",
        semantic_status="passed",
        stored_gaps=2,
        extra={"gapResolution": "new_setting_candidates"},
    ),
    Case(
        "an unverifiable rejection is never a pass",
        report=semantic("needs_evidence", gaps=(MODEL_GAP, UNVERIFIABLE)),
        gaps=(gap(1, "new_setting"), gap(2, "new_setting")),
        outcome="authorization_required",
        reason="阻断问题没有可核对的证据），不能视为通过。",
        run_state="authorization_required",
        semantic_status="needs_evidence",
        stored_gaps=2,
    ),
    Case(
        "canon in conflict fails closed, naming only the conflict",
        report=semantic("needs_evidence", gaps=(MODEL_GAP, MODEL_GAP)),
        gaps=(gap(1, "found", 2, "找到了"), gap(2, "conflict", note="有冲突")),
        outcome="canon_conflict",
        reason="失败关闭。有冲突",
        run_state="blocked_user_action",
        semantic_status="needs_evidence",
        stored_gaps=2,
    ),
    Case(
        "material found: the author decides",
        report=semantic("needs_evidence", gaps=(MODEL_GAP, MODEL_GAP)),
        gaps=(gap(1, "found", 2), gap(2, "new_setting")),
        outcome="authorization_required",
        reason="找到 2 处相关材料",
        run_state="authorization_required",
        semantic_status="needs_evidence",
        stored_gaps=2,
    ),
    Case(
        "nothing to search: the author decides",
        report=semantic("needs_evidence"),
        gaps=(),
        outcome="authorization_required",
        reason="找到 0 处相关材料",
        run_state="authorization_required",
        semantic_status="needs_evidence",
    ),
]


def decide(case: Case, context, output) -> Verdict | None:
    """The step the case stops at, as ``flow.checking`` calls them."""
    if case.report is None and case.error is None:
        return mechanical_verdict(context, output, case.findings)
    if case.error is not None:
        return detector_failed(context, output, case.findings, case.error)
    assert case.report is not None
    if case.gaps is None:
        return semantic_verdict(context, output, case.findings, case.report)
    return gap_verdict(context, output, case.findings, case.report, case.gaps)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_the_verdict_table(checked, case: Case) -> None:
    verdict = decide(case, checked.context, checked.output)
    if case.outcome is None:
        assert verdict is None
        return
    assert verdict is not None and verdict.outcome == case.outcome
    assert verdict.reason is None if case.reason is None else case.reason in verdict.reason
    assert verdict.run_state(may_rewrite=True) == case.run_state
    assert tuple(item.fix for item in verdict.revision_list) == case.fixes
    assert verdict.candidate_state == ("PASSED" if case.outcome == "passed" else "REJECTED")
    report = verdict.report
    assert report["candidateSha256"] == checked.output.candidate_sha256
    assert report["mechanical"]["findings"] == [f.to_dict() for f in case.findings]
    assert report["semantic"]["status"] == case.semantic_status
    assert len(report.get("evidenceGaps", [])) == case.stored_gaps
    for key, value in case.extra.items():
        assert report["semantic"][key] == value
    assert verdict.timings_ms == {}  # the orchestration adds its timings


def test_the_revision_list_points_at_the_text() -> None:
    from muse.quality.verdict import revisions

    mechanical, contradiction = revisions([ODD, CONTRADICTION])
    assert (mechanical.source, mechanical.quote, mechanical.start, mechanical.end) == (
        "mechanical",
        "林远拔剑",
        3,
        7,
    )
    assert (contradiction.source, contradiction.evidence) == ("semantic", ("fe-outline-H1",))
    assert contradiction.to_dict()["evidence"] == ["fe-outline-H1"]


@pytest.mark.parametrize(
    ("outcomes", "worst"),
    [
        ((), "undetermined"),
        (("new_setting", "new_setting"), "new_setting"),
        (("new_setting", "found"), "found"),
        (("undetermined", "new_setting"), "undetermined"),
        (("found", "conflict", "undetermined"), "conflict"),
    ],
)
def test_the_worst_gap_decides(outcomes: tuple[str, ...], worst: str) -> None:
    assert overall([gap(i, o) for i, o in enumerate(outcomes, start=1)]) == worst


@pytest.mark.parametrize(
    ("outcome", "may_rewrite", "state"),
    [
        ("rejected", True, "rewriting"),
        ("rejected", False, "blocked_user_action"),
        ("canon_conflict", True, "blocked_user_action"),
    ],
)
def test_where_a_rejection_sends_the_run(outcome: str, may_rewrite: bool, state: str) -> None:
    verdict = Verdict(outcome, "x", {}, (), None)  # type: ignore[arg-type]
    assert verdict.run_state(may_rewrite=may_rewrite) == state
