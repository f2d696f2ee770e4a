"""Contracts of the context domain: RetrievalPlan, RetrievalManifest, evidence, WriterContext v1.

Field names follow spec 000 §5.1, §5.3, §6 and §7.1 (camelCase on the wire).
"""

from __future__ import annotations

from typing import Any, Final, Literal

from pydantic import Field

from muse.context.explore import ExplorationManifest, ReplayedMaterial
from muse.core.contract import Contract

PLAN_VERSION: Final = "retrieval-plan-v1"
MANIFEST_VERSION: Final = "retrieval-manifest-v1"
WRITER_CONTEXT_VERSION: Final = "writer-context-v1"
TIE_BREAK = ("score DESC", "sourceVersion ASC", "sourceId ASC", "offset ASC")
CoverageState = Literal[
    "supported", "declared_new", "card_gap", "style_gap", "unsupported", "conflict"
]


class PlanQuery(Contract):
    query_id: str
    text: str
    entity_type: str
    purpose: str
    top_k: int = Field(ge=0)


class TokenBudget(Contract):
    cards: int
    consecutive_prose: int
    historical_evidence: int
    patterns: int

    @property
    def total(self) -> int:
        return self.cards + self.consecutive_prose + self.historical_evidence + self.patterns


class PlanFilters(Contract):
    work_id: int
    authorization_purpose: str
    max_chapter: int
    source_status: str


class RetrievalPlan(Contract):
    plan_version: Literal["retrieval-plan-v1"] = PLAN_VERSION
    run_id: str
    as_of: int
    target_chapter: int
    queries: tuple[PlanQuery, ...]
    card_index_version: str
    prose_index_version: str
    filters: PlanFilters
    tie_break: tuple[str, ...] = TIE_BREAK
    token_budget: TokenBudget


class ManifestSource(Contract):
    kind: Literal["chapter", "prose_excerpt", "card", "fine_outline", "pattern", "style"]
    source_id: str
    source_version: str
    chapter: int | None
    start: int | None
    end: int | None
    content_sha256: str
    reason: str
    tokens: int
    trimmed: str | None = None


class CardHit(Contract):
    """One card found for the plan (spec 000 §5.2)."""

    card_id: str
    name: str
    type: str
    retrieval_reason: str
    source_refs: tuple[dict[str, Any], ...]
    state_as_of: dict[str, Any]


class OmittedSource(Contract):
    kind: str
    source_id: str
    reason: str


class RetrievalManifest(Contract):
    manifest_version: Literal["retrieval-manifest-v1"] = MANIFEST_VERSION
    manifest_id: str
    plan_id: str
    sources: tuple[ManifestSource, ...]
    card_hits: tuple[CardHit, ...] = ()
    omitted_sources: tuple[OmittedSource, ...] = ()


class FactEvidence(Contract):
    id: str
    source_type: Literal[
        "confirmed_setting", "confirmed_card", "fact_ledger", "canonical_prose", "declared_new"
    ]
    source_ref: dict[str, Any]
    sha256: str
    text: str


class ProseEvidence(Contract):
    id: str
    chapter: int
    start: int
    end: int
    sha256: str
    purpose: str
    excerpt: str


class EvidenceCoverage(Contract):
    element_id: str
    element_kind: str
    state: CoverageState
    evidence_ids: tuple[str, ...] = ()
    note: str = ""


class ContextSnapshotRef(Contract):
    manifest_id: str
    sha256: str
    generated_at: str


class AuthorizationRef(Contract):
    id: str
    purpose: str
    revalidated_at: str


class NarrativeSource(Contract):
    """The approved fact (fact ledger row) a narrative-state value was derived from."""

    field: str = Field(description="time | place | position:<name> | situation")
    value: str
    chapter: int
    ledger_id: str
    quote: str


class NarrativeState(Contract):
    """Where the story stands at as_of (spec 000 §7.1), derived from the approved fact ledger
    (context/narrative_state.py). Every value has its source in ``sources``; a value that cannot
    be derived is null and ``unknown`` says why — never guessed."""

    as_of_chapter: int
    previous_chapter_tail: str
    time: str | None = None
    place: str | None = None
    character_positions: dict[str, str] = Field(default_factory=dict)
    immediate_situation: str | None = None
    sources: tuple[NarrativeSource, ...] = ()
    unknown: dict[str, str] = Field(default_factory=dict)
    provenance: str


class NarrativeBaseline(Contract):
    chapters: tuple[int, ...]
    scene_count: float
    dialogue_share: float
    mean_paragraph_chars: float
    hook_types: tuple[str, ...]


class OutputContract(Contract):
    length_target: dict[str, Any]
    generation_band: tuple[int, int]
    acceptance_band: tuple[int, int]
    frontmatter_allowed: bool = False
    declaration_rule: str
    narrative_baseline: NarrativeBaseline


class Prevention(Contract):
    """prevent 约束投影 (spec 001 §2.2, §2.3 item 5): what the writer must avoid, projected from the
    confirmed style profile: its AI 味 blacklist and the book's own style constraints. The same
    blacklist is checked on the candidate (``quality.ai_flavor``): advice, never a block."""

    ai_blacklist: tuple[str, ...]
    style_rules: tuple[str, ...] = ()
    note: str


class AuthorInstruction(Contract):
    """Item 7 of a round's input (spec 001 §2.3): the author's latest words, verbatim."""

    round: int = Field(ge=1)
    words: str | None  # None only in round 1 ("写第 N 章")


class WriterContext(Contract):
    schema_version: Literal["writer-context-v1"] = WRITER_CONTEXT_VERSION
    run_id: str
    attempt: int = Field(ge=1)
    mode: Literal["production", "diagnostic_only"]
    quality_policy_version: str
    work_id: int
    target_chapter: int
    as_of: int
    context_snapshot: ContextSnapshotRef
    source_version: str
    authorization_snapshot: AuthorizationRef
    source_status: Literal["active"]
    retrieval_plan: RetrievalPlan
    manifest: RetrievalManifest
    fine_outline: dict[str, Any]
    narrative_state: NarrativeState
    fact_evidence: tuple[FactEvidence, ...]
    prose_evidence: tuple[ProseEvidence, ...]
    pattern_references: tuple[dict[str, Any], ...] = ()
    style_constraints: dict[str, Any] | None = None
    evidence_coverage: tuple[EvidenceCoverage, ...]
    output_contract: OutputContract
    token_budget: TokenBudget
    omitted_sources: tuple[OmittedSource, ...] = ()
    # The two-phase writer (spec 001 §5) and the round's item 7 (spec 001 §2.3). Absent from the
    # wire when unset, so a context frozen without them is byte-for-byte what it always was.
    exploration: ExplorationManifest | None = None
    replayed_materials: tuple[ReplayedMaterial, ...] = ()
    author_instruction: AuthorInstruction | None = None
    prevention: Prevention | None = None

    def wire(self) -> dict[str, Any]:
        data = super().wire()
        for key in _OPTIONAL_WIRE:
            if data.get(key) in (None, []):
                data.pop(key, None)
        return data


_OPTIONAL_WIRE = ("exploration", "replayedMaterials", "authorInstruction", "prevention")
