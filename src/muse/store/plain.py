"""A plain read path: the database driver itself, without SQLAlchemy (or pydantic).

Why: importing SQLAlchemy costs ~900 M instructions (~0.35–0.5 s CPU), more than the whole
budget of a command a script runs often (issue 12: ``muse chapters --json`` under 0.35 s). Such a
command first tries this path: the driver (``sqlite3``, or psycopg for PostgreSQL), plain SQL,
plain tuples. The path answers only the ordinary case. Whatever else it meets (a URL it does not
know, a database file that does not exist, a schema that is not at the scripts' heads, any driver
error) it reports by :class:`PlainUnavailable` or by ``None``, and the command then runs its full
path, which migrates, sweeps and reports errors exactly as before. So the plain path can make a
command faster, never different: ``tests/store/test_plain_reads.py`` compares both paths'
answers on both backends.

Only reads go through here. Statements are written with ``?`` placeholders and never with a
literal ``?`` or ``%``; for psycopg they are rewritten to ``%s``.
"""

from __future__ import annotations

from contextlib import suppress
from typing import Any
from urllib.parse import quote

from muse.store.heads import script_heads
from muse.store.urls import database_url

SQLITE_BUSY_TIMEOUT_S = 30  # as make_engine sets it


class PlainUnavailable(Exception):
    """The plain path cannot answer; the caller runs its full path instead."""


class PlainReader:
    """One driver connection in autocommit mode, for reads."""

    def __init__(self, raw: Any, errors: tuple[type[Exception], ...], pyformat: bool) -> None:
        self._raw = raw
        self._errors: tuple[type[Exception], ...] = (*errors, OverflowError)
        self._pyformat = pyformat

    def rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        if self._pyformat:
            sql = sql.replace("?", "%s")
        try:
            cur = self._raw.cursor()
            try:
                cur.execute(sql, params)
                return list(cur.fetchall())
            finally:
                cur.close()
        except self._errors as err:  # OverflowError: an int SQLite cannot bind
            raise PlainUnavailable(str(err)) from err

    def schema_is_current(self) -> bool:
        """The database records exactly the scripts' heads (as ``migrate.is_up_to_date``)."""
        return {r[0] for r in self.rows("SELECT version_num FROM alembic_version")} == set(
            script_heads()
        )

    def close(self) -> None:
        with suppress(*self._errors):
            self._raw.close()

    def __enter__(self) -> PlainReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_reader(url: str | None = None) -> PlainReader:
    """A reader for the database ``database_url(url)`` names; :class:`PlainUnavailable` when the
    URL is not a plain one (a query string, an escaped path, an in-memory database, another
    driver) or the database cannot be opened as it is (a missing SQLite file is not created here:
    the full path creates and migrates it)."""
    url = database_url(url)
    if url.startswith("sqlite:///") and not any(c in url for c in "?%#"):
        path = url[len("sqlite:///") :]
        if path and path != ":memory:":
            return _sqlite(path)
    prefix = "postgresql+psycopg://"
    if url.startswith(prefix):
        return _postgresql("postgresql://" + url[len(prefix) :])
    raise PlainUnavailable("not a plain database URL")


def _sqlite(path: str) -> PlainReader:
    import sqlite3

    try:
        raw = sqlite3.connect(
            f"file:{quote(path)}?mode=rw",
            uri=True,
            timeout=SQLITE_BUSY_TIMEOUT_S,
            isolation_level=None,
        )
    except sqlite3.Error as err:
        raise PlainUnavailable(str(err)) from err
    return PlainReader(raw, (sqlite3.Error,), pyformat=False)


def _postgresql(conninfo: str) -> PlainReader:
    import psycopg

    try:
        raw = psycopg.connect(conninfo, autocommit=True)
    except (psycopg.Error, ValueError) as err:
        raise PlainUnavailable(str(err)) from err
    return PlainReader(raw, (psycopg.Error,), pyformat=True)
