"""A work's cards as plain rows: tuples of strings, numbers and None, straight from the database.

This is the one form every reader starts from. It is cheap to build (four narrow queries run on
the driver's cursor: no result-row objects, no models), cheap to keep (tuples of atoms are not
tracked by the cycle collector once it has seen them) and can be stored as bytes with
:mod:`marshal` (speed/book.py), which decodes plain data only — never arbitrary classes.

:func:`card_of` turns a row into a :class:`Card` without re-validation (trusted.py): every card
row was validated as a whole when it was written. The as-of rules (speed/prepared.py) work on the
rows themselves and build models only for what a state shows.

Layouts (positions are the ``C_*``, ``M_*`` … constants below)::

    ref       (chapter, start, end, sha256, revision, quote, stale, stale_reason)
              (stale: a bool, or 0/1 as SQLite gives it; only its truth is read)
    alias     (name, since_chapter)
    field     (key, value, doubt, since_chapter, refs)
    milestone (chapter, chapter_note, step, cycle, description, refs)
    relation  (kind, target, since_chapter, note, refs)
    plan step (chapter, step, cycle, description)
    card      (id, work_id, status, revision, types_version, spec_sha256, type, name,
               aliases, fields, milestones, relations, refs, growth_arc, ending_direction,
               end_state)

Every sequence is a tuple except a list-valued field value (a list, as the model holds it).
"""

from __future__ import annotations

import json
from itertools import groupby, repeat
from operator import add, itemgetter
from typing import Any

from sqlalchemy import ColumnElement, Connection, literal, select
from sqlalchemy.sql import Select

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
from muse.knowledge.trusted import maker, trusted

Row = tuple[Any, ...]
NO_REFS: tuple[Row, ...] = ()

# card
C_ID, C_WORK, C_STATUS, C_REVISION, C_TYPES_VERSION, C_SPEC_SHA256, C_TYPE, C_NAME = range(8)
C_ALIASES, C_FIELDS, C_MILESTONES, C_RELATIONS, C_REFS, C_GROWTH_ARC = range(8, 14)
C_ENDING_DIRECTION, C_END_STATE = 14, 15
# ref
R_CHAPTER, R_STALE, R_STALE_REASON = 0, 6, 7
# milestone
M_CHAPTER, M_NOTE, M_STEP, M_CYCLE, M_DESCRIPTION, M_REFS = range(6)

CYCLES = {c.value: c for c in Cycle}
_STATUSES = {s.value: s for s in CardStatus}


def fetch(conn: Connection, query: Select[*tuple[Any, ...]]) -> list[Row]:
    """The rows of ``query`` as the driver's plain tuples, in the caller's transaction.

    Executed as any statement is, so that its compiled form is kept in the engine's cache (a
    write loads cards five times: compiling each query afresh cost ~0.4 ms a time); the rows are
    taken from the driver's cursor as they are, without building a result row of each."""
    result = conn.execute(query)
    try:
        rows: list[Row] = list(result.cursor.fetchall())
        return rows
    finally:
        result.close()


def _json(value: Any) -> Any:
    """A JSON column's value: text on SQLite, already decoded by psycopg on PostgreSQL."""
    return json.loads(value) if isinstance(value, str) else value


def load_card_rows(
    conn: Connection, work_id: int, where: list[ColumnElement[bool]], *, by_id: bool = False
) -> tuple[Row, ...]:
    """Cards matching ``where`` (all of work ``work_id``) as plain rows, in (type, name) order.

    ``by_id``: ``where`` picks a few cards; read only their references (else the work's).
    """
    c = cards.c
    head = fetch(
        conn,
        select(
            c.id,
            c.work_id,
            c.status,
            c.revision,
            c.types_version,
            c.spec_sha256,
            c.type,
            c.name,
            c.aliases,
            c.fields,
            c.growth_arc,
            c.ending_direction,
            c.end_state,
        )
        .where(*where)
        .order_by(c.type, c.name),
    )
    if not head:
        return ()
    chosen = select(c.id).where(*where)
    refs = _refs(conn, work_id, chosen if by_id else None)
    milestones = _milestones(conn, chosen, refs)
    relations = _relations(conn, chosen, refs)
    return tuple(_card(row, milestones, relations, refs) for row in head)


