"""What the writer returns (WriterDraft) and what Muse builds from it (WriterOutput v1, spec 000 §7.2).

The model never computes hashes or offsets: it returns paragraphs and, per claim, a verbatim
quote. Muse joins the paragraphs into the candidate body (NFC, LF), hashes it, and locates each
quote to get its code point range ``[start, end)``. A quote that cannot be located is reported,
never guessed.
"""

from __future__ import annotations

from typing import Final, Literal

from pydantic import Field, field_validator, model_validator

from muse.context.contracts import CoverageState
from muse.core.contract import Contract
from muse.core.prose_chars import refusal_message

WRITER_OUTPUT_VERSION: Final = "writer-output-v1"
# Only a candidate written under a production quality policy may be eligible (spec 000 §9/§10:
# writer-production-v1 vs writer-eval-v1).
PRODUCTION_POLICY_PREFIX: Final = "writer-production-"


class DraftClaim(Contract):
    constraint_id: str = Field(description="细纲硬约束的 id，如 H1、R1、F1、K1")
    quote: str = Field(min_length=1, description="正文中兑现该约束的原句，逐字摘录")
    fact_evidence_id: str | None = None
    prose_evidence_id: str | None = None


class NewSettingDeclaration(Contract):
    name: str = Field(min_length=1)
    kind: str = Field(min_length=1, description="地名/能力/组织/人物身份/关系等")
    description: str = Field(min_length=1)


class EvidenceRequest(Contract):
    query: str = Field(min_length=1)
    reason: str = Field(min_length=1)


class SelfCheck(Contract):
    covered_constraint_ids: tuple[str, ...] = ()
    notes: str = ""


class WriterDraft(Contract):
    """The writer model's structured output for the generate task."""

    paragraphs: tuple[str, ...] = Field(min_length=1)
    claims: tuple[DraftClaim, ...] = ()
    evidence_requests: tuple[EvidenceRequest, ...] = ()
    new_setting_declarations: tuple[NewSettingDeclaration, ...] = ()
    self_check: SelfCheck = SelfCheck()

    @field_validator("paragraphs")
    @classmethod
    def _prose_characters(cls, paragraphs: tuple[str, ...]) -> tuple[str, ...]:
        """Prose characters are decided once (``core.prose_chars``): a reply carrying NUL, an
        ESC sequence, a bidi override or a zero-width character is refused, naming it."""
        for number, text in enumerate(paragraphs, start=1):
            problem = refusal_message(text.lstrip("\ufeff"), f"第 {number} 段")
            if problem:
                raise ValueError(problem)
        return paragraphs


class ClaimLedgerEntry(Contract):
    claim_id: str
    candidate_sha256: str
    start_code_point: int = Field(ge=0)
    end_code_point: int = Field(ge=0)
    fact_type: str
    fact_evidence_id: str | None
    prose_evidence_id: str | None
    coverage_state: CoverageState


class WriterOutput(Contract):
    schema_version: Literal["writer-output-v1"] = WRITER_OUTPUT_VERSION
    run_id: str
    attempt: int
    mode: Literal["production", "diagnostic_only"]
    quality_policy_version: str
    context_snapshot_id: str
    context_snapshot_sha256: str
    candidate_version: int = Field(ge=1)
    candidate_sha256: str
    acceptance_eligible: bool
    candidate_body: str
    claim_ledger: tuple[ClaimLedgerEntry, ...]
    evidence_requests: tuple[EvidenceRequest, ...]
    new_setting_declarations: tuple[NewSettingDeclaration, ...]
    self_check: SelfCheck

    @model_validator(mode="after")
    def _eligible_only_in_production(self) -> WriterOutput:
        """Spec 001 §3, the contract layer of "an evaluation candidate is never acceptable"."""
        if self.acceptance_eligible and (
            self.mode != "production"
            or not self.quality_policy_version.startswith(PRODUCTION_POLICY_PREFIX)
        ):
            raise ValueError(
                "acceptanceEligible 只能在生产模式、生产质量策略下为 true："
                f"mode={self.mode}，qualityPolicyVersion={self.quality_policy_version}"
                "（评测与诊断候选永远不可采纳）"
            )
        return self
