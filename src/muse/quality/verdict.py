"""The verdict on a candidate: what its check results are worth (spec 000 §9, spec 001 §5–§6).

Pure policy, no database and no model call: flow (``flow.checking``) runs the mechanical gate,
the semantic detector and the as-of search for evidence gaps, and hands each result here, step
by step, until one of these functions returns a :class:`Verdict`:

1. :func:`mechanical_verdict` — any ``high`` finding of the mechanical gate rejects (the
   detector is skipped); ``None``: run the detector.
2. :func:`detector_failed` — the detector call failed: ``detector_failed`` (run ``failed``).
3. :func:`semantic_verdict` — a forged report → ``forged`` (run ``failed``); verified blocking
   issues → ``rejected``; a pass → ``passed``; ``None``: the detector needs evidence, search the
   as-of view for every gap.
4. :func:`gap_verdict` — the worst gap outcome decides: canon in conflict → ``canon_conflict``
   (fail closed); material found or nothing to search → ``authorization_required``; nothing
   anywhere → new-setting candidates and ``passed`` — except when a gap stands for an
   unverifiable rejection (a blocking issue with a blank quote or no evidence, a "rejected"
   verdict without an issue): never a pass, always ``authorization_required``.

A ``rejected`` verdict carries the structured revision list (spec 000 §12.6: what to fix, where,
quoting the text) for the rewrite loop; the author sees the same list. The report is what is
stored as ``candidates.report``, bound to the candidate's sha256 and version.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from muse.context import WriterContext, WriterOutput
from muse.quality.ai_flavor import ai_flavor_summary
from muse.quality.entities import EntityLexicon
from muse.quality.findings import Finding
from muse.quality.hard_events import detector_marks, event_checks
from muse.quality.semantic import (
    EvidenceGap,
    SemanticReport,
    settle_as_new_settings,
    unsettleable,
)

Outcome = Literal[
    "passed", "rejected", "forged", "detector_failed", "authorization_required", "canon_conflict"
]

# What the writer should do about each kind of blocking finding (the revision list's "fix").
FIXES: Final[dict[str, str]] = {
    "length_band": "把篇幅调整到接受区间内：写透场景来加长，删去重复与总结来缩短；不砍硬事件。",
    "meta_text": "删去该行（标题、作者的话、章末套话、求票或说明文字），正文只写故事本身。",
    "garbled_text": "删去乱码与控制字符，重新交付完整、可读的正文。",
    "claim_unlocated": "为该硬约束给出正文中逐字存在的引文（quote 必须逐字摘录）。",
    "claim_range": "重新给出该声明的逐字引文。",
    "claim_evidence": "只引用本次冻结上下文中存在的证据 id。",
    "candidate_hash": "重新交付完整正文。",
    "hard_constraint_missing": "把该细纲硬约束写进正文，并在 claims 中逐字引用兑现它的句子。",
    "required_entity_missing": "让该实体真实出场（有动作或对白），不能只被提到或被替换。",
    "hard_event_unverified": "让所声明的句子真正写出这件硬事件（细纲里的人物与关键事物要在场）。",
    "required_scene_missing": "把细纲要求的场景写进正文。",
    "repetition": "删去重复的段落与句子，用新的情节推进代替。",
}
SEMANTIC_FIX: Final = "修改引文所在之处，使其与细纲和证据一致；不要改动无关段落。"
DEFAULT_FIX: Final = "修改该处，使其满足细纲硬约束与冻结证据。"

# The worst gap outcome decides the run: conflict > found/undetermined > new_setting.
SEVERITY: Final[dict[str, int]] = {"conflict": 3, "found": 2, "undetermined": 2, "new_setting": 1}


@dataclass(frozen=True)
class RevisionItem:
    """One line of the structured revision list (spec 000 §12.6: 结构化返修单)."""

    kind: str
    source: str  # mechanical | semantic
    problem: str
    fix: str
    quote: str | None = None
    start: int | None = None
    end: int | None = None
    evidence: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "source": self.source,
            "problem": self.problem,
            "fix": self.fix,
            "quote": self.quote,
            "start": self.start,
            "end": self.end,
            "evidence": list(self.evidence),
        }


@dataclass(frozen=True)
class GapResolution:
    """What the as-of search found for one evidence gap (``flow.evidence_gaps`` searches)."""

    index: int
    gap: EvidenceGap
    outcome: str  # found | new_setting | conflict | undetermined
    fact_evidence: tuple[dict[str, Any], ...]
    new_setting: dict[str, Any] | None
    note: str  # Chinese, for the author

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            **self.gap.to_dict(),
            "outcome": self.outcome,
            "factEvidence": list(self.fact_evidence),
            "newSetting": self.new_setting,
            "note": self.note,
        }


def overall(resolutions: Sequence[GapResolution]) -> str:
    """The outcome that decides the run: the most severe one (``new_setting`` when all are)."""
    return max((r.outcome for r in resolutions), key=SEVERITY.__getitem__, default="undetermined")


@dataclass(frozen=True)
class Verdict:
    outcome: Outcome
    reason: str | None  # Chinese; None when passed
    report: dict[str, Any]  # stored as candidates.report, bound to sha256 + version
    findings: tuple[Finding, ...]  # mechanical then semantic
    semantic: SemanticReport | None
    gaps: tuple[GapResolution, ...] = ()
    revision_list: tuple[RevisionItem, ...] = ()
    timings_ms: dict[str, int] = field(default_factory=dict)

    @property
    def candidate_state(self) -> str:
        return "PASSED" if self.outcome == "passed" else "REJECTED"

    @property
    def rewritable(self) -> bool:
        """Only verified, located problems are worth an automatic rewrite."""
        return self.outcome == "rejected"

    @property
    def blocking(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity == "high")

    def run_state(self, *, may_rewrite: bool) -> str:
        """Where the run goes from ``detecting``: ``may_rewrite`` is the rewrite policy's say."""
        if self.outcome == "passed":
            return "shadow_ready"
        if self.outcome == "rejected":
            return "rewriting" if may_rewrite else "blocked_user_action"
        if self.outcome in ("forged", "detector_failed"):
            return "failed"
        if self.outcome == "authorization_required":
            return "authorization_required"
        return "blocked_user_action"  # canon_conflict: fail closed


