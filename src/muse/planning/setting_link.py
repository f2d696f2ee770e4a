"""The one place planning reads the knowledge domain (stage 2, 设定拆条).

Stage 2's cards live in ``muse.knowledge`` (typed cards, drafts → confirmed, arc closure); the
planning gates only need a brief of each confirmed card, whether its arc closes, and how many
drafts still wait for the author. Keeping that behind these functions means a change in the
knowledge API touches one file here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection

from muse.knowledge import (
    CardField,
    CardSpec,
    Cycle,
    PlannedStep,
    arc_problems,
    card_type,
    list_drafts,
    load_cards,
    submit_draft,
)


@dataclass(frozen=True)
class CardBrief:
    id: str
    name: str
    type: str
    type_label: str
    spec_sha256: str
    names: frozenset[str]  # name and aliases
    arc_problems: tuple[str, ...]  # why its 登场 → … → 结局 arc does not close
    planned_chapters: tuple[int, ...]  # dated milestones and planned steps


@dataclass(frozen=True)
class SettingState:
    cards: tuple[CardBrief, ...]
    pending_drafts: int

    def find(self, name: str) -> CardBrief | None:
        return next((c for c in self.cards if name in c.names or name == c.id), None)

    def by_id(self) -> dict[str, CardBrief]:
        return {c.id: c for c in self.cards}


def setting_state(conn: Connection, work_id: int) -> SettingState:
    """The work's confirmed cards as planning sees them, and the pending draft count."""
    briefs = []
    for card in load_cards(conn, work_id):
        dated = [m.chapter for m in card.milestones] + [s.chapter for s in card.growth_arc]
        briefs.append(
            CardBrief(
                id=card.id,
                name=card.name,
                type=card.type,
                type_label=card_type(card.type).label,
                spec_sha256=card.spec_sha256,
                names=frozenset({card.name, *(a.name for a in card.aliases)}),
                arc_problems=tuple(arc_problems(card)),
                planned_chapters=tuple(sorted(c for c in dated if c is not None)),
            )
        )
    return SettingState(tuple(briefs), len(list_drafts(conn, work_id, status="pending")))


def submit_card_proposals(
    conn: Connection,
    work_id: int,
    proposals: Iterable[Mapping[str, Any]],
    origin_detail: Mapping[str, Any],
) -> list[dict]:
    """The planner's card proposals as knowledge drafts (shadow; the author confirms them).

    A required field the planner left out is stored as 「字段存疑」 with the reason, never
    invented; the author sees it when reviewing the draft.
    """
    outcomes = []
    for p in proposals:
        kind = card_type(p["type"])
        fields = {k: CardField(value=v) for k, v in (p.get("fields") or {}).items() if v}
        fields.setdefault("summary", CardField(value=p["summary"]))
        for f in kind.fields:
            if f.required and f.key not in fields:
                fields[f.key] = CardField(doubt="规划员草稿未给出，待作者补充")
        arc = [
            PlannedStep(
                chapter=s.get("chapter"),
                step=s.get("step", ""),
                cycle=Cycle(s["cycle"]),
                description=s.get("description", ""),
            )
            for s in p.get("growth_arc", [])
        ]
        spec = CardSpec(
            type=kind.key,
            name=p["name"],
            fields=fields,
            growth_arc=arc,
            ending_direction=p.get("ending_direction") or None,
        )
        outcome = submit_draft(
            conn, work_id, spec, origin="manual", origin_detail={"by": "planner", **origin_detail}
        )
        outcomes.append(outcome.model_dump(mode="json"))
    return outcomes
