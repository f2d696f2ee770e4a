"""Discovery benchmark: model-free entity discovery on the two shared novels (`muse cards discover`).

    .venv/bin/python bench/discovery.py [--show N]

For each novel (read from ../shared/corpus; benchmarks may, tests never do) the book is split into
chapters by the importer's parser, then ``discover`` runs once. It prints:

* **recall**: of the people in the hand-made list whose names occur >= 20 times, the share for
  which discovery proposes one of their names (the proposal's name or a suggested alias);
* **first appearance exact**: of those found, the share whose proposed first chapter equals the
  first chapter in which any listed name of that person occurs;
* **precision@100**: of the 100 most mentioned proposals, the share whose name is a listed named
  entity (person, place, organisation, item) — anything else counts as wrong;
* **seconds** (wall and CPU) and seconds per million characters, and the time for one
  1,000,000-character book made of the novels' chapters. Targets: recall >= 90 %,
  first appearance >= 95 %, precision >= 70 %, under 10 s for a 1-million-character book.

The lists are bench/data/<book>_entities.tsv (one entity a line, ``type<TAB>name|alias|…``).

A third book is ``tests/fixtures/books/modern_webnovel.txt``: a modern 都市/仙侠 web novel written
for this test (33 chapters, 30,504 Han characters, with author notes between chapters, which are
removed as the importer removes them), with its list made by hand by its author
(``modern_webnovel_entities.tsv`` beside it). Being short, it is also scored for people with >= 5
mentions.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent.parent / "shared" / "corpus"
DATA = HERE / "data"
FIXTURES = HERE.parent / "tests" / "fixtures" / "books"
MODERN = FIXTURES / "modern_webnovel.txt"
MIN_MENTIONS = 20

from muse.knowledge.discovery import DiscoveredEntity, discover  # noqa: E402
from muse.works.author_notes import split_notes  # noqa: E402
from muse.works.book_decoding import decode_book  # noqa: E402
from muse.works.book_parser import parse_book  # noqa: E402


@dataclass(frozen=True)
class Listed:
    type: str
    names: tuple[str, ...]


def load_list(book: str) -> list[Listed]:
    out = []
    data = FIXTURES if (FIXTURES / f"{book}_entities.tsv").exists() else DATA
    for line in (data / f"{book}_entities.tsv").read_text("utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            kind, names = line.split("\t")
            out.append(Listed(kind, tuple(n for n in names.split("|") if len(n) >= 2)))
    return out


def chapters_of(path: Path) -> list[tuple[int, str]]:
    """The chapters as the importer stores them: author notes kept out of the prose."""
    book = parse_book(decode_book(path.read_bytes()).text)
    return [(i, split_notes(i, c.body)[0]) for i, c in enumerate(book.chapters, 1)]


def _mentions(names: tuple[str, ...], chapters: list[tuple[int, str]]) -> tuple[int, int | None]:
    """Occurrences of the person's longest-matching names, and the first chapter naming them."""
    pattern = re.compile("|".join(re.escape(n) for n in sorted(names, key=len, reverse=True)))
    total, first = 0, None
    for number, text in chapters:
        n = len(pattern.findall(text))
        total += n
        if first is None and n:
            first = number
    return total, first


def evaluate(
    book: str,
    entities: list[DiscoveredEntity],
    chapters,
    show: int,
    min_mentions: int = MIN_MENTIONS,
) -> dict:
    listed = load_list(book)
    proposed: dict[str, DiscoveredEntity] = {}
    for e in entities:
        for name in [e.name, *(a.name for a in e.aliases)]:
            proposed.setdefault(name, e)
    people = [p for p in listed if p.type == "person"]
    frequent = [(p, *_mentions(p.names, chapters)) for p in people]
    frequent = [(p, n, first) for p, n, first in frequent if n >= min_mentions]
    found, exact, missed, wrong_first = 0, 0, [], []
    for person, _, first in frequent:
        hits = [proposed[n] for n in person.names if n in proposed]
        if not hits:
            missed.append(person.names[0])
            continue
        found += 1
        got = min(h.first.chapter for h in hits)
        if got == first:
            exact += 1
        else:
            wrong_first.append(f"{person.names[0]}: {got} ≠ {first}")
    known = {n for e in listed for n in e.names}
    top = entities[:100]
    right = [e for e in top if e.name in known]
    wrong = [e.name for e in top if e.name not in known]
    if show:
        for e in entities[:show]:
            mark = "✓" if e.name in known else "✗"
            aliases = "、".join(a.name for a in e.aliases)
            print(f"  {mark} {e.mentions:5d} {e.name} [{e.type}] ch{e.first.chapter} {aliases}")
    return {
        "people>=20": len(frequent),
        "recall": found / len(frequent) if frequent else 0.0,
        "first_exact": exact / found if found else 0.0,
        "precision@100": len(right) / len(top) if top else 0.0,
        "missed": missed,
        "wrong_first": wrong_first,
        "wrong_top100": wrong,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--show", type=int, default=0, help="print the first N proposals")
    args = parser.parse_args()
    books = sorted(CORPUS.glob("*.txt"))
    if not books:
        sys.exit(f"shared corpus not found at {CORPUS}")
    for path in [*books, MODERN]:
        chapters = chapters_of(path)
        chars = sum(len(t) for _, t in chapters)
        wall, cpu = time.perf_counter(), time.process_time()
        entities = discover(chapters)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        result = evaluate(path.stem, entities, chapters, args.show)
        print(
            f"{path.stem}: {len(chapters)} chapters, {chars:,} chars, {len(entities)} proposals; "
            f"{wall:.2f} s wall, {cpu:.2f} s CPU ({cpu / chars * 1e6:.2f} s CPU per 1M chars)"
        )
        print(
            f"  recall (people >= {MIN_MENTIONS} mentions, n={result['people>=20']}): "
            f"{result['recall']:.1%}   first appearance exact: {result['first_exact']:.1%}   "
            f"precision@100: {result['precision@100']:.1%}"
        )
        if path == MODERN:
            five = evaluate(path.stem, entities, chapters, 0, min_mentions=5)
            print(
                f"  recall (people >= 5 mentions, n={five['people>=20']}): {five['recall']:.1%}"
                f"   first appearance exact: {five['first_exact']:.1%}"
                f"   missed: {'、'.join(five['missed']) or '-'}"
            )
        print(f"  missed: {'、'.join(result['missed']) or '-'}")
        print(f"  first appearance off: {'; '.join(result['wrong_first']) or '-'}")
        print(f"  top-100 not listed: {'、'.join(result['wrong_top100']) or '-'}")
    million(books)


def million(books: list[Path]) -> None:
    """One book of 1,000,000 characters: the novels' chapters one after another, cut there."""
    chapters, size = [], 0
    for path in books:
        for _, text in chapters_of(path):
            if size >= 1_000_000:
                break
            text = text[: 1_000_000 - size]
            chapters.append((len(chapters) + 1, text))
            size += len(text)
    wall, cpu = time.perf_counter(), time.process_time()
    entities = discover(chapters)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(
        f"1,000,000-character book ({len(chapters)} chapters of the novels above): "
        f"{len(entities)} proposals, {wall:.2f} s wall, {cpu:.2f} s CPU (target < 10 s)"
    )


if __name__ == "__main__":
    main()