Refs = dict[tuple[str, str], tuple[Row, ...]]

# Grouping is done by C-level iterators (groupby, map, itemgetter) rather than a Python loop per
# row: the queries return rows already ordered, and sliced, as the layout wants them.
_OWNER = itemgetter(0, 1)  # (card id, target) of a reference or of an item its refs belong to
_TAIL = itemgetter(slice(2, None))  # a fetched row without those two
_FIRST, _SECOND = itemgetter(0), itemgetter(1)


def _refs(conn: Connection, work_id: int, chosen: Select[*tuple[Any, ...]] | None) -> Refs:
    r = source_refs.c
    query = (
        select(
            r.owner_id,
            r.target,
            r.chapter,
            r.start_offset,
            r.end_offset,
            r.span_sha256,
            r.chapter_revision,
            r.quote,
            r.stale,  # 0/1 on SQLite: only its truth is used, ref_of makes it a bool
            r.stale_reason,
        )
        .where(r.owner_kind == "card", r.work_id == work_id)
        .order_by(r.owner_id, r.target, r.position)
    )
    if chosen is not None:
        query = query.where(r.owner_id.in_(chosen))
    return {key: tuple(map(_TAIL, group)) for key, group in groupby(fetch(conn, query), _OWNER)}


def _items(rows: list[Row], refs: Refs) -> dict[str, tuple[Row, ...]]:
    """``rows`` (card id, target of their refs, item values …), ordered by card and position,
    as each card's item rows: the values, then the item's references."""
    found = map(refs.get, map(_OWNER, rows), repeat(NO_REFS))
    items = map(add, map(_TAIL, rows), zip(found))  # values + (refs,)
    return {
        card_id: tuple(map(_SECOND, group))
        for card_id, group in groupby(zip(map(_FIRST, rows), items, strict=True), _FIRST)
    }


def _milestones(
    conn: Connection, chosen: Select[*tuple[Any, ...]], refs: Refs
) -> dict[str, tuple[Row, ...]]:
    m = card_milestones.c
    query = (
        select(
            m.card_id,
            literal("milestone:") + m.id,
            m.chapter,
            m.chapter_note,
            m.step,
            m.cycle,
            m.description,
        )
        .where(m.card_id.in_(chosen))
        .order_by(m.card_id, m.position)
    )
    return _items(fetch(conn, query), refs)


def _relations(
    conn: Connection, chosen: Select[*tuple[Any, ...]], refs: Refs
) -> dict[str, tuple[Row, ...]]:
    r = card_relations.c
    query = (
        select(r.card_id, literal("relation:") + r.id, r.kind, r.target, r.since_chapter, r.note)
        .where(r.card_id.in_(chosen))
        .order_by(r.card_id, r.position)
    )
    return _items(fetch(conn, query), refs)


def _card(head: Row, milestones: dict[str, Any], relations: dict[str, Any], refs: Refs) -> Row:
    card_id, work_id, status, revision, types_version, spec_sha, type_, name = head[:8]
    aliases, fields, growth_arc = map(_json, head[8:11])
    ending_direction, end_state = head[11:]
    get = refs.get
    return (
        card_id,
        work_id,
        status,
        revision,
        types_version,
        spec_sha,
        type_,
        name,
        tuple((a["name"], a.get("since_chapter")) for a in aliases),
        tuple(
            (
                key,
                doc.get("value"),
                doc.get("doubt"),
                doc.get("since_chapter"),
                get((card_id, f"field:{key}"), NO_REFS),
            )
            for key, doc in fields.items()
        ),
        milestones.get(card_id, NO_REFS),
        relations.get(card_id, NO_REFS),
        get((card_id, "card"), NO_REFS),
        tuple(
            (s.get("chapter"), s.get("step", ""), s["cycle"], s.get("description", ""))
            for s in growth_arc
        ),
        ending_direction,
        end_state,
    )


