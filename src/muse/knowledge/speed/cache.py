"""The card cache: a work's cards kept in memory for as long as they do not change.

Loading a large book (5,000 cards, 100,000 milestones, 125,000 source references) takes about a
second; the pipeline reads the same cards for every chapter it writes. The cache is keyed by the
work's change token (table ``knowledge_versions``, migration 0015), which database triggers
replace in the same transaction as any write to cards, milestones, relations or source
references, whatever code (or SQL) makes it. So:

* a committed change is seen by the next read of any connection: its token is new;
* a rolled-back change leaves the old token, and the cached cards of that token are still right;
  a token is random and never comes back with other content;
* a transaction that changed the cards itself reads them past the cache on PostgreSQL (its
  token stays the same for the whole transaction); on SQLite every changed row draws a new
  token, so its own reads miss the cache;
* the token is read before and after a load; a load that a concurrent commit may have mixed is
  not kept.

What is cached is the plain rows of the cards (speed/rows.py) and what readers derive from them
(the card models, the prepared as-of rules), in one :class:`CachedBook` per work and token;
a cache miss first looks for the stored book of the token (speed/book.py), which a previous
process may have left. Cached objects are shared between readers: they are frozen models and
plain tuples, and nobody may change their lists. Each read of cards gets a new list.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, text

from muse.knowledge.speed.rows import Row
from muse.store.prepared import Prepared

MAX_ENTRIES = 4  # books kept; a 5,000-card book is some 400,000 tuples

_SQLITE = "SELECT token, 0 FROM knowledge_versions WHERE work_id = :work"
_POSTGRESQL = (
    "SELECT token, writer_xid = pg_current_xact_id_if_assigned()::text::bigint "
    "FROM knowledge_versions WHERE work_id = :work"
)

_TOKEN_SQLITE = Prepared(text(_SQLITE), keys=("work",))
_TOKEN_POSTGRESQL = Prepared(text(_POSTGRESQL), keys=("work",))

Key = tuple[int, str, frozenset[str]]


@dataclass
class CacheStats:
    hits: int = 0
    misses: int = 0
    bypassed: int = 0  # no token yet, or the reader's own transaction changed the cards


@dataclass
class CachedBook:
    """A work's cards at one change token: their rows, and what readers derived from them."""

    rows: tuple[Row, ...]
    derived: dict[str, Any] = field(default_factory=dict)  # built lazily, see ``derive``
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def derive(self, name: str, build: Callable[[tuple[Row, ...]], Any]) -> Any:
        """``build(rows)``, once per book (cards as models, the prepared as-of rules …)."""
        found = self.derived.get(name)
        if found is None:
            with self._lock:
                found = self.derived.get(name)
                if found is None:
                    found = self.derived[name] = build(self.rows)
        return found


_lock = threading.Lock()
_entries: OrderedDict[Key, CachedBook] = OrderedDict()
stats = CacheStats()


def change_token(conn: Connection, work_id: int) -> tuple[str | None, bool]:
    """The work's change token (None: its cards were never written) and whether the current
    transaction holds uncommitted changes of them (known on PostgreSQL only)."""
    query = _TOKEN_POSTGRESQL if conn.dialect.name == "postgresql" else _TOKEN_SQLITE
    row = query.run(conn, work=work_id).first()
    if row is None:
        return None, False
    return row[0], bool(row[1])


def cached_book(
    conn: Connection,
    work_id: int,
    statuses: frozenset[str],
    load: Callable[[str | None], tuple[tuple[Row, ...], bool]],
    store: Callable[[str, tuple[Row, ...]], None] | None = None,
) -> CachedBook:
    """The cards ``load(token)`` returns, from the cache when the work has not changed since.

    ``load`` gives the rows and whether it read them from the card tables; ``token`` is None
    when they must not come from a stored book: the work has no token yet, or the reader's own
    transaction changed its cards. Rows read from the tables that no commit can have mixed are
    handed to ``store`` (speed/book.py) for the next process.
    """
    token, mine = change_token(conn, work_id)
    if token is None or mine:
        stats.bypassed += 1
        return CachedBook(load(None)[0])
    key = (work_id, token, statuses)
    with _lock:
        found = _entries.get(key)
        if found is not None:
            _entries.move_to_end(key)
            stats.hits += 1
            return found
    stats.misses += 1
    rows, from_tables = load(token)
    book = CachedBook(rows)
    if change_token(conn, work_id) == (token, False):
        if from_tables and store is not None:
            store(token, rows)
        with _lock:
            book = _entries.setdefault(key, book)
            _entries.move_to_end(key)
            while len(_entries) > MAX_ENTRIES:
                _entries.popitem(last=False)
    return book


def clear() -> None:
    """Forget every cached book (tests, and a process that wants its memory back)."""
    with _lock:
        _entries.clear()
