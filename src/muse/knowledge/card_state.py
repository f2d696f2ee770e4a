"""stateAsOf: a card as the story knows it at the end of chapter ``as_of`` (spec 000 §5.2).

Nothing dated after ``as_of`` may reach a model (ARCHITECTURE.md principle 4). The state is
rebuilt from the card's data with these rules; everything left out is returned beside the state
with its reason, for the author and the dashboard (never for a model input).

Always left out
  * 全书终态 (end state), 成长弧线 (planned growth arc) and 结局方向 (ending direction): they are
    planning data, true of no chapter yet.
  * a milestone whose chapter cannot be proven: no absolute chapter, or all its source references
    are stale;
  * a misplaced milestone: a source reference points after the milestone's own chapter (its text
    belongs to a later chapter, whatever ``as_of`` is).

Existence
  * the card's debut is the earliest proven, well-placed 登场 milestone; a card whose debut is
    after ``as_of`` does not exist as of that chapter (no state at all). A card that claims a
    登场 but none can be proven does not exist either (fail closed). A card without any 登场
    milestone is a setting known from the start (world, rules, terms …).

Dated items (the field-leak rule)
  * an item's date is the latest of its own chapter (milestone chapter, 起始章 of a field, alias or
    relation) and the chapters of its source references. An item dated after ``as_of`` is left
    out. An undated field, alias or relation is setting known from the card's debut.
  * a *sealed* field (a secret's truth, a foreshadowing's payoff; see card_types.yaml) that is not
    dated is left out: what the story reveals later must say when.
  * stale source references are dropped from the state (the text they pointed at changed).
  * mentions: an included text (milestone, field value, relation target or note) that names,
    anywhere in it, a card that does not exist yet or an alias dated after ``as_of`` is left out:
    its content belongs to a later chapter. A name several cards share is known from the
    earliest of them.

:func:`state_as_of` is a pure function over card data; :func:`book_state_as_of` applies it to a
whole book (so that mentions of other cards are checked); :func:`work_state_as_of` loads a work's
confirmed cards and calls it. :class:`BookTerms` does not depend on ``as_of``: build it once to
serve many freeze points (bench/state_as_of.py).

Speed (docs/cards.md): everything that does not depend on ``as_of`` is prepared once per card and
book (speed/prepared.py), from the cards' plain rows (speed/rows.py), and kept: for card models in
the :class:`BookTerms`, which ``BookTerms.of`` shares for the same card objects; for a work in
its entry of the card cache (speed/cache.py), which a new process fills from the stored card book
(speed/book.py). A card is prepared when it first exists at a freeze point, and a state as of a
chapter then compares chapters and builds the result.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Connection

from muse.knowledge.contracts import Card, StateAsOf, WorkStateAsOf
from muse.knowledge.speed import (
    NEVER,
    BookTerms,
    Debut,
    Prepared,
    R,
    Row,
    absent,
    debut_of,
    keep_built,
    many_objects,
    prepare,
    prepare_row,
    work_book,
)
from muse.knowledge.trusted import trusted

__all__ = [
    "NEVER",
    "R",
    "BookTerms",
    "Debut",
    "book_state_as_of",
    "debut_of",
    "exists_as_of",
    "state_as_of",
    "work_state_as_of",
]


def exists_as_of(card: Card, as_of: int) -> bool:
    return debut_of(card).exists(as_of)


def _prepared(book: BookTerms, card: Card) -> Prepared:
    found = book.prepared.get(card.id)
    if found is None or found.card is not card:
        found = book.prepared[card.id] = prepare(card, book)
    return found


def state_as_of(card: Card, as_of: int, *, book: BookTerms | None = None) -> StateAsOf:
    """The card as of the end of chapter ``as_of``, and every item left out with its reason.

    ``book`` holds the names a text must not mention before their time (build it once with
    :meth:`BookTerms.of` over the whole book); alone, a card is checked against its own aliases.
    """
    book = book if book is not None else BookTerms.of([card])
    return _prepared(book, card).at(as_of)


def book_state_as_of(
    cards: Sequence[Card], as_of: int, *, book: BookTerms | None = None
) -> list[StateAsOf]:
    """Every card of a book as of ``as_of``, mentions checked against the whole book.

    Pass ``book`` (``BookTerms.of(cards)``) to reuse it across freeze points.
    """
    with many_objects():
        book = book if book is not None else BookTerms.of(cards)
        return [_prepared(book, card).at(as_of) for card in cards]


class PreparedBook:
    """A work's card rows with their terms; each card is prepared when it first exists."""

    def __init__(self, rows: tuple[Row, ...]) -> None:
        self.rows = rows
        self.terms = BookTerms.of_rows(rows)
        self.cards: list[Prepared | None] = [None] * len(rows)

    def at(self, as_of: int) -> list[StateAsOf]:
        terms, cards = self.terms, self.cards
        out = []
        for i, row in enumerate(self.rows):
            found = cards[i]
            if found is None:
                debut = terms.debut(row)
                if not debut.exists(as_of):
                    out.append(absent(row, debut, as_of))
                    continue
                found = cards[i] = prepare_row(row, terms)
            out.append(found.at(as_of))
        return out


def _prepared_book(rows: tuple[Row, ...]) -> PreparedBook:
    keep_built()  # kept in the card cache with the rows
    return PreparedBook(rows)


def work_state_as_of(conn: Connection, work_id: int, as_of: int) -> WorkStateAsOf:
    """All confirmed cards of a work as of chapter ``as_of``."""
    with many_objects():
        book = work_book(conn, work_id).derive("state_as_of", _prepared_book)
        states = book.at(as_of)
    return trusted(WorkStateAsOf, work_id=work_id, as_of=as_of, cards=states)
