"""The check step of a run: mechanical gate → semantic detector → evidence gaps (spec 000 §9).

One function decides what a candidate is worth, whoever wrote it — the writer (attempt 1), an
automatic rewrite (attempt N) or the author (edit-and-merge: ``edited_candidate`` → ``detecting``):

    verdict = check_candidate(engine, run_id=…, attempt=…, frozen_or_context=…, output=…,
                              provider=…, model=…, timeout_s=…)

It moves no state and writes nothing but the detector's model-call receipt; the verdict says
what should happen, and :func:`commit_verdict` applies it — candidate CHECKING → PASSED/REJECTED
with the report, the run's move out of ``detecting``, the evidence rows and the node events, in
the caller's transaction, by compare-and-set on run id + attempt + candidate version + candidate
sha256 (spec 001 §3). A verdict of an attempt that is no longer current is discarded there.

Order and outcomes:

1. mechanical gate (``quality.mechanical``): any ``high`` finding rejects; the detector is skipped;
2. semantic detector (``quality.semantic``): a forged report → ``forged`` (run ``failed``); a call
   that fails → ``detector_failed`` (run ``failed``); verified blocking issues → ``rejected``;
3. evidence gaps (``flow.evidence_gaps``): found material → ``authorization_required``; canon in
   conflict → ``canon_conflict`` (fail closed); nothing anywhere → new-setting candidates and
   ``passed`` — except for a gap that stands for an unverifiable rejection (a blocking issue
   with a blank quote or no evidence, a "rejected" verdict without an issue): never a pass,
   always ``authorization_required``.

A ``rejected`` verdict carries a structured revision list (what to fix, where, quoting the text)
for the rewrite loop (``flow.rewrite``); the author sees the same list.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from sqlalchemy import Engine

from muse.context import (
    DraftClaim,
    FrozenContext,
    UnlocatedClaim,
    WriterContext,
    WriterDraft,
    WriterOutput,
    build_output,
)
from muse.core.errors import MuseError
from muse.flow.evidence_gaps import GapResolution, overall, resolve_gaps
from muse.knowledge import term_appearances
from muse.quality import (
    EntityLexicon,
    Finding,
    LeakLexicon,
    SemanticReport,
    ai_flavor_summary,
    book_text_as_of,
    detector_marks,
    entity_lexicon_from,
    event_checks,
    leak_lexicon_from,
    run_semantic_detector,
    settle_as_new_settings,
    unsettleable,
)
from muse.quality import check as mechanical_check
from muse.store.engine import reading

Outcome = Literal[
    "passed", "rejected", "forged", "detector_failed", "authorization_required", "canon_conflict"
]
StepObserver = Callable[[str, str, int], None]  # (step, running|ok|failed|blocked, elapsed ms)

# What the writer should do about each kind of blocking finding (the revision list's "fix").
_FIXES = {
    "length_band": "把篇幅调整到接受区间内：写透场景来加长，删去重复与总结来缩短；不砍硬事件。",
    "meta_text": "删去该行（标题、作者的话、章末套话、求票或说明文字），正文只写故事本身。",
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
_SEMANTIC_FIX = "修改引文所在之处，使其与细纲和证据一致；不要改动无关段落。"
_DEFAULT_FIX = "修改该处，使其满足细纲硬约束与冻结证据。"


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


Lexicons = tuple[LeakLexicon, EntityLexicon]


def check_lexicons(
    engine: Engine, context: WriterContext, leak_terms: Sequence[tuple[str, int] | str] = ()
) -> Lexicons:
    """The future-leak and known-entity lexicons of the context's freeze point, from one read of
    the work's term appearances. They are built beside the context, never in it (the writer must
    not see later names); ``leak_terms`` is a replay harness's lexicon."""
    with reading(engine) as conn:
        appearances = term_appearances(conn, context.work_id)
        book_text, book_end = book_text_as_of(conn, context.work_id, context.as_of)
    return (
        leak_lexicon_from(appearances, context.work_id, context.as_of, leak_terms),
        entity_lexicon_from(appearances, context.work_id, context.as_of, book_text, book_end),
    )


