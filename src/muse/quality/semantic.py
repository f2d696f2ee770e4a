"""The semantic detector (spec 003 detector; spec 000 §9; spec 001 §5).

One ``detector/check`` call per candidate, then Muse's own verdict from what it can verify:

1. The input holds the candidate (body, version, candidateSha256), the fine outline's hard
   constraints, the fact and prose evidence (ids and texts), the claim ledger, the coverage
   states and the list of checks. No run identity, no oracle, no other candidate or judge
   result: the detector's input guard (``agents/guards.py``) would refuse them, and the
   ``dispatch`` run id travels beside the input, never in it.
2. The report is verified (``anti_forgery``): a forged quote or an evidence reference outside
   the context and the run's dependency list rejects the whole report — status ``forged``,
   failure reason ``detector_forgery``; the caller ends the run ``failed``.
3. Only locatable, verifiable problems block: a ``blocking`` issue with a verbatim quote and at
   least one verified evidence reference becomes a ``high`` finding. A blocking issue without
   either cannot be checked, so it becomes an evidence gap. Style, tension and prose remarks are
   advice whatever severity the model gave them (``low``); other advisory issues are ``medium``.
4. Missing evidence is a gap, never a pass: a model gap, an unverifiable blocking issue or a
   "rejected"/"needs_evidence" verdict without a verifiable problem gives ``needs_evidence``.
5. Only the production chain settles a gap (``flow.evidence_gaps``, spec 001 §6): when a search
   of the as-of view finds nothing for any gap, the gaps become new-setting candidates for the
   author and :func:`settle_as_new_settings` marks the report ``passed`` — with the gaps, the
   model's verdict and the candidates kept in it, so nothing about the gap is hidden.

The report is bound to the candidate by Muse: ``candidateSha256`` is computed from the body here,
not taken from the model, together with the candidate version and the context hash.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal

from sqlalchemy import Engine

from muse.agents import DetectorReport, ToolSet, dependency_list, dispatch
from muse.context import WriterContext, WriterOutput
from muse.core.canonical import sha256_hex
from muse.core.errors import ContractViolation
from muse.core.text import count_han
from muse.planning import FineOutline
from muse.quality.anti_forgery import (
    EVIDENCE_REF_FORMAT,
    ForgeryProblem,
    LocatedIssue,
    context_evidence_ids,
    dependency_refs,
    verify_report,
)
from muse.quality.entities import EntityLexicon
from muse.quality.hard_events import detector_marks, event_checks
from muse.quality.mechanical import Finding

SEMANTIC_REPORT_VERSION = "semantic-report-v1"
Status = Literal["passed", "rejected", "needs_evidence", "forged"]

# spec 003 (detector): what the semantic check covers, in the detector's words.
CHECKS: tuple[tuple[str, str], ...] = (
    ("hard_events", "细纲硬事件是否都写到，没有删除或反转"),
    ("result_direction", "本章结果方向是否与细纲一致"),
    ("required_entities", "必须出场的实体是否真实出场（不是只被提到）"),
    ("foreshadowing", "伏笔动作（埋/推/收）是否按细纲执行，没有提前回收"),
    ("chapter_end_hook", "章末钩子是否落在章末"),
    ("frozen_facts", "人物身份、关系、状态、所在地点是否与冻结的正典事实一致"),
    ("knowledge_scope", "角色有没有说出或利用他此时不可能知道的信息"),
    ("behaviour_logic", "人物行为是否符合其性格、动机与处境"),
    ("ability_costs", "能力的使用是否符合设定，该付的代价有没有付"),
    ("place_rules", "是否违背地点与世界规则"),
    ("item_limits", "物品是否出现在不该出现的地方、被超出其边界地使用"),
    ("future_leak", "是否出现只有冻结点之后才会发生或揭晓的内容"),
)
RULES = (
    "每个问题的 quote 必须从 candidate.body 中逐字、连续复制；系统会逐字核对，对不上则整份报告作废。",
    "只有能指出原句、能拿证据证明的硬错误才是 blocking；文风、张力、文笔只能是 advisory（category 用 style_advice）。",
    "每个 blocking 问题的 evidence 至少列出一条证据。" + EVIDENCE_REF_FORMAT,
    "证据不足时不要猜：写进 evidenceGaps，说明缺什么材料；不得把证据不足判为通过。",
)
_ADVICE = "style_advice"


@dataclass(frozen=True)
class SemanticFinding(Finding):
    """A :class:`~muse.quality.mechanical.Finding` with the detector's category and evidence."""

    category: str = ""
    evidence: tuple[str, ...] = ()