def mechanical_verdict(
    context: WriterContext,
    output: WriterOutput,
    findings: tuple[Finding, ...],
    *,
    known: EntityLexicon | None = None,
) -> Verdict | None:
    """A rejection when the mechanical gate blocks; None: the semantic detector runs next."""
    blocking = [f for f in findings if f.severity == "high"]
    if not blocking:
        return None
    reason = f"机械门发现 {len(blocking)} 个阻断问题。"
    report = check_report(context, output, findings, None, known=known)
    return Verdict("rejected", reason, report, findings, None, (), revisions(blocking))


def detector_failed(
    context: WriterContext,
    output: WriterOutput,
    findings: tuple[Finding, ...],
    error: str,
    *,
    known: EntityLexicon | None = None,
) -> Verdict:
    """The detector call failed (after its retries): the run fails, naming the error."""
    report = check_report(context, output, findings, None, known=known)
    report["semantic"] = {"status": "failed", "error": error}
    return Verdict("detector_failed", f"语义检测员调用失败：{error}", report, findings, None)


def semantic_verdict(
    context: WriterContext,
    output: WriterOutput,
    findings: tuple[Finding, ...],
    semantic: SemanticReport,
    *,
    known: EntityLexicon | None = None,
) -> Verdict | None:
    """The verified detector report's say; None when it needs evidence (search the gaps)."""
    if semantic.status not in ("forged", "rejected", "passed"):
        return None
    every = findings + semantic.findings
    report = check_report(context, output, findings, semantic, known=known)
    if semantic.status == "forged":
        reason = "detector_forgery：检测报告未通过防造假校验，已拒收。"
        return Verdict("forged", reason, report, every, semantic)
    if semantic.status == "rejected":
        reason = f"语义检测发现 {len(semantic.blocking)} 个阻断问题。"
        return Verdict(
            "rejected", reason, report, every, semantic, (), revisions(semantic.blocking)
        )
    return Verdict("passed", None, report, every, semantic)


