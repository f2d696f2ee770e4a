"""Default output contracts, one per registered (role, task).

``dispatch`` accepts any strict pydantic model as ``output_model``; a domain that owns a richer
contract (WriterOutput v1 in the writing flow, the detector report in quality, the judge sheet in
evaluation) passes its own. These defaults give every task a usable, strict shape from the
start: the offline provider has a specific generator for each, the prompts describe them, and
the demo runs on them.

All fields are required (nullable where optional) so that every schema here is also valid for
strict ``json_schema`` structured output.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from muse.agents.contracts import ToolName


class StrictModel(BaseModel):
    model_config = ConfigDict(extra="forbid")


# -- explore (writer/explore; the list the deterministic replay executes) -------------------------


class ExploreRead(StrictModel):
    tool: ToolName
    number: int | None = Field(description="read_chapter 的章号；其他工具为 null")
    query: str | None = Field(description="search_prose 的检索词；其他工具为 null")
    name: str | None = Field(description="get_card 的实体名；其他工具为 null")
    purpose: str = Field(description="为什么需要这份材料")


class ExploreList(StrictModel):
    reads: list[ExploreRead]
    notes: str = Field(description="取材小结：已经掌握什么、还缺什么")


# -- writer/generate (spec 003: structured paragraphs) --------------------------------------------


class DraftParagraph(StrictModel):
    text: str = Field(min_length=1)


class NewSettingDeclaration(StrictModel):
    kind: Literal["place", "ability", "organization", "identity", "record", "relation", "other"]
    name: str
    statement: str = Field(description="新设定的内容，一句话")
    quote: str = Field(description="正文中首次写到它的原句，逐字摘录")


class WriterDraft(StrictModel):
    paragraphs: list[DraftParagraph] = Field(min_length=1)
    newSettingDeclarations: list[NewSettingDeclaration]


# -- planner/draft ---------------------------------------------------------------------------------


class PlanItem(StrictModel):
    label: str
    content: str
    hard: bool = Field(description="true：硬约束（不可删改）；false：可调整节拍")


class PlannerDraft(StrictModel):
    title: str
    summary: str
    items: list[PlanItem]
    designIssues: list[str] = Field(description="无法判断或与上层规划冲突之处")


# -- extractor/extract -----------------------------------------------------------------------------


class ExtractedEntity(StrictModel):
    name: str
    kind: Literal["character", "place", "item", "ability", "faction", "rule", "other"]
    aliases: list[str]
    state: str = Field(description="本章结束时的状态")
    chapter: int
    evidenceQuote: str = Field(description="正文原句，逐字摘录")
    confidence: Literal["high", "low"]


class ExtractedRelation(StrictModel):
    source: str
    target: str
    relation: str
    chapter: int
    evidenceQuote: str
    confidence: Literal["high", "low"]


class ExtractedEvent(StrictModel):
    summary: str
    participants: list[str]
    chapter: int
    evidenceQuote: str


class ExtractionConflict(StrictModel):
    subject: str
    existing: str = Field(description="既有卡上的说法")
    extracted: str = Field(description="正文里的说法")
    evidenceQuote: str


class ExtractionDraft(StrictModel):
    entities: list[ExtractedEntity]
    relations: list[ExtractedRelation]
    events: list[ExtractedEvent]
    conflicts: list[ExtractionConflict]
    designFindings: list[str]


# -- detector/check (spec 000 §9: only locatable, verifiable problems block) -----------------------

IssueCategory = Literal[
    "outline_hard_constraint",
    "fact_conflict",
    "evidence_missing",
    "timeline_location",
    "knowledge_scope",
    "ability_cost",
    "item_boundary",
    "future_leak",
    "output_contract",
    "style_advice",
]


class DetectorIssue(StrictModel):
    category: IssueCategory
    severity: Literal["blocking", "advisory"]
    quote: str = Field(description="候选正文中逐字、连续的片段")
    explanation: str
    evidence: list[str] = Field(description="支撑判断的材料：依赖清单中的来源")


class EvidenceGap(StrictModel):
    subject: str
    needed: str


class DetectorReport(StrictModel):
    verdict: Literal["passed", "rejected", "needs_evidence"]
    issues: list[DetectorIssue]
    evidenceGaps: list[EvidenceGap]
    summary: str


# -- judge/score (spec 000 §10: five dimensions, 0.5 steps) ----------------------------------------

Score = Annotated[float, Field(ge=1, le=5, multiple_of=0.5)]


class DimensionScore(StrictModel):
    score: Score
    reason: str
    quotes: list[str] = Field(description="候选正文中的逐字引文")


class JudgeDimensions(StrictModel):
    settingFidelity: DimensionScore = Field(description="设定与实体保真")
    outlineFidelity: DimensionScore = Field(description="情节与细纲忠实")
    narrativeTension: DimensionScore = Field(description="叙事完整与张力")
    styleConsistency: DimensionScore = Field(description="文风一致")
    proseQuality: DimensionScore = Field(description="文笔质量")


class CandidateScore(StrictModel):
    candidateLabel: str
    dimensions: JudgeDimensions


class JudgeScores(StrictModel):
    candidates: list[CandidateScore] = Field(min_length=1)


DEFAULT_OUTPUTS: dict[tuple[str, str], type[StrictModel]] = {
    ("writer", "explore"): ExploreList,
    ("writer", "generate"): WriterDraft,
    ("planner", "draft"): PlannerDraft,
    ("extractor", "extract"): ExtractionDraft,
    ("detector", "check"): DetectorReport,
    ("judge", "score"): JudgeScores,
}