@dataclass(frozen=True)
class EvidenceGap:
    subject: str
    needed: str
    origin: str  # model | unverifiable_blocking | verdict_without_issue

    def to_dict(self) -> dict[str, str]:
        return {"subject": self.subject, "needed": self.needed, "origin": self.origin}


@dataclass(frozen=True)
class SemanticReport:
    status: Status
    candidate_sha256: str  # computed by Muse from the body
    candidate_version: int
    context_snapshot_sha256: str
    quality_policy_version: str
    receipt_id: str
    model_returned: str
    model_verdict: str
    summary: str
    findings: tuple[SemanticFinding, ...] = ()
    gaps: tuple[EvidenceGap, ...] = ()
    problems: tuple[ForgeryProblem, ...] = ()
    dependency_reads: int = 0
    failure_reason: str | None = field(default=None)  # detector_forgery when status is forged
    # spec 001 §6: "new_setting_candidates" when every gap was searched in the as-of view with
    # no hit and became a new-setting candidate for the author; None: no gap was settled.
    gap_resolution: str | None = None
    new_setting_candidates: tuple[dict[str, Any], ...] = ()

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    @property
    def blocking(self) -> tuple[SemanticFinding, ...]:
        return tuple(f for f in self.findings if f.severity == "high")

    def wire(self) -> dict[str, Any]:
        """The stored form (``candidates.report["semantic"]``)."""
        return {
            "schemaVersion": SEMANTIC_REPORT_VERSION,
            "status": self.status,
            "failureReason": self.failure_reason,
            "candidateSha256": self.candidate_sha256,
            "candidateVersion": self.candidate_version,
            "contextSnapshotSha256": self.context_snapshot_sha256,
            "qualityPolicyVersion": self.quality_policy_version,
            "receiptId": self.receipt_id,
            "modelReturned": self.model_returned,
            "modelVerdict": self.model_verdict,
            "summary": self.summary,
            "findings": [{**f.to_dict(), "evidence": list(f.evidence)} for f in self.findings],
            "gaps": [g.to_dict() for g in self.gaps],
            "problems": [p.to_dict() for p in self.problems],
            "dependencyReads": self.dependency_reads,
            "gapResolution": self.gap_resolution,
            "newSettingCandidates": list(self.new_setting_candidates),
        }


# Gaps that stand for a rejection Muse could not verify (a blocking issue without a verbatim
# quote or without evidence; a "rejected" verdict without any issue): never a new setting, so
# never a pass. Only the detector's own "I lack material about X" gaps may be settled.
UNSETTLEABLE_ORIGINS = frozenset({"unverifiable_blocking", "verdict_without_issue"})


def unsettleable(report: SemanticReport) -> tuple[EvidenceGap, ...]:
    return tuple(g for g in report.gaps if g.origin in UNSETTLEABLE_ORIGINS)


