"""When each card name and alias first appears in the book: the dates behind the leak lexicon.

The mechanical gate (spec 000 §9) must know, for every name the book holds, the first chapter
it may be written in, without loading whole cards: a long book has thousands of them. So this
module reads only what dates a term, in two queries: the card rows (name, aliases, status) with
the earliest live source reference of each card, and the 登场 milestones with their references.

A term's first chapter follows the rules of ``card_state.py`` (:func:`debut_of` is applied to the
debut milestones themselves, so the two cannot drift):

* a card with a proven 登场 exists from that chapter; a card claiming a 登场 that cannot be
  proven never exists (``first_chapter`` None, fail closed);
* a card without any 登场 is dated by its first canonical mention, the earliest chapter one of its
  live source references points to; without any reference it is setting known from the start
  (``first_chapter`` 0);
* an alias dated later than its card (``since_chapter``) appears from that chapter.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Connection,
    Row,
    Select,
    and_,
    bindparam,
    func,
    literal,
    select,
)

from muse.knowledge.card_state import debut_of
from muse.knowledge.contracts import Card, Cycle, Milestone, SourceRef
from muse.knowledge.source_refs import ref_from_row
from muse.knowledge.tables import card_milestones, cards, source_refs
from muse.store.prepared import Prepared


@dataclass(frozen=True)
class TermAppearance:
    """One name or alias of one card, and the first chapter it may appear in."""

    term: str
    card_id: str
    card_name: str
    card_type: str
    status: str  # the card's status: draft | confirmed | merged | rejected
    role: str  # name | alias
    first_chapter: int | None  # 0: setting known from the start; None: never (debut unproven)
    basis: str  # debut | unproven_debut | first_mention | setting | alias


def term_appearances(conn: Connection, work_id: int) -> list[TermAppearance]:
    """Every name and alias of every card of the work (any status), with its first chapter."""
    debuts = _debut_milestones(conn, work_id)
    out: list[TermAppearance] = []
    for row in _CARDS.run(conn, work_id=work_id).all():
        chapter, basis = _card_first_chapter(debuts.get(row.id, []), row.first_ref)
        out.append(_appearance(row, row.name, "name", chapter, basis))
        for alias in row.aliases:
            since = alias.get("since_chapter")
            if since is not None and (chapter is None or since > chapter):
                out.append(_appearance(row, alias["name"], "alias", since, "alias"))
            else:
                out.append(_appearance(row, alias["name"], "alias", chapter, basis))
    return out


def _appearance(
    row: Row[*tuple[Any, ...]], term: str, role: str, chapter: int | None, basis: str
) -> TermAppearance:
    return TermAppearance(
        term=term,
        card_id=row.id,
        card_name=row.name,
        card_type=row.type,
        status=row.status,
        role=role,
        first_chapter=chapter,
        basis=basis,
    )


def _card_first_chapter(debuts: list[Milestone], first_ref: int | None) -> tuple[int | None, str]:
    if debuts:
        debut = debut_of(Card.model_construct(milestones=debuts))
        return (debut.chapter, "debut") if debut.chapter is not None else (None, "unproven_debut")
    if first_ref is not None:
        return first_ref, "first_mention"
    return 0, "setting"


def _cards_query(work_id: ColumnElement[int]) -> Select[*tuple[Any, ...]]:
    r = source_refs.c
    first_ref = (
        select(r.owner_id, func.min(r.chapter).label("chapter"))
        .where(r.work_id == work_id, r.owner_kind == "card", r.stale.is_(False))
        .group_by(r.owner_id)
        .subquery()
    )
    c = cards.c
    return (
        select(c.id, c.name, c.type, c.status, c.aliases, first_ref.c.chapter.label("first_ref"))
        .select_from(cards.outerjoin(first_ref, first_ref.c.owner_id == c.id))
        .where(c.work_id == work_id)
        .order_by(c.id)
    )


def _debut_query(work_id: ColumnElement[int]) -> Select[*tuple[Any, ...]]:
    m, r = card_milestones.c, source_refs.c
    refs_of = and_(
        r.owner_kind == "card",
        r.owner_id == m.card_id,
        r.target == literal("milestone:") + m.id,
    )
    return (
        select(
            m.card_id,
            m.id,
            m.chapter,
            r.chapter,
            r.start_offset,
            r.end_offset,
            r.span_sha256,
            r.chapter_revision,
            r.quote,
            r.stale,
        )
        .select_from(
            card_milestones.join(cards, cards.c.id == m.card_id).outerjoin(source_refs, refs_of)
        )
        .where(cards.c.work_id == work_id, m.cycle == Cycle.debut.value)
        .order_by(m.card_id, m.position, r.position)
    )


def _debut_milestones(conn: Connection, work_id: int) -> dict[str, list[Milestone]]:
    """card id → its 登场 milestones with their references (one query)."""
    grouped: dict[tuple[str, str], tuple[int | None, list[SourceRef]]] = {}
    for card_id, mid, chapter, *ref in _DEBUTS.run(conn, work_id=work_id).all():
        _, refs = grouped.setdefault((card_id, mid), (chapter, []))
        if ref[0] is not None:
            refs.append(ref_from_row(*ref))
    out: dict[str, list[Milestone]] = defaultdict(list)
    for (card_id, _), (chapter, refs) in grouped.items():
        out[card_id].append(Milestone(chapter=chapter, cycle=Cycle.debut, refs=refs))
    return out


_CARDS = Prepared(_cards_query(bindparam("work_id")))
_DEBUTS = Prepared(_debut_query(bindparam("work_id")))
