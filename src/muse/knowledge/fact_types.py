"""The six fact delta types (spec 001 §6 结构化事实增量: a closed set).

A fact delta is one change of the story's state that a chapter makes true, proposed by the
extractor with a verbatim quote from that chapter as evidence. The six types are what the
detector has to check a new chapter against (spec 000 §9: time and place, who knows what,
abilities and their cost) and what a web novel most often gets wrong over hundreds of chapters:

  entity_state  实体状态   someone's or something's state changes (受伤, 突破筑基, 身死)
  relation      关系变化   a relation between two entities is made or broken
  location      位置变化   someone or something is now somewhere
  possession    持有变化   someone gains or loses an item
  knowledge     知情范围   someone now knows something (who knows what, and since when)
  ability_cost  能力代价   someone uses or gains an ability, and what it costs

The set is closed: a model cannot invent a seventh type (the contract and a database check
refuse it).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, TypeAdapter

from muse.core.contract import UnaliasedContract


class FactType(StrEnum):
    entity_state = "entity_state"
    relation = "relation"
    location = "location"
    possession = "possession"
    knowledge = "knowledge"
    ability_cost = "ability_cost"


FACT_TYPE_LABELS = {
    FactType.entity_state: "实体状态",
    FactType.relation: "关系变化",
    FactType.location: "位置变化",
    FactType.possession: "持有变化",
    FactType.knowledge: "知情范围",
    FactType.ability_cost: "能力代价",
}


class _Delta(UnaliasedContract):
    chapter: int = Field(ge=1, description="the chapter whose canonical text proves the delta")
    subject: str = Field(min_length=1, description="whom or what it is about")
    evidence_quote: str = Field(min_length=1, description="verbatim quote from that chapter")


class EntityStateDelta(_Delta):
    type: Literal["entity_state"] = "entity_state"
    attribute: str = Field(min_length=1, description="属性, e.g. 境界 / 伤势 / 生死")
    value: str = Field(min_length=1, description="新状态")


class RelationDelta(_Delta):
    type: Literal["relation"] = "relation"
    target: str = Field(min_length=1, description="对象")
    relation: str = Field(min_length=1, description="关系, e.g. 师父")
    change: Literal["建立", "解除"]


class LocationDelta(_Delta):
    type: Literal["location"] = "location"
    location: str = Field(min_length=1, description="现在所在")
    previous: str | None = Field(default=None, description="原在; None: not stated")


class PossessionDelta(_Delta):
    type: Literal["possession"] = "possession"
    item: str = Field(min_length=1)
    change: Literal["获得", "失去"]


class KnowledgeDelta(_Delta):
    type: Literal["knowledge"] = "knowledge"
    knows: str = Field(min_length=1, description="所知之事")
    learned_from: str | None = Field(default=None, description="得知途径; None: not stated")


class AbilityCostDelta(_Delta):
    type: Literal["ability_cost"] = "ability_cost"
    ability: str = Field(min_length=1)
    cost: str = Field(min_length=1, description="代价; an ability without a cost is not a delta")


FactDeltaProposal = Annotated[
    EntityStateDelta
    | RelationDelta
    | LocationDelta
    | PossessionDelta
    | KnowledgeDelta
    | AbilityCostDelta,
    Field(discriminator="type"),
]
# built on first use, as the contracts are (``defer_build``): a write never validates one
PROPOSAL: TypeAdapter[FactDeltaProposal] = TypeAdapter(
    FactDeltaProposal, config=ConfigDict(defer_build=True)
)
COMMON_KEYS = {"type", "chapter", "subject", "evidence_quote"}


class FactDelta(UnaliasedContract):
    """A stored proposal (``proposed``) and the author's decision on it."""

    id: str
    work_id: int
    type: FactType
    chapter: int
    subject: str
    payload: dict[str, Any]
    evidence_quote: str
    evidence_start: int
    evidence_end: int
    evidence_stale: bool
    status: str
    origin: str
    created_at: str
    decided_at: str | None


class LedgerEntry(UnaliasedContract):
    """One canonical fact: an approved delta (immutable)."""

    id: str
    work_id: int
    delta_id: str
    type: FactType
    chapter: int
    subject: str
    payload: dict[str, Any]
    evidence_quote: str
    approved_by: str
    approved_at: str
