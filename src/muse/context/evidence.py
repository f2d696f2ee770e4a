"""Evidence pack and coverage (spec 000 §6).

factEvidence says what is true: confirmed cards (as of the freeze), the fact ledger, canonical
prose, and the facts this chapter's fine outline declares new. proseEvidence shows how it reads:
the baseline chapters and excerpts re-read by the cards' pointers.

Every fine-outline element gets a coverage state. Hard events, the result direction,
foreshadowing actions, the hook and declared facts are this chapter's plan: ``declared_new``.
A required entity the outline introduces in this chapter (``debut``) is ``declared_new``; any
other is
  * ``conflict`` when its card has an open conflict (blocks; goes to the author),
  * ``supported`` with a confirmed card and original prose that shows it,
  * ``style_gap`` with a card but no prose sample (facts fine, voice confidence lower),
  * ``card_gap`` when only canonical prose proves it (reported as a card quality issue),
  * ``unsupported`` when nothing does (blocks generation).
"""

from __future__ import annotations

from collections.abc import Mapping

from muse.context.contracts import EvidenceCoverage, FactEvidence
from muse.core.canonical import sha256_hex
from muse.knowledge import CardState
from muse.planning import FineOutline
from muse.works import ChapterText

EXCERPT_RADIUS = 60  # code points of context around an entity's mention


def declared_facts(outline: FineOutline, section_id: str) -> list[FactEvidence]:
    hc = outline.hard_constraints
    items = [("hard_event", e.id, e.text) for e in hc.hard_events]
    items.append(("result_direction", hc.result_direction.id, hc.result_direction.text))
    items += [
        ("foreshadowing", f.id, f"{f.action}：{f.thread}——{f.text}") for f in hc.foreshadowing
    ]
    items.append(("chapter_end_hook", hc.chapter_end_hook.id, hc.chapter_end_hook.text))
    items += [("new_fact", f.id, f.text) for f in outline.new_canonical_facts]
    # a person the outline introduces in this chapter is this chapter's plan, not earlier canon
    items += [
        ("required_entity", e.id, f"本章首次登场：{e.name}")
        for e in hc.required_entities
        if e.debut
    ]
    return [
        FactEvidence(
            id=f"fe-outline-{item_id}",
            source_type="declared_new",
            source_ref={"planSectionId": section_id, "elementId": item_id, "kind": kind},
            sha256=sha256_hex(text),
            text=text,
        )
        for kind, item_id, text in items
    ]


def entity_mentions(names: list[str], chapters: list[ChapterText]) -> FactEvidence | None:
    """The latest canonical mention of any of ``names`` in ``chapters``, as an excerpt."""
    for chapter in reversed(chapters):
        found = [(chapter.text.rfind(n), n) for n in names if n and n in chapter.text]
        if not found:
            continue
        at, name = max(found)
        start = max(0, at - EXCERPT_RADIUS)
        end = min(len(chapter.text), at + len(name) + EXCERPT_RADIUS)
        excerpt = chapter.text[start:end]
        return FactEvidence(
            id=f"fe-prose-{chapter.number}-{start}",
            source_type="canonical_prose",
            source_ref={
                "chapter": chapter.number,
                "revision": chapter.revision,
                "start": start,
                "end": end,
            },
            sha256=sha256_hex(excerpt),
            text=excerpt,
        )
    return None


def coverage(
    outline: FineOutline,
    facts: list[FactEvidence],
    chapters: list[ChapterText],
    matched: Mapping[str, CardState],
    card_facts: Mapping[str, str],
    card_prose: Mapping[str, list[str]],
    conflicted: set[str],
) -> tuple[list[FactEvidence], list[EvidenceCoverage]]:
    """Coverage of every element; returns the prose facts it added and the coverage rows.

    ``matched``: element id → card state; ``card_facts``: card id → its factEvidence id;
    ``card_prose``: card id → proseEvidence ids re-read for it; ``conflicted``: card ids with an
    open conflict.
    """
    rows = [
        EvidenceCoverage(
            element_id=f.source_ref["elementId"],
            element_kind=f.source_ref["kind"],
            state="declared_new",
            evidence_ids=(f.id,),
        )
        for f in facts
        if f.source_type == "declared_new"
    ]
    added: list[FactEvidence] = []
    for entity in outline.hard_constraints.required_entities:
        if entity.debut:  # covered by its declaration (declared_facts)
            continue
        state = matched.get(entity.id)
        names = [entity.name] + (list(state.aliases) + [state.name] if state else [])
        mention = entity_mentions(names, chapters)
        if mention is not None and mention.id not in {f.id for f in added}:
            added.append(mention)
        rows.append(
            _entity_row(entity.id, entity.name, state, mention, card_facts, card_prose, conflicted)
        )
    return added, rows


def _entity_row(element_id, name, state, mention, card_facts, card_prose, conflicted):
    prose_ids = ([mention.id] if mention else []) + (
        card_prose.get(state.card_id, []) if state else []
    )
    if state is not None and state.card_id in conflicted:
        return EvidenceCoverage(
            element_id=element_id,
            element_kind="required_entity",
            state="conflict",
            evidence_ids=(card_facts[state.card_id],),
            note=f"「{name}」的卡片有未解决的冲突，需作者先处理。",
        )
    if state is not None and prose_ids:
        return EvidenceCoverage(
            element_id=element_id,
            element_kind="required_entity",
            state="supported",
            evidence_ids=(card_facts[state.card_id], *prose_ids),
        )
    if state is not None:
        return EvidenceCoverage(
            element_id=element_id,
            element_kind="required_entity",
            state="style_gap",
            evidence_ids=(card_facts[state.card_id],),
            note=f"「{name}」有卡片，但冻结点前没有可回读的原文表现。",
        )
    if mention is not None:
        return EvidenceCoverage(
            element_id=element_id,
            element_kind="required_entity",
            state="card_gap",
            evidence_ids=(mention.id,),
            note=f"正文可证「{name}」，但没有已确认的卡。",
        )
    return EvidenceCoverage(
        element_id=element_id,
        element_kind="required_entity",
        state="unsupported",
        note=f"「{name}」在冻结点之前的正文和已确认设定中都找不到。",
    )


def blocking(rows: list[EvidenceCoverage]) -> list[EvidenceCoverage]:
    return [r for r in rows if r.state in ("unsupported", "conflict")]