def settle_as_new_settings(
    report: SemanticReport, candidates: list[dict[str, Any]]
) -> SemanticReport:
    """The report once every evidence gap was searched for in the as-of view and nothing was
    found (spec 001 §6): the gaps become new-setting candidates for the author, the candidate
    goes to the author, the report says ``passed`` and keeps what settled it."""
    if report.status != "needs_evidence" or report.blocking or unsettleable(report):
        raise ContractViolation(
            f"只有证据不足（needs_evidence）的报告可以转为新设定候选，而不是 {report.status}。"
        )
    if len(candidates) != len(report.gaps):
        raise ContractViolation("每个证据缺口都必须有一个新设定候选。")
    return replace(
        report,
        status="passed",
        gap_resolution="new_setting_candidates",
        new_setting_candidates=tuple(candidates),
    )


def detector_input(
    context: WriterContext, output: WriterOutput, known: EntityLexicon | None = None
) -> dict[str, Any]:
    """The frozen task input of one detector call."""
    body = output.candidate_body
    outline = FineOutline.model_validate(context.fine_outline)
    task_input: dict[str, Any] = {
        "asOf": context.as_of,
        "targetChapter": context.target_chapter,
        "candidate": {
            "candidateVersion": output.candidate_version,
            "candidateSha256": sha256_hex(body),
            "hanCount": count_han(body),
            "body": body,
        },
        "fineOutline": {
            "title": outline.title,
            "hardConstraints": outline.hard_constraints.model_dump(mode="json"),
            "adjustableBeats": [b.model_dump(mode="json") for b in outline.adjustable_beats],
            "newCanonicalFacts": [f.model_dump(mode="json") for f in outline.new_canonical_facts],
        },
        "factEvidence": [
            {"id": f.id, "sourceType": f.source_type, "text": f.text} for f in context.fact_evidence
        ],
        "proseEvidence": [
            {"id": p.id, "chapter": p.chapter, "purpose": p.purpose, "excerpt": p.excerpt}
            for p in context.prose_evidence
        ],
        "evidenceCoverage": [c.wire() for c in context.evidence_coverage],
        "claimLedger": [
            {
                "claimId": c.claim_id,
                "factType": c.fact_type,
                "text": body[c.start_code_point : c.end_code_point],
                "factEvidenceId": c.fact_evidence_id,
                "proseEvidenceId": c.prose_evidence_id,
                "coverageState": c.coverage_state,
            }
            for c in output.claim_ledger
        ],
        "newSettingDeclarations": [d.wire() for d in output.new_setting_declarations],
        "narrativeState": context.narrative_state.wire(),
        "checks": [{"id": check_id, "question": text} for check_id, text in CHECKS],
        "rules": list(RULES),
    }
    marks = detector_marks(event_checks(context, output, known))
    if marks:  # spec 000 §9: what the mechanical gate could not decide is the detector's to judge
        task_input["mechanicalUndecided"] = marks
    return task_input


def run_semantic_detector(
    engine: Engine,
    *,
    context: WriterContext,
    output: WriterOutput,
    run_id: str,
    provider: str,
    model: str,
    tools: ToolSet | None = None,
    timeout_s: float | None = None,
    known: EntityLexicon | None = None,
) -> SemanticReport:
    """Dispatch detector/check for ``output`` and return Muse's verified report.

    ``known``: the work's names as of the freeze, the same the mechanical gate used, so the
    hard events it left undecided are the ones shown here.

    Model-call failures (``AgentCallError``: refused input, timeout, invalid output…) propagate:
    the caller ends the run ``failed`` with the error. An output that is not from ``context`` and
    ``run_id`` raises ``ContractViolation`` before any call. A report that fails anti-forgery comes
    back with status ``forged`` and ``failure_reason == "detector_forgery"``.
    """
    _require_pair(context, output, run_id)
    result = dispatch(
        engine,
        role="detector",
        task="check",
        provider=provider,
        model=model,
        task_input=detector_input(context, output, known),
        output_model=DetectorReport,
        run_id=run_id,
        tools=tools,
        timeout_s=timeout_s,
    )
    reads = dependency_list(engine, run_id)
    return assess(
        result.output,  # type: ignore[arg-type]
        context=context,
        output=output,
        receipt_id=result.receipt_id,
        model_returned=result.model_returned,
        dependency=dependency_refs(reads),
        dependency_reads=len(reads),
    )


