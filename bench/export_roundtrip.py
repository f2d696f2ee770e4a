"""Export round trip on the two shared novels: import → export (txt, md, epub) → import again.

    .venv/bin/python bench/export_roundtrip.py [--database-url URL]

Prints, per novel and format: chapters, seconds to export, chapters that did not come back the
same (number, title, heading as imported, text; should be 0), and the EPUB's size and chapter
count as read back by EbookLib. The shared corpus is read from ../shared/corpus.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from ebooklib import epub

from muse.store.engine import make_engine
from muse.store.migrate import upgrade
from muse.works.export import export_book, export_epub, round_trip_differences
from muse.works.importer import import_book

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--database-url", default=None, help="default: a fresh SQLite file")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp())
    engine = make_engine(args.database_url or f"sqlite:///{folder}/bench.db")
    upgrade(engine)
    novels = sorted(CORPUS.glob("*.txt"))
    if not novels:
        raise SystemExit(f"shared corpus not found at {CORPUS}")
    for path in novels:
        report = import_book(engine, path.read_bytes(), title=path.stem)
        with engine.connect() as conn:
            for fmt in ("txt", "md"):
                started = time.perf_counter()
                export_book(conn, report.work_id, fmt)
                seconds = time.perf_counter() - started
                problems = round_trip_differences(conn, report.work_id, fmt)
                print(
                    f"{path.stem:<12} {fmt:<4} chapters {len(report.chapters):>4}  "
                    f"export {seconds:6.3f} s  not the same after re-import: {len(problems)}"
                    + (f"  e.g. {problems[:3]}" if problems else "")
                )
            started = time.perf_counter()
            data = export_epub(conn, report.work_id)
            seconds = time.perf_counter() - started
        target = folder / f"{path.stem}.epub"
        target.write_bytes(data)
        book = epub.read_epub(str(target))
        pages = [i for i in book.get_items() if i.file_name.startswith("chapter-")]
        print(
            f"{path.stem:<12} epub chapters {len(pages):>4}  export {seconds:6.3f} s  "
            f"size {len(data) / 1024:,.0f} KiB  read back: {book.get_metadata('DC', 'title')[0][0]}"
        )


if __name__ == "__main__":
    main()
