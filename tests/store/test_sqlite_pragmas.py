"""Every SQLite connection of a Muse engine is configured the same way (store.engine)."""

from __future__ import annotations

from pathlib import Path

import pytest

from muse.store.engine import MMAP_BYTES, make_engine


@pytest.mark.sqlite_only
@pytest.mark.parametrize(
    ("pragma", "expected"),
    [
        ("journal_mode", "wal"),
        ("foreign_keys", 1),
        ("synchronous", 1),  # NORMAL
        ("mmap_size", MMAP_BYTES),
    ],
)
def test_each_connection_has_the_pragmas(tmp_path: Path, pragma: str, expected: object) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'p.db'}")
    try:
        for _ in range(2):  # a fresh connection each time, not only the pool's first
            with engine.connect() as conn:
                assert conn.exec_driver_sql(f"PRAGMA {pragma}").scalar() == expected
            engine.dispose()
    finally:
        engine.dispose()
