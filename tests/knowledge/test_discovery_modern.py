"""Discovery on a modern 都市/仙侠 web novel (tests/fixtures/books/modern_webnovel.txt, written for
these tests, with its people list made by hand): names without 曰, nicknames, surname + title
forms, families, and author notes between chapters that the importer keeps out of the prose."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from muse.knowledge.discovery import DiscoveredEntity, discover
from muse.works.author_notes import split_notes
from muse.works.book_parser import parse_book

BOOKS = Path(__file__).resolve().parents[1] / "fixtures" / "books"


@cache
def chapters() -> tuple[tuple[int, str], ...]:
    book = parse_book((BOOKS / "modern_webnovel.txt").read_text(encoding="utf-8"))
    return tuple((c.number, split_notes(c.number, c.body)[0]) for c in book.chapters)


@cache
def proposals() -> tuple[DiscoveredEntity, ...]:
    return tuple(discover(chapters()))


def by_name() -> dict[str, DiscoveredEntity]:
    out: dict[str, DiscoveredEntity] = {}
    for e in proposals():
        for name in [e.name, *(a.name for a in e.aliases)]:
            out.setdefault(name, e)
    return out


@dataclass(frozen=True)
class Case:
    name: str
    type: str
    first_chapter: int
    aliases: tuple[str, ...] = ()
    why: str = ""


CASES = [
    Case("林凡", "character", 1, why="a surname and a given name, speaking without 曰"),
    Case("李浩然", "character", 6, why="浩然 is an adjective to the dictionary"),
    Case("秦无双", "character", 4, why="无双 is a numeral to the dictionary"),
    Case("钱多多", "character", 10, why="多多 is a numeral to the dictionary"),
    Case("司马长空", "character", 28, why="a compound surname"),
    Case("血煞老祖", "character", 16, why="a name before a title"),
    Case("王大力", "character", 2, ("胖子",), why="a nickname, joined by 「胖子叫王大力，」"),
    Case("苏清雪", "character", 1, ("苏总",), why="the one 苏 with a given name"),
    Case("白薇", "character", 2, ("白秘书",), why="the card is named by the name, not the title"),
    Case("龙老", "character", 28, why="surname + 老, an elder"),
    Case("赵家", "faction", 1, why="surname + 家, a family"),
    Case("青云宗", "faction", 3),
    Case("九转玄功", "technique", 1),
    Case("青冥剑", "item", 8),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_modern_names_are_proposed_with_their_aliases_and_first_chapter(case):
    entity = {e.name: e for e in proposals()}.get(case.name)
    assert entity is not None, f"{case.name} not proposed ({case.why})"
    assert entity.type == case.type
    assert entity.first.chapter == case.first_chapter
    assert set(case.aliases) <= {a.name for a in entity.aliases}


def test_an_ambiguous_surname_title_joins_nobody():
    """「赵少」 could be 赵天龙 or 赵无极 by its surname alone: it is never guessed."""
    names = by_name()
    for full in ("赵天龙", "赵无极"):
        assert "赵少" not in {a.name for a in names[full].aliases}


def test_author_notes_propose_nothing():
    names = set(by_name())
    assert not names & {"月票", "推荐票", "作者", "书友", "风吹蛋蛋凉"}
    assert all("作者的话" not in text for _, text in chapters())


def _listed_people() -> list[tuple[str, ...]]:
    lines = (BOOKS / "modern_webnovel_entities.tsv").read_text(encoding="utf-8").splitlines()
    rows = [line.split("\t") for line in lines if line and not line.startswith("#")]
    return [tuple(names.split("|")) for kind, names in rows if kind == "person"]


def test_recall_of_the_people_named_five_times_or_more_is_at_least_ninety_percent():
    text = "\n".join(t for _, t in chapters())
    people = []
    for names in _listed_people():
        pattern = "|".join(sorted(map(re.escape, names), key=len, reverse=True))
        if len(re.findall(pattern, text)) >= 5:
            people.append(names)
    proposed = by_name()
    found = [names for names in people if any(n in proposed for n in names)]
    assert len(people) >= 20
    assert len(found) / len(people) >= 0.9, sorted(set(map(tuple, people)) - set(found))
