"""Import benchmark: the two shared novels and a synthetic 2,000-chapter web novel.

    .venv/bin/python bench/import.py [--database-url URL]

Prints, per book: chapters, Han characters, seconds, chapters/s and Han chars/s, for the pure
parse and for the whole import (decode + split + one-transaction write). Targets on the 2-core
reference machine: each shared novel under 2 s, the ~5-million-character book under 2 s (issue 12; was 15 s).
The shared corpus is read from ../shared/corpus when it is there (benchmarks may; tests never do).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from synthetic_book import synthetic_web_novel  # noqa: E402

from muse.store.engine import make_engine  # noqa: E402
from muse.store.migrate import upgrade  # noqa: E402
from muse.works.book_decoding import decode_book  # noqa: E402
from muse.works.book_parser import parse_book  # noqa: E402
from muse.works.importer import import_book  # noqa: E402

CORPUS = HERE.parent.parent / "shared" / "corpus"
TARGETS = {"xiyouji": 2.0, "sanguoyanyi": 2.0, "synthetic-2000": 2.0}


def books() -> list[tuple[str, bytes]]:
    found = [(p.stem, p.read_bytes()) for p in sorted(CORPUS.glob("*.txt"))]
    if not found:
        print(f"(shared corpus not found at {CORPUS}; synthetic book only)")
    found.append(("synthetic-2000", synthetic_web_novel().encode("utf-8")))
    return found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--database-url", default=None, help="default: a fresh temporary SQLite file"
    )
    args = parser.parse_args()
    url = args.database_url or f"sqlite:///{tempfile.mkdtemp()}/bench.db"
    engine = make_engine(url)
    upgrade(engine)
    print(f"database: {engine.dialect.name}")
    print(
        f"{'book':<16}{'chapters':>9}{'han':>11}{'parse s':>9}{'import s':>10}"
        f"{'ch/s':>9}{'han/s':>12}  target"
    )
    for name, data in books():
        started = time.perf_counter()
        book = parse_book(decode_book(data).text)
        parse_s = time.perf_counter() - started
        started = time.perf_counter()
        report = import_book(engine, data, title=name, source_kind="public_domain")
        total = time.perf_counter() - started
        target = TARGETS.get(name)
        verdict = (
            "" if target is None else ("ok" if total < target else "SLOW") + f" (<{target:g} s)"
        )
        print(
            f"{name:<16}{len(book.chapters):>9}{report.han_count:>11}{parse_s:>9.2f}{total:>10.2f}"
            f"{len(report.chapters) / total:>9.0f}{report.han_count / total:>12.0f}  {verdict}"
        )


if __name__ == "__main__":
    main()
