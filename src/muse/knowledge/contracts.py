"""Contracts of the knowledge domain: cards, their history, and what a card looks like as of a chapter.

Strict and frozen (``extra="forbid"``), like every contract that crosses a boundary
(ARCHITECTURE.md principle 5). A card is an index, not the evidence: every dated item carries
source references (chapter, code point offsets, sha256 of the span, chapter revision) that point
back into canonical prose.

The planning data of a card (成长弧线 ``growth_arc``, 结局方向 ``ending_direction``, 全书终态
``end_state``) is stored with it but never appears in a :class:`CardState`; see
``card_state.py`` for the rules.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import (
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from muse.core.contract import UnaliasedContract


class Cycle(StrEnum):
    """周期 of a milestone (spec 001 §1A stage 2). Values are the spec's own words."""

    debut = "登场"
    growth = "成长"
    highlight = "高光"
    exit = "退场"
    ending = "结局"


class CardStatus(StrEnum):
    draft = "draft"  # a shadow card: proposed by an import or an extraction, not yet the author's
    confirmed = "confirmed"  # the author confirmed it: part of the book's memory
    merged = "merged"  # a draft whose content was merged into a confirmed card
    rejected = "rejected"  # a draft the author rejected


class SourceRef(UnaliasedContract):
    """A pointer into canonical prose: ``text[start:end]`` of chapter ``chapter`` at ``revision``."""

    chapter: int = Field(ge=1)
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    revision: int = Field(ge=1, description="the chapter's revision the offsets were taken from")
    quote: str = Field(description="the span's text, for display and export")
    stale: bool = False
    stale_reason: str | None = None

    @field_validator("end")
    @classmethod
    def _span(cls, end: int, info: ValidationInfo) -> int:
        # a field validator, not a model one: pydantic re-runs model validators every time an
        # instance is nested into another model, and cards hold hundreds of references
        if end <= info.data.get("start", end):
            raise ValueError("source reference span must be non-empty (start < end)")
        return end


class CardField(UnaliasedContract):
    """One field of a card: a value, or an explicit doubt (「字段存疑：原因」), never both."""

    value: str | list[str] | None = None
    doubt: str | None = None
    since_chapter: int | None = Field(default=None, ge=1)
    refs: list[SourceRef] = []

    @model_validator(mode="after")
    def _value_or_doubt(self) -> CardField:
        if (self.value is None) == (self.doubt is None):
            raise ValueError("a field holds either a value or a doubt reason")
        return self


class Alias(UnaliasedContract):
    name: str = Field(min_length=1)
    since_chapter: int | None = Field(default=None, ge=1, description="None: known from the debut")


class Milestone(UnaliasedContract):
    """演变历程: something that happened at an absolute chapter. ``chapter`` None: not provable."""

    chapter: int | None = Field(default=None, ge=1)
    chapter_note: str | None = Field(
        default=None, description="the author's text when not absolute"
    )
    step: str = ""
    cycle: Cycle
    description: str = ""
    refs: list[SourceRef] = []


class Relation(UnaliasedContract):
    """The card's ``kind`` is ``target`` (e.g. 孙悟空 —师父→ 唐僧), from ``since_chapter`` on."""

    kind: str = Field(min_length=1)
    target: str = Field(min_length=1, description="name of the related card (or entity)")
    since_chapter: int | None = Field(default=None, ge=1)
    note: str | None = None
    refs: list[SourceRef] = []


class PlannedStep(UnaliasedContract):
    """成长弧线: a step the author plans. Planning data: never part of a state as of a chapter."""

    chapter: int | None = Field(default=None, ge=1)
    step: str = ""
    cycle: Cycle
    description: str = ""


class CardSpec(UnaliasedContract):
    """A card's content, as imported, extracted or stored. Refs are already verified."""

    type: str
    name: str = Field(min_length=1)
    aliases: list[Alias] = []
    fields: dict[str, CardField] = {}
    milestones: list[Milestone] = []
    relations: list[Relation] = []
    refs: list[SourceRef] = []
    growth_arc: list[PlannedStep] = []
    ending_direction: str | None = None
    end_state: str | None = None


class Card(CardSpec):
    """A stored card (confirmed, or a draft's shadow card)."""

    id: str
    work_id: int
    status: CardStatus
    revision: int
    types_version: str
    spec_sha256: str


