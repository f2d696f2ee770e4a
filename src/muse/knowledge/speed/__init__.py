"""The speed layer of the cards: a whole book of cards read, kept and prepared fast.

Reading a large work's cards from the card tables, and applying the as-of rules to every card,
would cost seconds per command; this layer makes it tens of milliseconds, with exactly the
rules' outcome (tests/knowledge/test_state_as_of_fast.py). The rest of the package reaches it
only through this face (``__all__`` below); ``cards`` and ``card_state`` are its two users, and
:func:`work_book` is their one way to a whole book. The modules behind it:

    rows        cards as plain rows (tuples), models built without re-validation
    loading     building a whole book with the cycle collector paused; a kept book frozen
    cache       a work's cards in memory, keyed by the work's change token
    book        the stored card book: one marshal blob per work (table card_book_cache)
    reading     work_book: the cache, else the stored book, else the card tables
    rules       the as-of rules' parts that do not depend on ``as_of`` (debuts, BookTerms)
    prepared    the rules applied: per card, what ``as_of`` changes and what it does not
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from muse.core.faces import lazy_face

if TYPE_CHECKING:
    from muse.knowledge.speed.book import cache_overview, drop_book
    from muse.knowledge.speed.loading import keep_built, many_objects
    from muse.knowledge.speed.prepared import Prepared, absent, prepare, prepare_row
    from muse.knowledge.speed.reading import work_book
    from muse.knowledge.speed.rows import Row, card_of, load_card_rows
    from muse.knowledge.speed.rules import NEVER, BookTerms, Debut, R, debut_of

__all__ = [
    "BookTerms",
    "Debut",
    "NEVER",
    "Prepared",
    "R",
    "Row",
    "absent",
    "cache_overview",
    "card_of",
    "debut_of",
    "drop_book",
    "keep_built",
    "load_card_rows",
    "many_objects",
    "prepare",
    "prepare_row",
    "work_book",
]

_FACE: dict[str, tuple[str, ...]] = {
    "book": ("cache_overview", "drop_book"),
    "loading": ("keep_built", "many_objects"),
    "prepared": ("Prepared", "absent", "prepare", "prepare_row"),
    "reading": ("work_book",),
    "rows": ("Row", "card_of", "load_card_rows"),
    "rules": ("BookTerms", "Debut", "NEVER", "R", "debut_of"),
}

__getattr__, __dir__ = lazy_face(globals(), _FACE)
