"""The stored card book: a work's confirmed cards as one derived blob (table ``card_book_cache``).

A new process (every ``muse`` command) starts with an empty card cache, and reading a large work
from the card tables is four queries over a quarter of a million rows: most of a second before
anything is computed. So, after such a read, the plain rows (speed/rows.py) are stored as one
``marshal`` blob keyed by the work's change token; the next process reads one row and decodes it
in a few tens of milliseconds. ``marshal`` decodes plain values only (tuples, lists, strings,
numbers, None) and the payload is checked to be a tuple of card rows of the expected layout;
nothing read from the database is ever unpickled.

Validity is the token's: database triggers replace ``knowledge_versions.token`` in the same
transaction as any write to the card tables, so a blob whose token is not the current one is
simply not read (and is replaced by the next store). The blob is written only if the token is
still the committed one. ``muse rebuild`` drops the blob; losing it only costs the next read its
speed.

Storing is off the reader's path: :func:`store_book` only queues the rows, and once the
reader's result is built (the outermost ``many_objects`` block ends, speed/loading.py) a
background thread encodes them and writes the blob in a transaction and on a connection of its own (20 MB
for a 5,000-card book: most of a second of wall time on PostgreSQL, and on SQLite the reader's
own transaction holds the write lock until it ends). The thread may wait for the lock; nobody
waits for the thread, except the process at its exit (:func:`store_pending`, at most
``EXIT_WAIT`` seconds), so that a short command still leaves the book for the next one. This
replaces the earlier "retry at exit only if the database was busy": one path for both backends,
no blob encoded while the reader waits, and the store usually done before the process ends.
A store that fails (busy past the wait, the database gone) is only logged: the next process
reads the tables and stores again.
"""

from __future__ import annotations

import atexit
import logging
import marshal
import threading
import time

from sqlalchemy import Connection, Engine, delete, insert, select, text
from sqlalchemy.exc import OperationalError

from muse.knowledge.speed.loading import after_build
from muse.knowledge.speed.rows import Row
from muse.knowledge.tables import card_book_cache, knowledge_versions

log = logging.getLogger(__name__)

FORMAT = f"card-rows-1/marshal-{marshal.version}"
CARD_ROW_LENGTH = 16

EXIT_WAIT = 30.0  # seconds a process waits at exit for the stores it queued
# PostgreSQL: the store gives way at once to anyone holding a lock it needs (a schema change,
# DROP SCHEMA …) rather than wait and risk being half of a deadlock; it retries a little later.
# SQLite: it waits for the write lock as any writer does (the engine's busy timeout).
LOCK_WAIT_MS = 100
RETRY_AFTER = (0.2, 1.0)  # seconds before the second and third attempt

_pending_lock = threading.Lock()
_pending: dict[tuple[int, int], tuple[Engine, int, str, tuple[Row, ...]]] = {}
_writer: threading.Thread | None = None


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
    """Queue ``rows`` (read at ``token``) to be stored for the next process; returns at once.

    A later store of the same work replaces a queued one that was not written yet.
    """
    with _pending_lock:
        _pending[(id(conn.engine), work_id)] = (conn.engine, work_id, token, rows)
    after_build(_start_writer)  # once the reader's result is built: encoding takes the GIL


def _start_writer() -> None:
    global _writer
    with _pending_lock:
        if _writer is None and _pending:
            _writer = threading.Thread(target=_write_pending, name="muse-card-book", daemon=True)
            _writer.start()


def _write_pending() -> None:
    """The writer thread: store what is queued, then end (a new one starts for new stores)."""
    global _writer
    while True:
        with _pending_lock:
            if not _pending:
                _writer = None
                return
            engine, work_id, token, rows = _pending.pop(next(iter(_pending)))
        payload = marshal.dumps(rows)
        for pause in (0.0, *RETRY_AFTER):
            time.sleep(pause)
            try:
                _store(engine, work_id, token, payload)
                break
            except OperationalError as error:  # busy (lock timeout), or the database is gone
                log.debug("card book of work %s not stored now: %s", work_id, error)
            except Exception as error:  # a cache must never break anything: the next read stores
                log.debug("card book of work %s not stored: %s", work_id, error)
                break


def store_pending(timeout: float | None = None) -> None:
    """Wait until the queued stores are written (tests; the process at its exit)."""
    with _pending_lock:
        writer = _writer
    if writer is not None:
        writer.join(timeout)


@atexit.register
def _store_at_exit() -> None:
    store_pending(EXIT_WAIT)


def _store(engine: Engine, work_id: int, token: str, payload: bytes) -> None:
    """Write the blob in a transaction of its own (which may wait for the write lock)."""
    with engine.connect() as conn, conn.begin():
        if conn.dialect.name == "postgresql":
            conn.exec_driver_sql(f"SET LOCAL lock_timeout = '{LOCK_WAIT_MS}ms'")
        _replace(conn, work_id, token, payload)


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


def drop_book(conn: Connection, work_id: int) -> None:
    """Forget the stored book of a work (``muse rebuild``: derived data is recomputed)."""
    conn.execute(delete(card_book_cache).where(card_book_cache.c.work_id == work_id))


def cache_overview(conn: Connection, work_id: int) -> dict[str, object]:
    """The work's derived caches as the workbench shows them: the change token of its cards
    (``knowledge_versions``) and the stored card book (``card_book_cache``) — its token, format,
    size, and whether it is valid (its token is the current one)."""
    version = conn.execute(
        select(knowledge_versions).where(knowledge_versions.c.work_id == work_id)
    ).first()
    book = conn.execute(
        select(
            card_book_cache.c.token,
            card_book_cache.c.format,
            card_book_cache.c.payload,
        ).where(card_book_cache.c.work_id == work_id)
    ).first()
    return {
        "revision": version.revision if version else None,
        "token": version.token if version else None,
        "book": None
        if book is None
        else {
            "token": book.token,
            "format": book.format,
            "bytes": len(book.payload),
            "valid": version is not None and book.token == version.token,
            "formatCurrent": book.format == FORMAT,
        },
    }