def _require_pair(context: WriterContext, output: WriterOutput, run_id: str) -> None:
    """The output must come from this context and this run: a mismatched pair is a caller bug
    that must not produce a report bound to the wrong candidate."""
    if output.context_snapshot_sha256 != context.context_snapshot.sha256:
        raise ContractViolation("候选的 contextSnapshotSha256 与给定的冻结上下文不一致。")
    if output.run_id != run_id or context.run_id != run_id:
        raise ContractViolation(f"候选与上下文不属于运行 {run_id}。")


def assess(
    report: DetectorReport,
    *,
    context: WriterContext,
    output: WriterOutput,
    receipt_id: str,
    model_returned: str,
    dependency: frozenset[str],
    dependency_reads: int = 0,
) -> SemanticReport:
    """Verify ``report`` and derive the status Muse trusts (no model call)."""
    body = output.candidate_body
    base = SemanticReport(
        status="forged",  # replaced below; nothing is trusted before verification
        candidate_sha256=sha256_hex(body),
        candidate_version=output.candidate_version,
        context_snapshot_sha256=output.context_snapshot_sha256,
        quality_policy_version=output.quality_policy_version,
        receipt_id=receipt_id,
        model_returned=model_returned,
        model_verdict=report.verdict,
        summary=report.summary,
        dependency_reads=dependency_reads,
    )
    checked = verify_report(
        report,
        body=body,
        candidate_sha256=output.candidate_sha256,
        context_ids=context_evidence_ids(context),
        dependency=dependency,
    )
    if not checked.ok:
        return replace(base, problems=checked.problems, failure_reason="detector_forgery")
    findings, gaps = _classify(checked.issues)
    gaps += [EvidenceGap(g.subject, g.needed, "model") for g in report.evidenceGaps]
    verified_problem = gaps or any(f.severity == "high" for f in findings)
    if not verified_problem and report.verdict in ("rejected", "needs_evidence"):
        gaps.append(
            EvidenceGap(
                "检测结论",
                f"检测员判定为 {report.verdict}，但没有给出可定位、可核对的阻断问题或证据缺口。",
                "verdict_without_issue",
            )
        )
    return replace(base, status=_status(findings, gaps), findings=tuple(findings), gaps=tuple(gaps))


def _status(findings: list[SemanticFinding], gaps: list[EvidenceGap]) -> Status:
    if any(f.severity == "high" for f in findings):
        return "rejected"
    return "needs_evidence" if gaps else "passed"


def _classify(issues: tuple[LocatedIssue, ...]) -> tuple[list[SemanticFinding], list[EvidenceGap]]:
    findings: list[SemanticFinding] = []
    gaps: list[EvidenceGap] = []
    for located in issues:
        issue = located.issue
        if issue.severity == "blocking" and issue.category != _ADVICE:
            if not (located.located and located.evidence):
                gaps.append(_unverifiable(located))
                continue
            severity = "high"
        else:
            severity = "low" if issue.category == _ADVICE else "medium"
        message = issue.explanation
        if located.evidence:
            message += f"（证据：{'、'.join(located.evidence)}）"
        findings.append(
            SemanticFinding(
                kind=f"semantic_{issue.category}",
                severity=severity,
                message=message,
                start=located.start,
                end=located.end,
                quote=located.quote or None,
                category=issue.category,
                evidence=located.evidence,
            )
        )
    return findings, gaps


def _unverifiable(located: LocatedIssue) -> EvidenceGap:
    missing = "可定位的逐字引文" if not located.located else "可核对的证据"
    return EvidenceGap(
        subject=f"{located.issue.category}：{located.issue.explanation}",
        needed=f"该阻断问题缺少{missing}，无法核实；需要补充后再判断。",
        origin="unverifiable_blocking",
    )
