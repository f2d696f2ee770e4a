"""Reading stored cards into models: four queries, one per table, and no re-validation.

Every card row was validated as a whole when it was written (``insert_card``/``rewrite_card``),
so rows become models through :func:`muse.knowledge.trusted.trusted`; enums are still turned
into enum members, as validation would. Plain tuples, not named rows: named access on a
quarter of a million rows costs more than the queries.
"""

from __future__ import annotations

import gc
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Connection, select

from muse.knowledge.contracts import (
    Alias,
    Card,
    CardField,
    CardStatus,
    Cycle,
    Milestone,
    PlannedStep,
    Relation,
    SourceRef,
)
from muse.knowledge.tables import card_milestones, card_relations, cards, source_refs
from muse.knowledge.trusted import trusted

_CYCLES = {c.value: c for c in Cycle}
_STATUSES = {s.value: s for s in CardStatus}


@contextmanager
def many_objects() -> Iterator[None]:
    """Pause the cycle collector while a whole book of cards is built.

    A book is hundreds of thousands of small acyclic objects; each full collection would rescan
    the growing heap, which doubles the time of a large load. Nothing here makes cycles, so
    nothing is lost; the collector resumes as it was.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


Refs = dict[tuple[str, str], list[SourceRef]]


def load_rows(conn: Connection, work_id: int, where: list, *, by_id: bool) -> list[Card]:
    """Cards matching ``where`` with all their parts, in (type, name) order."""
    c = cards.c
    query = select(
        c.id,
        c.work_id,
        c.status,
        c.revision,
        c.types_version,
        c.spec_sha256,
        c.type,
        c.name,
        c.fields,
        c.aliases,
        c.growth_arc,
        c.ending_direction,
        c.end_state,
    )
    rows = conn.execute(query.where(*where).order_by(c.type, c.name)).all()
    if not rows:
        return []
    chosen = select(c.id).where(*where)
    refs = _load_refs(conn, work_id, chosen if by_id else None)
    milestones = _load_milestones(conn, chosen, refs)
    relations = _load_relations(conn, chosen, refs)
    return [_to_card(row, milestones, relations, refs) for row in rows]


def _load_refs(conn: Connection, work_id: int, chosen) -> Refs:
    r = source_refs.c
    query = select(
        r.owner_id,
        r.target,
        r.chapter,
        r.start_offset,
        r.end_offset,
        r.span_sha256,
        r.chapter_revision,
        r.quote,
        r.stale,
        r.stale_reason,
    ).where(r.owner_kind == "card", r.work_id == work_id)
    if chosen is not None:
        query = query.where(r.owner_id.in_(chosen))
    grouped: Refs = defaultdict(list)
    rows = conn.execute(query.order_by(r.owner_id, r.target, r.position)).all()
    for owner, target, chapter, start, end, sha256, revision, quote, stale, reason in rows:
        grouped[(owner, target)].append(
            trusted(
                SourceRef,
                chapter=chapter,
                start=start,
                end=end,
                sha256=sha256,
                revision=revision,
                quote=quote,
                stale=bool(stale),
                stale_reason=reason,
            )
        )
    return grouped


def _load_milestones(conn: Connection, chosen, refs: Refs) -> dict[str, list[Milestone]]:
    out: dict[str, list[Milestone]] = defaultdict(list)
    m = card_milestones.c
    query = (
        select(m.card_id, m.id, m.chapter, m.chapter_note, m.step, m.cycle, m.description)
        .where(m.card_id.in_(chosen))
        .order_by(m.card_id, m.position)
    )
    get = refs.get
    for card_id, mid, chapter, note, step, cycle, description in conn.execute(query).all():
        out[card_id].append(
            trusted(
                Milestone,
                chapter=chapter,
                chapter_note=note,
                step=step,
                cycle=_CYCLES[cycle],
                description=description,
                refs=get((card_id, f"milestone:{mid}")) or [],
            )
        )
    return out


def _load_relations(conn: Connection, chosen, refs: Refs) -> dict[str, list[Relation]]:
    out: dict[str, list[Relation]] = defaultdict(list)
    r = card_relations.c
    query = (
        select(r.card_id, r.id, r.kind, r.target, r.since_chapter, r.note)
        .where(r.card_id.in_(chosen))
        .order_by(r.card_id, r.position)
    )
    get = refs.get
    for card_id, rid, kind, target, since, note in conn.execute(query).all():
        out[card_id].append(
            trusted(
                Relation,
                kind=kind,
                target=target,
                since_chapter=since,
                note=note,
                refs=get((card_id, f"relation:{rid}")) or [],
            )
        )
    return out


def _to_card(row, milestones: dict, relations: dict, refs: Refs) -> Card:
    (card_id, work_id, status, revision, types_version, spec_sha256, type_, name) = row[:8]
    fields_doc, aliases, growth_arc, ending_direction, end_state = row[8:]
    get = refs.get
    fields = {
        key: trusted(
            CardField,
            value=doc.get("value"),
            doubt=doc.get("doubt"),
            since_chapter=doc.get("since_chapter"),
            refs=get((card_id, f"field:{key}")) or [],
        )
        for key, doc in fields_doc.items()
    }
    return trusted(
        Card,
        type=type_,
        name=name,
        aliases=[
            trusted(Alias, name=a["name"], since_chapter=a.get("since_chapter")) for a in aliases
        ],
        fields=fields,
        milestones=milestones.get(card_id) or [],
        relations=relations.get(card_id) or [],
        refs=get((card_id, "card")) or [],
        growth_arc=[
            trusted(
                PlannedStep,
                chapter=s.get("chapter"),
                step=s.get("step", ""),
                cycle=_CYCLES[s["cycle"]],
                description=s.get("description", ""),
            )
            for s in growth_arc
        ],
        ending_direction=ending_direction,
        end_state=end_state,
        id=card_id,
        work_id=work_id,
        status=_STATUSES[status],
        revision=revision,
        types_version=types_version,
        spec_sha256=spec_sha256,
    )
