"""The stored card book: a work's confirmed cards as one derived blob (table ``card_book_cache``).

A new process (every ``muse`` command) starts with an empty card cache, and reading a large work
from the card tables is four queries over a quarter of a million rows: most of a second before
anything is computed. So, after such a read, the plain rows (card_rows.py) are stored as one
``marshal`` blob keyed by the work's change token; the next process reads one row and decodes it
in a few tens of milliseconds. ``marshal`` decodes plain values only (tuples, lists, strings,
numbers, None) and the payload is checked to be a tuple of card rows of the expected layout;
nothing read from the database is ever unpickled.

Validity is the token's: database triggers replace ``knowledge_versions.token`` in the same
transaction as any write to the card tables, so a blob whose token is not the current one is
simply not read (and is replaced by the next store). The blob is written in a transaction of its
own, only if the token is still the committed one, and never waits for a lock: a reader must not
block on a writer for a cache. When the database is busy (on SQLite the reader's own connection
holds the write lock while its transaction lasts), the store is retried once when the process
exits. ``muse rebuild`` drops the blob; losing it only costs the next read its speed.
"""

from __future__ import annotations

import atexit
import logging
import marshal
import threading
from collections.abc import Callable
from typing import Any

from sqlalchemy import Connection, Engine, delete, insert, select, text
from sqlalchemy.exc import SQLAlchemyError

from muse.knowledge.card_rows import Row
from muse.knowledge.tables import card_book_cache

log = logging.getLogger(__name__)

FORMAT = f"card-rows-1/marshal-{marshal.version}"
CARD_ROW_LENGTH = 16

_pending_lock = threading.Lock()
_pending: dict[tuple[int, int], tuple[Engine, int, str, bytes]] = {}


def read_book(conn: Connection, work_id: int, token: str) -> tuple[Row, ...] | None:
    """The stored rows of the work's confirmed cards at ``token``, or None (none stored)."""
    t = card_book_cache.c
    found = conn.execute(
        select(t.payload).where(t.work_id == work_id, t.token == token, t.format == FORMAT)
    ).scalar()
    if found is None:
        return None
    try:
        rows = marshal.loads(found)
    except (EOFError, ValueError, TypeError):
        log.warning("card book of work %s is unreadable; reading the card tables", work_id)
        return None
    if not isinstance(rows, tuple) or not all(
        type(r) is tuple and len(r) == CARD_ROW_LENGTH for r in rows
    ):
        log.warning("card book of work %s has another layout; reading the card tables", work_id)
        return None
    return rows


def store_book(conn: Connection, work_id: int, token: str, rows: tuple[Row, ...]) -> None:
    """Store ``rows`` (read at ``token``) for the next process; best effort, never waits."""
    engine = conn.engine
    payload = marshal.dumps(rows)
    if not _store(engine, work_id, token, payload):
        with _pending_lock:
            _pending[(id(engine), work_id)] = (engine, work_id, token, payload)


def _store(engine: Engine, work_id: int, token: str, payload: bytes) -> bool:
    """Write the blob in a transaction of its own; False if the database was busy."""
    try:
        with engine.connect() as conn:
            restore = _no_waiting(conn)
            try:
                with conn.begin():
                    if conn.dialect.name == "postgresql":
                        conn.exec_driver_sql("SET LOCAL lock_timeout = '50ms'")
                    _replace(conn, work_id, token, payload)
            finally:
                restore()
        return True
    except SQLAlchemyError as error:  # busy, or a concurrent store won: the cache can wait
        log.debug("card book of work %s not stored now: %s", work_id, error)
        return False


def _replace(conn: Connection, work_id: int, token: str, payload: bytes) -> None:
    current = conn.execute(
        text("SELECT token FROM knowledge_versions WHERE work_id = :work"), {"work": work_id}
    ).scalar()
    if current != token:  # changed since the read: the blob would be stale at birth
        return
    t = card_book_cache.c
    conn.execute(delete(card_book_cache).where(t.work_id == work_id))
    conn.execute(
        insert(card_book_cache).values(work_id=work_id, token=token, format=FORMAT, payload=payload)
    )


def _no_waiting(conn: Connection) -> Callable[[], None]:
    """On SQLite, make ``conn`` fail at once on a lock instead of waiting (set before its BEGIN
    IMMEDIATE, which is what waits); returns the undo. PostgreSQL sets a lock timeout in the
    transaction itself."""
    if conn.dialect.name != "sqlite":
        return lambda: None
    raw: Any = conn.connection.driver_connection
    before = raw.execute("PRAGMA busy_timeout").fetchone()[0]
    raw.execute("PRAGMA busy_timeout = 0")
    return lambda: raw.execute(f"PRAGMA busy_timeout = {int(before)}").close()


def drop_book(conn: Connection, work_id: int) -> None:
    """Forget the stored book of a work (``muse rebuild``: derived data is recomputed)."""
    conn.execute(delete(card_book_cache).where(card_book_cache.c.work_id == work_id))


@atexit.register
def store_pending() -> None:
    """Retry the stores a busy database refused (at exit, when the readers are done)."""
    with _pending_lock:
        pending = list(_pending.values())
        _pending.clear()
    for engine, work_id, token, payload in pending:
        _store(engine, work_id, token, payload)
