"""Building WriterOutput v1 from the writer's draft (spec 000 §7.2)."""

from __future__ import annotations

from dataclasses import dataclass

from muse.context.contracts import CoverageState, WriterContext
from muse.context.output_contracts import (
    PRODUCTION_POLICY_PREFIX,
    ClaimLedgerEntry,
    DraftClaim,
    WriterDraft,
    WriterOutput,
)
from muse.core.canonical import sha256_hex
from muse.core.text import normalize_text


@dataclass(frozen=True)
class UnlocatedClaim:
    claim: DraftClaim
    reason: str


def candidate_body(draft: WriterDraft) -> str:
    """Paragraphs joined by blank lines, normalised (NFC, LF), without surrounding blanks."""
    return normalize_text("\n\n".join(p.strip() for p in draft.paragraphs if p.strip()))


def _fact_type(context: WriterContext, constraint_id: str) -> tuple[str, CoverageState]:
    for row in context.evidence_coverage:
        if row.element_id == constraint_id:
            return row.element_kind, row.state
    return "unknown", "unsupported"


def build_output(
    context: WriterContext, snapshot_id: str, draft: WriterDraft, candidate_version: int
) -> tuple[WriterOutput, list[UnlocatedClaim]]:
    body = candidate_body(draft)
    digest = sha256_hex(body)
    ledger, unlocated = [], []
    for index, claim in enumerate(draft.claims, start=1):
        quote = normalize_text(claim.quote).strip()
        at = body.find(quote) if quote else -1
        if at < 0:
            unlocated.append(UnlocatedClaim(claim, "引文在候选正文中找不到（须逐字摘录）"))
            continue
        fact_type, state = _fact_type(context, claim.constraint_id)
        ledger.append(
            ClaimLedgerEntry(
                claim_id=f"c{index}:{claim.constraint_id}",
                candidate_sha256=digest,
                start_code_point=at,
                end_code_point=at + len(quote),
                fact_type=fact_type,
                fact_evidence_id=claim.fact_evidence_id,
                prose_evidence_id=claim.prose_evidence_id,
                coverage_state=state,
            )
        )
    output = WriterOutput(
        run_id=context.run_id,
        attempt=context.attempt,
        mode=context.mode,
        quality_policy_version=context.quality_policy_version,
        context_snapshot_id=snapshot_id,
        context_snapshot_sha256=context.context_snapshot.sha256,
        candidate_version=candidate_version,
        candidate_sha256=digest,
        acceptance_eligible=context.mode == "production"
        and context.quality_policy_version.startswith(PRODUCTION_POLICY_PREFIX),
        candidate_body=body,
        claim_ledger=tuple(ledger),
        evidence_requests=draft.evidence_requests,
        new_setting_declarations=draft.new_setting_declarations,
        self_check=draft.self_check,
    )
    return output, unlocated