# --- rows → models --------------------------------------------------------------------------


_ref = maker(SourceRef)
_milestone = maker(Milestone)


def ref_of(row: Row) -> SourceRef:
    chapter, start, end, sha256, revision, quote, stale, reason = row
    return _ref(
        {
            "chapter": chapter,
            "start": start,
            "end": end,
            "sha256": sha256,
            "revision": revision,
            "quote": quote,
            "stale": bool(stale),
            "stale_reason": reason,
        }
    )


def refs_of(rows: tuple[Row, ...]) -> list[SourceRef]:
    return [ref_of(r) for r in rows]


def milestone_of(row: Row) -> Milestone:
    chapter, note, step, cycle, description, refs = row
    return _milestone(
        {
            "chapter": chapter,
            "chapter_note": note,
            "step": step,
            "cycle": CYCLES[cycle],
            "description": description,
            "refs": [ref_of(r) for r in refs],
        }
    )


def field_of(row: Row) -> CardField:
    _, value, doubt, since, refs = row
    return trusted(CardField, value=value, doubt=doubt, since_chapter=since, refs=refs_of(refs))


def relation_of(row: Row) -> Relation:
    kind, target, since, note, refs = row
    return trusted(
        Relation, kind=kind, target=target, since_chapter=since, note=note, refs=refs_of(refs)
    )


def card_of(row: Row) -> Card:
    """The stored card a row holds (validated when it was written: not validated again)."""
    return trusted(
        Card,
        type=row[C_TYPE],
        name=row[C_NAME],
        aliases=[trusted(Alias, name=n, since_chapter=s) for n, s in row[C_ALIASES]],
        fields={f[0]: field_of(f) for f in row[C_FIELDS]},
        milestones=[milestone_of(m) for m in row[C_MILESTONES]],
        relations=[relation_of(r) for r in row[C_RELATIONS]],
        refs=refs_of(row[C_REFS]),
        growth_arc=[
            trusted(PlannedStep, chapter=ch, step=step, cycle=CYCLES[cycle], description=d)
            for ch, step, cycle, d in row[C_GROWTH_ARC]
        ],
        ending_direction=row[C_ENDING_DIRECTION],
        end_state=row[C_END_STATE],
        id=row[C_ID],
        work_id=row[C_WORK],
        status=_STATUSES[row[C_STATUS]],
        revision=row[C_REVISION],
        types_version=row[C_TYPES_VERSION],
        spec_sha256=row[C_SPEC_SHA256],
    )


# --- models → rows (the pure functions' cards) ----------------------------------------------


def ref_row(r: SourceRef) -> Row:
    return (r.chapter, r.start, r.end, r.sha256, r.revision, r.quote, r.stale, r.stale_reason)


def milestone_row(m: Milestone) -> Row:
    return (
        m.chapter,
        m.chapter_note,
        m.step,
        m.cycle.value,
        m.description,
        tuple(ref_row(r) for r in m.refs),
    )


def row_of(card: Card) -> Row:
    """The plain row of a card model (for the pure as-of functions, which take models)."""

    def refs(items: list[SourceRef]) -> tuple[Row, ...]:
        return tuple(ref_row(r) for r in items)

    return (
        card.id,
        card.work_id,
        card.status.value,
        card.revision,
        card.types_version,
        card.spec_sha256,
        card.type,
        card.name,
        tuple((a.name, a.since_chapter) for a in card.aliases),
        tuple(
            (key, f.value, f.doubt, f.since_chapter, refs(f.refs)) for key, f in card.fields.items()
        ),
        tuple(milestone_row(m) for m in card.milestones),
        tuple((r.kind, r.target, r.since_chapter, r.note, refs(r.refs)) for r in card.relations),
        refs(card.refs),
        tuple((s.chapter, s.step, s.cycle.value, s.description) for s in card.growth_arc),
        card.ending_direction,
        card.end_state,
    )
