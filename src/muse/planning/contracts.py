"""The fine outline (细纲): one schema for the planner's output and the writer's input.

Hard constraints (spec 000 §4) may not be dropped, reversed or paid off early by the writer; each
carries a stable ``id`` that the writer's claim ledger cites. Adjustable beats may be merged, split
or reordered. New canonical facts declared here are ``declared_new`` evidence (spec 000 §6.3).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
    model_validator,
)

FINE_OUTLINE_VERSION = "fine-outline-v1"


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class OutlineItem(Strict):
    id: str = Field(min_length=1, max_length=40)
    text: str = Field(min_length=1)


class ForeshadowingAction(Strict):
    """伏笔动作: 埋 plant, 推 advance, 收 pay off — with the thread and the cards it touches."""

    id: str = Field(min_length=1, max_length=40)
    action: Literal["埋", "推", "收"]
    thread: str = Field(min_length=1)
    text: str = Field(min_length=1)
    cards: tuple[str, ...] = ()


class RequiredEntity(Strict):
    id: str = Field(min_length=1, max_length=40)
    name: str = Field(min_length=1)
    role: str = ""
    # The outline introduces this person in this chapter (本章首次登场): the name and every alias
    # of its card are no future leak, and no earlier evidence is required for it.
    debut: bool = False

    @model_serializer(mode="wrap")
    def _debut_only_when_set(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """``debut`` is written only when set: an outline saved before the field existed dumps
        (and hashes) exactly as it did."""
        data: dict[str, Any] = handler(self)
        if not self.debut:
            data.pop("debut", None)
        return data


class HardConstraints(Strict):
    hard_events: tuple[OutlineItem, ...] = Field(min_length=1)
    result_direction: OutlineItem
    foreshadowing: tuple[ForeshadowingAction, ...] = ()
    chapter_end_hook: OutlineItem
    required_entities: tuple[RequiredEntity, ...] = Field(min_length=1)
    required_scenes: tuple[OutlineItem, ...] = ()
    foreshadowing_note: str = Field(
        default="", description="why the chapter has no foreshadowing action, when it has none"
    )

    def constraint_ids(self) -> list[str]:
        """Every id the claim ledger must cover (entities are checked by name instead)."""
        ids = [e.id for e in self.hard_events] + [self.result_direction.id]
        ids += [f.id for f in self.foreshadowing] + [self.chapter_end_hook.id]
        return ids


class FineOutline(Strict):
    schema_version: Literal["fine-outline-v1"] = "fine-outline-v1"
    target_chapter: int = Field(ge=1)
    title: str = ""
    hard_constraints: HardConstraints
    adjustable_beats: tuple[OutlineItem, ...] = ()
    new_canonical_facts: tuple[OutlineItem, ...] = ()
    target_chars: int | None = Field(default=None, ge=1)

    @field_validator("title")
    @classmethod
    def _strip(cls, value: str) -> str:
        return value.strip()

    @model_validator(mode="after")
    def _unique_ids(self) -> FineOutline:
        hc = self.hard_constraints
        ids = hc.constraint_ids() + [e.id for e in hc.required_entities]
        ids += [s.id for s in hc.required_scenes] + [b.id for b in self.adjustable_beats]
        ids += [f.id for f in self.new_canonical_facts]
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            raise ValueError(f"细纲条目 id 重复：{', '.join(dupes)}")
        return self