def check_candidate(
    engine: Engine,
    *,
    run_id: str,
    attempt: int,
    frozen_or_context: FrozenContext | WriterContext,
    output: WriterOutput,
    provider: str,
    model: str,
    timeout_s: float | None = None,
    unlocated: list[UnlocatedClaim] | None = None,
    observe: StepObserver | None = None,
    leak_terms: Sequence[tuple[str, int] | str] = (),
    lexicons: Lexicons | None = None,
) -> Verdict:
    """Check ``output`` (attempt ``attempt`` of run ``run_id``) against its frozen context.

    ``unlocated`` are the claims whose quotes could not be found in the body (from
    :func:`~muse.context.writer_output.build_output` or :func:`output_for_body`). Model failures
    do not raise: they are the ``detector_failed`` outcome. Nothing is moved or stored here but
    the detector's receipt. ``lexicons``: built once per run by :func:`check_lexicons` (the
    freeze point does not change between attempts); None builds them here.
    """
    context = _context(frozen_or_context)
    step = observe or (lambda name, status, ms: None)
    timings: dict[str, int] = {}
    started = time.perf_counter()
    step("mechanical_gate", "running", 0)
    leak, entities = lexicons or check_lexicons(engine, context, leak_terms)
    findings = tuple(
        mechanical_check(
            context, output, list(unlocated or []), leak_lexicon=leak, entity_lexicon=entities
        )
    )
    timings["mechanical_gate"] = _ms(started)
    blocking = [f for f in findings if f.severity == "high"]
    step("mechanical_gate", "failed" if blocking else "ok", timings["mechanical_gate"])
    report = _report(context, output, findings, None, known=entities)
    if blocking:
        reason = f"机械门发现 {len(blocking)} 个阻断问题。"
        return Verdict(
            "rejected", reason, report, findings, None, (), _revisions(blocking), timings
        )
    started = time.perf_counter()
    step("semantic_detector", "running", 0)
    try:
        semantic = run_semantic_detector(
            engine,
            context=context,
            output=output,
            run_id=run_id,
            provider=provider,
            model=model,
            timeout_s=timeout_s,
            known=entities,
        )
    except MuseError as err:
        timings["semantic_detector"] = _ms(started)
        step("semantic_detector", "failed", timings["semantic_detector"])
        report["semantic"] = {"status": "failed", "error": str(err)}
        reason = f"语义检测员调用失败：{err}"
        return Verdict("detector_failed", reason, report, findings, None, (), (), timings)
    timings["semantic_detector"] = _ms(started)
    step("semantic_detector", "ok" if semantic.passed else "failed", timings["semantic_detector"])
    verdict = _judge(engine, context, output, findings, semantic, timings, step, entities)
    return verdict


def _judge(
    engine: Engine,
    context: WriterContext,
    output: WriterOutput,
    findings: tuple[Finding, ...],
    semantic: SemanticReport,
    timings: dict[str, int],
    step: StepObserver,
    known: EntityLexicon | None = None,
) -> Verdict:
    every = findings + semantic.findings
    if semantic.status == "forged":
        reason = "detector_forgery：检测报告未通过防造假校验，已拒收。"
        report = _report(context, output, findings, semantic, known=known)
        return Verdict("forged", reason, report, every, semantic, (), (), timings)
    if semantic.status == "rejected":
        reason = f"语义检测发现 {len(semantic.blocking)} 个阻断问题。"
        report = _report(context, output, findings, semantic, known=known)
        revisions = _revisions(list(semantic.blocking))
        return Verdict("rejected", reason, report, every, semantic, (), revisions, timings)
    if semantic.status == "passed":
        report = _report(context, output, findings, semantic, known=known)
        return Verdict("passed", None, report, every, semantic, (), (), timings)
    return _settle_gaps(engine, context, output, findings, semantic, timings, step, known)


