"""The mechanical gate: deterministic checks of a candidate against its frozen context (spec 000 §9).

Only locatable, verifiable problems are findings with severity ``high`` (they block). This module
grows with the production-chain issue; what it checks today it checks for real.
"""

from __future__ import annotations

from muse.context import UnlocatedClaim, WriterContext, WriterOutput
from muse.core.canonical import sha256_hex
from muse.core.text import count_han
from muse.planning import FineOutline
from muse.quality.ai_flavor import ai_flavor_findings
from muse.quality.entities import EntityLexicon
from muse.quality.findings import Finding
from muse.quality.hard_events import event_checks, event_findings
from muse.quality.leak import LeakLexicon
from muse.quality.meta_text import garbled_findings, meta_text_findings
from muse.quality.names import name_findings, required_entity_findings
from muse.quality.repetition import repetition_findings

__all__ = ["Finding", "check"]


def check(
    context: WriterContext,
    output: WriterOutput,
    unlocated: list[UnlocatedClaim],
    *,
    leak_lexicon: LeakLexicon | None = None,
    entity_lexicon: EntityLexicon | None = None,
) -> list[Finding]:
    """Every mechanical finding of ``output`` against ``context``.

    ``leak_lexicon`` (:func:`muse.quality.leak.build_leak_lexicon`) adds ``future_leak`` findings
    (high); ``entity_lexicon`` (:func:`muse.quality.entities.build_entity_lexicon`) adds
    ``unknown_entity`` findings (medium, advice). Both are built beside the context, never in it.
    """
    outline = FineOutline.model_validate(context.fine_outline)
    findings = _output_contract(context, output)
    findings += _ledger(context, output, unlocated)
    findings += _coverage(outline, output)
    findings += event_findings(event_checks(context, output, entity_lexicon), output.candidate_body)
    findings += repetition_findings(context, output.candidate_body)
    findings += ai_flavor_findings(context, output.candidate_body)
    findings += required_entity_findings(
        context, output, leak_lexicon=leak_lexicon, entity_lexicon=entity_lexicon
    )
    findings += name_findings(
        context, output, leak_lexicon=leak_lexicon, entity_lexicon=entity_lexicon
    )
    return findings


def _output_contract(context: WriterContext, output: WriterOutput) -> list[Finding]:
    body = output.candidate_body
    findings = []
    low, high = context.output_contract.acceptance_band
    han = count_han(body)
    if not low <= han <= high:
        findings.append(
            Finding("length_band", "high", f"正文 {han} 个汉字，不在接受区间 {low}–{high} 内。")
        )
    findings += meta_text_findings(body)
    findings += garbled_findings(body)
    return findings


def _ledger(
    context: WriterContext, output: WriterOutput, unlocated: list[UnlocatedClaim]
) -> list[Finding]:
    findings = [
        Finding(
            "claim_unlocated", "high", f"{u.claim.constraint_id}：{u.reason}", quote=u.claim.quote
        )
        for u in unlocated
    ]
    if sha256_hex(output.candidate_body) != output.candidate_sha256:
        findings.append(Finding("candidate_hash", "high", "candidateSha256 与正文不符。"))
    known = {f.id for f in context.fact_evidence} | {p.id for p in context.prose_evidence}
    for claim in output.claim_ledger:
        if not 0 <= claim.start_code_point < claim.end_code_point <= len(output.candidate_body):
            findings.append(Finding("claim_range", "high", f"{claim.claim_id} 的范围越出正文。"))
        for ref in (claim.fact_evidence_id, claim.prose_evidence_id):
            if ref is not None and ref not in known:
                findings.append(
                    Finding(
                        "claim_evidence",
                        "high",
                        f"{claim.claim_id} 引用的证据 {ref} 不在本次上下文中。",
                        claim.start_code_point,
                        claim.end_code_point,
                    )
                )
    return findings


def _coverage(outline: FineOutline, output: WriterOutput) -> list[Finding]:
    findings = []
    claimed = {c.claim_id.split(":", 1)[1] for c in output.claim_ledger}
    for constraint_id in outline.hard_constraints.constraint_ids():
        if constraint_id not in claimed:
            findings.append(
                Finding(
                    "hard_constraint_missing",
                    "high",
                    f"细纲硬约束 {constraint_id} 在正文中没有对应的声明（claim）。",
                )
            )
    return findings
