"""Evidence pack and coverage (spec 000 §6).

Every fine-outline element gets a coverage state. Hard events, result direction, foreshadowing
actions, the hook and declared new facts are this chapter's plan: they are ``declared_new``.
A required entity is ``supported`` with a confirmed card and prose, ``card_gap`` when only the
canonical prose proves it, and ``unsupported`` when nothing does — which blocks generation.
"""

from __future__ import annotations

from muse.context.contracts import EvidenceCoverage, FactEvidence
from muse.core.canonical import sha256_hex
from muse.planning.contracts import FineOutline
from muse.works.contracts import ChapterText

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


def entity_mentions(name: str, chapters: list[ChapterText]) -> FactEvidence | None:
    """The latest canonical mention of ``name`` in ``chapters``, as an excerpt with offsets."""
    for chapter in reversed(chapters):
        at = chapter.text.rfind(name)
        if at < 0:
            continue
        start, end = (
            max(0, at - EXCERPT_RADIUS),
            min(len(chapter.text), at + len(name) + EXCERPT_RADIUS),
        )
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
    outline: FineOutline, facts: list[FactEvidence], chapters: list[ChapterText]
) -> tuple[list[FactEvidence], list[EvidenceCoverage]]:
    """Coverage of every element; returns the prose facts it added and the coverage rows."""
    hc = outline.hard_constraints
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
    for entity in hc.required_entities:
        found = entity_mentions(entity.name, chapters)
        if found is None:
            rows.append(
                EvidenceCoverage(
                    element_id=entity.id,
                    element_kind="required_entity",
                    state="unsupported",
                    note=f"「{entity.name}」在冻结点之前的正文和已确认设定中都找不到。",
                )
            )
            continue
        added.append(found)
        rows.append(
            EvidenceCoverage(
                element_id=entity.id,
                element_kind="required_entity",
                state="card_gap",
                evidence_ids=(found.id,),
                note=f"正文可证「{entity.name}」，但没有已确认的卡。",
            )
        )
    return added, rows


def blocking(rows: list[EvidenceCoverage]) -> list[EvidenceCoverage]:
    return [r for r in rows if r.state in ("unsupported", "conflict")]
