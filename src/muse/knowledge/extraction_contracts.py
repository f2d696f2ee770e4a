"""Contracts of post-chapter extraction (章后抽取, spec 001 §2.3 node A, spec 003 extractor).

``ChapterExtraction`` is what the extractor returns for one accepted chapter: proposed cards
(new, or additions to confirmed cards) and fact deltas of the six types, each anchored by a
verbatim quote from the chapter. Every field is required (nullable where optional) and the fact
union is a plain ``anyOf``, so the schema also works for strict ``json_schema`` output.

``ExtractionReport`` is what the extraction did with it: drafts and deltas stored, duplicates
skipped, and every item refused with its reason (a quote not found verbatim is refused and
recorded, never stored as a fact).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

INPUT_SCHEMA = "chapter-extraction-input-v1"
Confidence = Literal["high", "low"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ExtractedField(_Strict):
    key: str = Field(description="字段键或中文字段名，取自该卡类型的字段表（cardTypes）")
    value: str = Field(description="本章正文写明的值")
    evidenceQuote: str = Field(description="证明该值的正文原句，逐字摘录")


class ExtractedCard(_Strict):
    type: str = Field(description="卡类型键，如 character / location / artifact / faction")
    name: str = Field(description="正式名称；已有卡时用已有卡的名称")
    aliases: list[str] = Field(description="本章正文明确写出的别名；没有给空列表")
    fields: list[ExtractedField] = Field(description="本章正文写明的字段；没有给空列表")
    evidenceQuote: str = Field(description="本章写到它的原句，逐字摘录")
    confidence: Confidence


class _Fact(_Strict):
    subject: str = Field(description="事实的主体（人物或事物的名称）")
    evidenceQuote: str = Field(description="证明该事实的正文原句，逐字摘录")
    confidence: Confidence


class EntityStateFact(_Fact):
    type: Literal["entity_state"]
    attribute: str = Field(description="属性，如 境界 / 伤势 / 生死")
    value: str = Field(description="新状态")


class RelationFact(_Fact):
    type: Literal["relation"]
    target: str
    relation: str = Field(description="关系，如 师父")
    change: Literal["建立", "解除"]


class LocationFact(_Fact):
    type: Literal["location"]
    location: str = Field(description="现在所在")
    previous: str | None = Field(description="原在；正文没写为 null")


class PossessionFact(_Fact):
    type: Literal["possession"]
    item: str
    change: Literal["获得", "失去"]


class KnowledgeFact(_Fact):
    type: Literal["knowledge"]
    knows: str = Field(description="所知之事")
    learnedFrom: str | None = Field(description="得知途径；正文没写为 null")


class AbilityCostFact(_Fact):
    type: Literal["ability_cost"]
    ability: str
    cost: str = Field(description="代价；没有代价的能力使用不算事实增量")


ExtractedFact = (
    EntityStateFact | RelationFact | LocationFact | PossessionFact | KnowledgeFact | AbilityCostFact
)


class ChapterExtraction(_Strict):
    """extractor/extract output for one accepted chapter."""

    cards: list[ExtractedCard] = Field(description="新实体或已有卡的新信息；没有给空列表")
    facts: list[ExtractedFact] = Field(description="本章造成的状态变化（六型闭集）；没有给空列表")
    designFindings: list[str] = Field(description="拿不准、需要作者判定之处；没有给空列表")


# --- what the extraction did ------------------------------------------------------------------

ItemStatus = Literal[
    "new",  # a draft proposing a new card
    "update",  # a draft adding to a confirmed card (its contradictions are in the conflict queue)
    "duplicate",  # the same proposal is already stored (a re-run, or still pending)
    "unchanged",  # it adds nothing to the confirmed card
    "mention",  # it only says the card appears in this chapter: not a draft
    "proposed",  # a fact delta stored, waiting for the author's approval
    "merged",  # merged into the entity's pending draft (拆书: one draft per entity across batches)
    "conflict",  # it contradicts the entity's pending draft: its own draft, the points queued
    "rejected",  # refused: the reason says why (forged quote, unknown type, invalid card …)
]


class ExtractionItem(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["card", "field", "alias", "fact", "milestone"]
    name: str = Field(description="card name, or the fact's subject")
    detail: str = Field(default="", description="field key, alias, or the fact type")
    status: ItemStatus
    id: str | None = Field(default=None, description="draft or fact delta id when stored")
    conflicts: list[str] = []
    reason: str | None = None
    quote: str | None = None


class ExtractionReport(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    work_id: int
    chapter: int
    revision: int
    receipt_id: str | None
    cards: list[ExtractionItem]
    facts: list[ExtractionItem]
    findings: list[str]

    def count(self, kind: str, *statuses: str) -> int:
        items = self.cards if kind == "card" else self.facts
        return sum(1 for i in items if i.status in statuses and i.kind == kind)

    @property
    def rejected(self) -> list[ExtractionItem]:
        return [i for i in [*self.cards, *self.facts] if i.status == "rejected"]

    @property
    def conflicts(self) -> list[str]:
        return [c for i in self.cards for c in i.conflicts]