def gap_verdict(
    context: WriterContext,
    output: WriterOutput,
    findings: tuple[Finding, ...],
    semantic: SemanticReport,
    gaps: tuple[GapResolution, ...],
    *,
    known: EntityLexicon | None = None,
) -> Verdict:
    """needs_evidence, after the as-of search for every gap (spec 001 §6)."""
    worst = overall(gaps)
    every = findings + semantic.findings
    refused = unsettleable(semantic)
    if worst == "new_setting" and refused:  # an unverifiable rejection is never a pass
        report = check_report(context, output, findings, semantic, gaps, known=known)
        reason = (
            "needs_evidence：检测员判定有阻断问题，但没有给出可定位的逐字引文或可核对的证据"
            f"（{'；'.join(g.needed for g in refused)}），不能视为通过。"
            "继续、补证、重写还是换方向，由作者决定（以新运行继续）。"
        )
        return Verdict("authorization_required", reason, report, every, semantic, gaps)
    if worst == "new_setting":
        settled = settle_as_new_settings(semantic, [g.new_setting or {} for g in gaps])
        report = check_report(context, output, findings, settled, gaps, known=known)
        return Verdict("passed", None, report, every, settled, gaps)
    report = check_report(context, output, findings, semantic, gaps, known=known)
    notes = "；".join(g.note for g in gaps if g.outcome == worst)
    if worst == "conflict":
        reason = f"needs_evidence：证据缺口与正典冲突，失败关闭。{notes}"
        return Verdict("canon_conflict", reason, report, every, semantic, gaps)
    found = sum(len(g.fact_evidence) for g in gaps)
    reason = (
        f"needs_evidence：语义检测缺少证据；在冻结点前找到 {found} 处相关材料，已附入本次运行记录。"
        "继续、补证、重写还是换方向，由作者决定（以新运行继续）。" + notes
    )
    return Verdict("authorization_required", reason, report, every, semantic, gaps)


def check_report(
    context: WriterContext,
    output: WriterOutput,
    findings: tuple[Finding, ...],
    semantic: SemanticReport | None,
    gaps: tuple[GapResolution, ...] = (),
    *,
    known: EntityLexicon | None = None,
) -> dict[str, Any]:
    """The stored check report (``candidates.report``) of one candidate."""
    blocking = any(f.severity == "high" for f in findings)
    report: dict[str, Any] = {
        "candidateSha256": output.candidate_sha256,
        "candidateVersion": output.candidate_version,
        "attempt": output.attempt,
        "qualityPolicyVersion": context.quality_policy_version,
        "mechanical": {
            "status": "failed" if blocking else "passed",
            "findings": [f.to_dict() for f in findings],
            # hard events and scenes the gate could not decide: the semantic detector judges them
            "forSemanticDetector": detector_marks(event_checks(context, output, known)),
            # spec 001 §2.2 diagnose: AI 味 hits of the style profile's blacklist, counted
            "aiFlavor": ai_flavor_summary(findings),
        },
        "semantic": semantic.wire()
        if semantic
        else {"status": "skipped", "note": "机械门已阻断，未运行语义检测。"},
    }
    if gaps:
        report["evidenceGaps"] = [g.to_dict() for g in gaps]
    return report


def revisions(blocking: Sequence[Finding]) -> tuple[RevisionItem, ...]:
    """The revision list for the blocking findings, in their order."""
    items = []
    for f in blocking:
        semantic = f.kind.startswith("semantic_")
        fix = SEMANTIC_FIX if semantic else FIXES.get(f.kind, DEFAULT_FIX)
        items.append(
            RevisionItem(
                kind=f.kind,
                source="semantic" if semantic else "mechanical",
                problem=f.message,
                fix=fix,
                quote=f.quote,
                start=f.start,
                end=f.end,
                evidence=tuple(getattr(f, "evidence", ())),
            )
        )
    return tuple(items)
