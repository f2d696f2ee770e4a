"""Where a work's card rows come from: the card cache, else the stored book, else the tables.

:func:`work_book` is the one way in for a whole book of cards (``cards.load_cards`` and
``card_state.work_state_as_of``): the card cache (speed/cache.py) while the work's change token
is unchanged, else the stored card book of the current token (speed/book.py; confirmed cards
only), else the card tables (speed/rows.py), and then stored for the next process.
"""

from __future__ import annotations

from sqlalchemy import Connection

from muse.knowledge.contracts import CardStatus
from muse.knowledge.speed.book import read_book, store_book
from muse.knowledge.speed.cache import CachedBook, cached_book
from muse.knowledge.speed.loading import keep_built, many_objects
from muse.knowledge.speed.rows import Row, load_card_rows
from muse.knowledge.tables import cards

CONFIRMED = frozenset({CardStatus.confirmed.value})


def work_book(conn: Connection, work_id: int, statuses: frozenset[str] = CONFIRMED) -> CachedBook:
    """A work's cards of ``statuses`` as plain rows (speed/rows.py), with what was derived from
    them: from the card cache, else the stored book of the current token (confirmed cards
    only), else the card tables (and then stored for the next process)."""
    where = [cards.c.work_id == work_id, cards.c.status.in_(sorted(statuses))]
    stored = statuses == CONFIRMED

    def load(token: str | None) -> tuple[tuple[Row, ...], bool]:
        with many_objects():
            if token is not None:  # a cache miss: the book will be kept
                keep_built()
            if stored and token is not None:
                found = read_book(conn, work_id, token)
                if found is not None:
                    return found, False
            return load_card_rows(conn, work_id, where), True

    def store(token: str, rows: tuple[Row, ...]) -> None:
        if stored:
            store_book(conn, work_id, token, rows)

    return cached_book(conn, work_id, statuses, load, store)
