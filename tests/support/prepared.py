"""Database states that several tests start from, built once per test process (SQLite).

The workbench tests start from the demo book with its cards and outline, most of them also from
a candidate for chapter 5 — about a second of importing and writing per test. On SQLite the
first test builds the state as usual and keeps a copy of its database file; every later test
gets that copy written into its own fresh database (SQLite's online backup, page by page, so
the test's engine sees a consistent database) together with the ids the build returned. A test
still owns its database: what it changes is gone at the next restore.

Only the database is kept, so a build must leave its whole effect in the database and return
plain values. On PostgreSQL every test builds (its schema is emptied between tests).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import Engine

T = TypeVar("T")


class Prepared:
    def __init__(self, root: Path) -> None:
        self._root = root
        self._states: dict[str, tuple[Path, Any]] = {}

    def get(self, name: str, engine: Engine, build: Callable[[], T]) -> T:
        """``build()``'s value, and its database state in ``engine``: built the first time,
        restored from the kept copy afterwards."""
        if engine.dialect.name != "sqlite" or os.environ.get("MUSE_TEST_NO_PREPARED"):
            return build()
        kept = self._states.get(name)
        if kept is not None:
            path, value = kept
            source = sqlite3.connect(path)
            try:
                _backup(source, engine, into_engine=True)
            finally:
                source.close()
            return value  # type: ignore[no-any-return]
        value = build()
        path = self._root / f"{name}.db"
        target = sqlite3.connect(path)
        try:
            _backup(target, engine, into_engine=False)
        finally:
            target.close()
        self._states[name] = (path, value)
        return value


def _backup(file_conn: sqlite3.Connection, engine: Engine, *, into_engine: bool) -> None:
    raw = engine.raw_connection()
    try:
        live = raw.driver_connection
        assert isinstance(live, sqlite3.Connection)
        live.commit()
        if into_engine:
            file_conn.backup(live)
        else:
            live.backup(file_conn)
    finally:
        raw.close()