def _settle_gaps(
    engine: Engine,
    context: WriterContext,
    output: WriterOutput,
    findings: tuple[Finding, ...],
    semantic: SemanticReport,
    timings: dict[str, int],
    step: StepObserver,
    known: EntityLexicon | None = None,
) -> Verdict:
    """needs_evidence: search the as-of view for every gap (spec 001 §6)."""
    started = time.perf_counter()
    step("evidence_search", "running", 0)
    with reading(engine) as conn:
        gaps = tuple(
            resolve_gaps(
                conn,
                work_id=context.work_id,
                as_of=context.as_of,
                gaps=semantic.gaps,
                output=output,
            )
        )
    timings["evidence_search"] = _ms(started)
    worst = overall(list(gaps))
    every = findings + semantic.findings
    refused = unsettleable(semantic)
    if worst == "new_setting" and refused:  # an unverifiable rejection is never a pass
        step("evidence_search", "blocked", timings["evidence_search"])
        report = _report(context, output, findings, semantic, gaps, known=known)
        reason = (
            "needs_evidence：检测员判定有阻断问题，但没有给出可定位的逐字引文或可核对的证据"
            f"（{'；'.join(g.needed for g in refused)}），不能视为通过。"
            "继续、补证、重写还是换方向，由作者决定（以新运行继续）。"
        )
        return Verdict("authorization_required", reason, report, every, semantic, gaps, (), timings)
    if worst == "new_setting":
        step("evidence_search", "ok", timings["evidence_search"])
        settled = settle_as_new_settings(semantic, [g.new_setting or {} for g in gaps])
        report = _report(context, output, findings, settled, gaps, known=known)
        return Verdict("passed", None, report, every, settled, gaps, (), timings)
    step("evidence_search", "blocked", timings["evidence_search"])
    report = _report(context, output, findings, semantic, gaps, known=known)
    notes = "；".join(g.note for g in gaps if g.outcome == worst)
    if worst == "conflict":
        reason = f"needs_evidence：证据缺口与正典冲突，失败关闭。{notes}"
        return Verdict("canon_conflict", reason, report, every, semantic, gaps, (), timings)
    found = sum(len(g.fact_evidence) for g in gaps)
    reason = (
        f"needs_evidence：语义检测缺少证据；在冻结点前找到 {found} 处相关材料，已附入本次运行记录。"
        "继续、补证、重写还是换方向，由作者决定（以新运行继续）。" + notes
    )
    return Verdict("authorization_required", reason, report, every, semantic, gaps, (), timings)


def _report(
    context: WriterContext,
    output: WriterOutput,
    findings: tuple[Finding, ...],
    semantic: SemanticReport | None,
    gaps: tuple[GapResolution, ...] = (),
    *,
    known: EntityLexicon | None = None,
) -> dict[str, Any]:
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


def _revisions(blocking: list[Finding]) -> tuple[RevisionItem, ...]:
    items = []
    for f in blocking:
        semantic = f.kind.startswith("semantic_")
        fix = _SEMANTIC_FIX if semantic else _FIXES.get(f.kind, _DEFAULT_FIX)
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


def output_for_body(
    frozen_or_context: FrozenContext | WriterContext,
    snapshot_id: str,
    body: str,
    *,
    candidate_version: int,
    attempt: int,
    based_on: WriterOutput | None = None,
) -> tuple[WriterOutput, list[UnlocatedClaim]]:
    """A WriterOutput for a body that did not come from the writer (an author's edit).

    The claims of ``based_on`` (the candidate the edit started from) are located again in the
    new body by their quoted text; a claim whose sentence the author removed or changed comes
    back unlocated and the mechanical gate flags it. New-setting declarations carry over.
    """
    context = _context(frozen_or_context)
    claims: list[DraftClaim] = []
    if based_on is not None:
        old = based_on.candidate_body
        for c in based_on.claim_ledger:
            claims.append(
                DraftClaim(
                    constraint_id=c.claim_id.split(":", 1)[1],
                    quote=old[c.start_code_point : c.end_code_point],
                    fact_evidence_id=c.fact_evidence_id,
                    prose_evidence_id=c.prose_evidence_id,
                )
            )
    draft = WriterDraft(
        paragraphs=(body,),
        claims=tuple(claims),
        new_setting_declarations=based_on.new_setting_declarations if based_on else (),
    )
    return with_attempt(*build_output(context, snapshot_id, draft, candidate_version), attempt)


def with_attempt(
    output: WriterOutput, unlocated: list[UnlocatedClaim], attempt: int
) -> tuple[WriterOutput, list[UnlocatedClaim]]:
    """The output stamped with the run's current attempt (the frozen context keeps attempt 1:
    a rewrite reuses the same frozen context, spec 000 §3.1)."""
    return output.model_copy(update={"attempt": attempt}), unlocated


def located(body: str, start: int | None, end: int | None, margin: int = 12) -> dict | None:
    """Where ``[start, end)`` is in ``body``, for the author: paragraph number (from 1) and the
    quote with a little text around it."""
    if start is None or end is None or not 0 <= start <= end <= len(body):
        return None
    paragraph = body[:start].count("\n\n") + 1
    before = body[max(0, start - margin) : start].split("\n")[-1]
    after = body[end : end + margin].split("\n")[0]
    return {"paragraph": paragraph, "excerpt": f"{before}【{body[start:end]}】{after}"}


def _context(frozen_or_context: FrozenContext | WriterContext) -> WriterContext:
    if isinstance(frozen_or_context, FrozenContext):
        return frozen_or_context.context
    return frozen_or_context


def _ms(started: float) -> int:
    return int((time.perf_counter() - started) * 1000)