class FieldCoverage(UnaliasedContract):
    """Field coverage against the type's schema (spec 001 §1A stage 2, gate 1)."""

    missing_required: list[str] = []
    missing_recommended: list[str] = []
    doubted: list[str] = []
    unknown: list[str] = []

    @property
    def ok(self) -> bool:
        return not self.missing_required and not self.unknown


class ExclusionReason(StrEnum):
    """Why an item of a card is left out of its state as of a chapter."""

    not_debuted = "not_debuted"
    debut_unproven = "debut_unproven"
    end_state = "end_state"
    growth_arc = "growth_arc"
    ending_direction = "ending_direction"
    unproven_chapter = "unproven_chapter"
    misplaced = "misplaced"
    future = "future"
    sealed = "sealed"
    future_mention = "future_mention"
    stale_ref = "stale_ref"


class Exclusion(UnaliasedContract):
    """One item left out, for the author and the dashboard; never for a model input."""

    kind: str = Field(description="card | milestone | field | alias | relation | ref | plan")
    item: str = Field(description="what was left out, in the author's words")
    chapter: int | None = Field(default=None, description="the chapter that dates it, if any")
    reason: ExclusionReason
    message: str = Field(description="why, in Chinese")


class CardState(UnaliasedContract):
    """A card as the story knows it at the end of chapter ``as_of``: nothing dated later."""

    card_id: str
    type: str
    name: str
    aliases: list[str]
    fields: dict[str, CardField]
    relations: list[Relation]
    milestones: list[Milestone]
    refs: list[SourceRef]
    debut_chapter: int | None
    step: str | None = Field(description="台阶 of the latest milestone; None: no milestone yet")
    cycle: Cycle | None


class StateAsOf(UnaliasedContract):
    """A card's state as of ``as_of`` (None when the card does not exist yet) and what was cut."""

    as_of: int
    card_id: str
    exists: bool
    state: CardState | None
    excluded: list[Exclusion]


class WorkStateAsOf(UnaliasedContract):
    work_id: int
    as_of: int
    cards: list[StateAsOf]

    def visible(self) -> list[CardState]:
        """The states of the cards that exist as of ``as_of``: all a model input may use."""
        return [c.state for c in self.cards if c.state is not None]


class StaleRef(UnaliasedContract):
    """A source reference the canonical text no longer holds."""

    ref_id: str
    owner_kind: str
    owner_id: str
    target: str
    chapter: int
    start: int
    end: int
    reason: str


class RevalidationReport(UnaliasedContract):
    work_id: int
    checked: int = Field(description="references looked at")
    reanchored: int = Field(description="same text at the same offsets in a newer revision")
    restored: int = Field(description="stale references whose text is back (e.g. after a revert)")
    newly_stale: list[StaleRef]


class Draft(UnaliasedContract):
    """A proposed card (shadow): new, or an update of the confirmed card ``target_card_id``."""

    id: str
    work_id: int
    card_id: str
    type: str
    name: str
    target_card_id: str | None
    origin: str
    origin_detail: dict[str, Any]
    status: str
    open_conflicts: int
    created_at: str
    decided_at: str | None


class DraftOutcome(UnaliasedContract):
    """What became of a proposal or a decision on a draft.

    status: new (a new card proposed) | update (additions to a confirmed card) | unchanged (it
    adds nothing: no draft stored) | duplicate (the same proposal is already pending) |
    confirmed | rejected | conflict (confirmation stopped: contradictions are in the queue).
    """

    status: str
    draft_id: str | None
    card_id: str | None = Field(description="shadow card, or the confirmed card after confirm")
    target_card_id: str | None = None
    name: str
    conflicts: list[str] = []
    warnings: list[str] = []


class Conflict(UnaliasedContract):
    """A draft that contradicts a confirmed card: both sides and their evidence."""

    id: str
    work_id: int
    draft_id: str
    card_id: str
    card_name: str
    kind: str
    subject: str
    subject_label: str
    confirmed_side: dict[str, Any]
    draft_side: dict[str, Any]
    status: str
    resolution: str | None
    resolved_value: dict[str, Any] | None
    created_at: str
    resolved_at: str | None
