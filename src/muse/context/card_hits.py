"""Card hits: cards act as an index (spec 000 §5.2, ARCHITECTURE.md principle 3).

A fine-outline element that names an entity (a required entity, the cards a foreshadowing action
touches) is looked up among the confirmed cards that exist as of the freeze, by name or alias.
Each hit carries its stateAsOf (rebuilt only from items dated ≤ as_of) and its source pointers,
which the prose re-read follows back to the original text.
"""

from __future__ import annotations

from dataclasses import dataclass

from muse.context.as_of import AsOfView
from muse.context.contracts import CardHit
from muse.core.canonical import hash_value
from muse.knowledge import CardState, SourceRef
from muse.planning import FineOutline


@dataclass(frozen=True)
class Wanted:
    element_id: str
    name: str
    reason: str


def wanted_entities(outline: FineOutline) -> list[Wanted]:
    hc = outline.hard_constraints
    wanted = [Wanted(e.id, e.name, f"细纲必须出场实体 {e.id}") for e in hc.required_entities]
    for action in hc.foreshadowing:
        wanted += [
            Wanted(action.id, name, f"伏笔动作 {action.id}（{action.action}）涉及")
            for name in action.cards
        ]
    return wanted


def find_state(states: list[CardState], name: str) -> CardState | None:
    """A card by name first, then by an alias known as of the freeze."""
    for state in states:
        if state.name == name:
            return state
    matches = [s for s in states if name in s.aliases]
    return matches[0] if len(matches) == 1 else None


def all_refs(state: CardState) -> list[SourceRef]:
    refs = list(state.refs)
    for m in state.milestones:
        refs += m.refs
    for f in state.fields.values():
        refs += f.refs
    for r in state.relations:
        refs += r.refs
    return [r for r in refs if not r.stale]


def card_hits(view: AsOfView, outline: FineOutline) -> tuple[list[CardHit], dict[str, CardState]]:
    """Hits in the order of the outline (deduplicated); also element id → matched card state."""
    states = view.card_states
    hits: dict[str, CardHit] = {}
    matched: dict[str, CardState] = {}
    for want in wanted_entities(outline):
        state = find_state(states, want.name)
        if state is None:
            continue
        matched.setdefault(want.element_id, state)
        if state.card_id in hits:
            continue
        refs = sorted({(r.chapter, r.start, r.end, r.revision, r.sha256) for r in all_refs(state)})
        hits[state.card_id] = CardHit(
            card_id=state.card_id,
            name=state.name,
            type=state.type,
            retrieval_reason=f"{want.reason}「{want.name}」",
            source_refs=tuple(
                {"chapter": c, "start": s, "end": e, "revision": v, "sha256": h}
                for c, s, e, v, h in refs
            ),
            state_as_of=state.model_dump(mode="json"),
        )
    return list(hits.values()), matched


def card_index_version(view: AsOfView) -> str:
    """Identity of the card index a plan read: every confirmed card and its revision."""
    versions = sorted(view.card_versions().values())
    return "cards-v1:" + hash_value([list(v) for v in versions])[:16]


def content_identity(state_as_of: dict) -> str:
    """Hash of a card state without database ids, so equal content hashes equally anywhere."""
    return hash_value({k: v for k, v in state_as_of.items() if k != "card_id"})


def summarize(state: CardState) -> str:
    """The card's state as plain text, for factEvidence."""
    parts = [f"{state.name}（{state.type}）"]
    if state.aliases:
        parts.append("别名：" + "、".join(state.aliases))
    for key, field in sorted(state.fields.items()):
        if field.value:
            value = "、".join(field.value) if isinstance(field.value, list) else field.value
            parts.append(f"{key}：{value}")
    for relation in state.relations:
        parts.append(f"关系：{relation.kind} → {relation.target}")
    if state.milestones:
        last = state.milestones[-1]
        parts.append(
            f"最近里程碑：第{last.chapter}章 {last.cycle} {last.step} {last.description}".strip()
        )
    return "；".join(parts)
