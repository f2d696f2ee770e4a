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

Cached cards are shared between readers: they are frozen models and nobody may change their
lists. Each read gets a new list.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import Connection, text

from muse.knowledge.contracts import Card

MAX_ENTRIES = 4  # books kept; a 5,000-card book is some 300,000 objects

_SQLITE = "SELECT token, 0 FROM knowledge_versions WHERE work_id = :work"
_POSTGRESQL = (
    "SELECT token, writer_xid = pg_current_xact_id_if_assigned()::text::bigint "
    "FROM knowledge_versions WHERE work_id = :work"
)

Key = tuple[int, str, frozenset[str]]


@dataclass
class CacheStats:
    hits: int = 0
    misses: int = 0
    bypassed: int = 0  # no token yet, or the reader's own transaction changed the cards


_lock = threading.Lock()
_entries: OrderedDict[Key, tuple[Card, ...]] = OrderedDict()
stats = CacheStats()


def change_token(conn: Connection, work_id: int) -> tuple[str | None, bool]:
    """The work's change token (None: its cards were never written) and whether the current
    transaction holds uncommitted changes of them (known on PostgreSQL only)."""
    sql = _POSTGRESQL if conn.dialect.name == "postgresql" else _SQLITE
    row = conn.execute(text(sql), {"work": work_id}).first()
    if row is None:
        return None, False
    return row[0], bool(row[1])


def cached_cards(
    conn: Connection, work_id: int, statuses: frozenset[str], load: Callable[[], list[Card]]
) -> list[Card]:
    """The cards ``load`` returns, from the cache when the work has not changed since."""
    token, mine = change_token(conn, work_id)
    if token is None or mine:
        stats.bypassed += 1
        return load()
    key = (work_id, token, statuses)
    with _lock:
        found = _entries.get(key)
        if found is not None:
            _entries.move_to_end(key)
            stats.hits += 1
            return list(found)
    stats.misses += 1
    loaded = load()
    if change_token(conn, work_id) == (token, False):
        with _lock:
            _entries[key] = tuple(loaded)
            while len(_entries) > MAX_ENTRIES:
                _entries.popitem(last=False)
    return loaded


def clear() -> None:
    """Forget every cached book (tests, and a process that wants its memory back)."""
    with _lock:
        _entries.clear()
