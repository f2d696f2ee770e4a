"""Storage benchmark: the SQLite file after importing and indexing a 2,000-chapter book.

    .venv/bin/python bench/index_size.py

Imports the synthetic ~5-million-character book into a fresh SQLite file, builds its search
index, checkpoints the WAL, and prints the file size against the raw text (the book's UTF-8
bytes) with the largest tables (``dbstat``). Target: under 3x the raw text (issue 12; it was
4.7x while ``search_chunks`` kept a second copy of the text).
"""

from __future__ import annotations

import sqlite3
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from synthetic_book import synthetic_web_novel  # noqa: E402

from muse.context.search.index import rebuild_index  # noqa: E402
from muse.store.engine import make_engine  # noqa: E402
from muse.store.migrate import upgrade  # noqa: E402
from muse.works.importer import import_book  # noqa: E402

TARGET = 3.0
MIB = 2**20


def main() -> None:
    path = Path(tempfile.mkdtemp()) / "size.db"
    engine = make_engine(f"sqlite:///{path}")
    upgrade(engine)
    raw = synthetic_web_novel().encode("utf-8")
    work_id = import_book(engine, raw, title="synthetic").work_id
    with engine.begin() as conn:
        rebuild_index(conn, work_id)
    engine.dispose()
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    try:
        tables = db.execute(
            "SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC LIMIT 5"
        ).fetchall()
    except sqlite3.OperationalError:  # SQLite built without dbstat
        tables = []
    db.close()
    size = path.stat().st_size
    ratio = size / len(raw)
    print(f"raw text {len(raw) / MIB:.1f} MiB; SQLite file after indexing {size / MIB:.1f} MiB")
    for name, bytes_ in tables:
        print(f"  {name:<28} {bytes_ / MIB:>6.1f} MiB")
    verdict = "ok" if ratio < TARGET else "LARGE"
    print(f"file / raw text = {ratio:.2f}x ({verdict}, target < {TARGET}x)")


if __name__ == "__main__":
    main()
