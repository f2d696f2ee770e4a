"""The leak lexicon: names the book only reveals after the freeze point (spec 000 §9, §2.2).

Future leakage is a blocking mechanical finding: the candidate names a card, alias or term whose
first appearance is after ``as_of``. The lexicon is the detector's material only. It is built
beside the WriterContext, never inside it, and nothing here is ever handed to a writer: the
names in it are exactly what the writer must not learn.

Where the terms come from
  * every card of the work, whatever its status (a draft extracted from a later chapter names a
    later entity just as well), dated by :mod:`muse.knowledge.first_appearance`: a term is a leak
    when its first chapter is after ``as_of``, or when it never provably appears (a claimed
    登场 that cannot be proven: fail closed). A term several cards share is dated by the
    earliest of them; when a confirmed card owns it, only confirmed owners count (the author's
    cards are the authority, a stray draft cannot date a name earlier);
  * in replay, terms supplied by the harness (``extra_terms``: names first appearing in the
    chapters after ``as_of``, with that chapter). A harness term overrides a card date.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from sqlalchemy import Connection

from muse.core.errors import InvalidInput
from muse.core.text import normalize_text
from muse.knowledge import TermAppearance, term_appearances


@dataclass(frozen=True)
class LeakTerm:
    """A term that must not appear yet, and where that knowledge comes from."""

    term: str
    first_chapter: int | None  # None: the card's debut cannot be proven (it never exists)
    origin: str  # card | alias | harness
    card_id: str | None = None
    card_name: str | None = None

    def describe(self) -> str:
        """Why the term is in the future, in Chinese, for a finding message."""
        when = (
            f"第 {self.first_chapter} 章才首次出现"
            if self.first_chapter is not None
            else "登场章无法证明（视为尚未出现）"
        )
        if self.origin == "alias":
            return f"是「{self.card_name}」的别名，{when}"
        if self.origin == "card":
            return f"是卡片「{self.card_name}」的名称，{when}"
        return f"据回放原文，{when}"


@dataclass(frozen=True)
class LeakLexicon:
    """Terms in the future of ``as_of`` (``terms``) and the card terms already known (``known``).

    ``known`` is no secret (those cards exist as of the freeze); the gate uses it so that a leak
    term inside a longer known name is not reported (小明 inside 王小明).
    """

    work_id: int
    as_of: int
    terms: Mapping[str, LeakTerm]
    known: frozenset[str] = frozenset()

    def __contains__(self, term: str) -> bool:
        return term in self.terms

    def __len__(self) -> int:
        return len(self.terms)


HarnessTerm = str | tuple[str, int]


def build_leak_lexicon(
    conn: Connection, work_id: int, as_of: int, *, extra_terms: Iterable[HarnessTerm] = ()
) -> LeakLexicon:
    """The leak lexicon of ``work_id`` at ``as_of`` (two queries, whatever the book's size).

    ``extra_terms``: ``(term, first chapter)`` pairs from a replay harness; the chapter must be
    after ``as_of``. A bare string is a term whose first chapter the harness does not say.
    """
    return leak_lexicon_from(term_appearances(conn, work_id), work_id, as_of, extra_terms)


def leak_lexicon_from(
    appearances: Iterable[TermAppearance],
    work_id: int,
    as_of: int,
    extra_terms: Iterable[HarnessTerm] = (),
) -> LeakLexicon:
    terms: dict[str, LeakTerm] = {}
    known: set[str] = set()
    for term, owner in dating_owners(appearances).items():
        if owner.first_chapter is not None and owner.first_chapter <= as_of:
            known.add(term)
        else:
            terms[term] = LeakTerm(
                term=term,
                first_chapter=owner.first_chapter,
                origin="alias" if owner.role == "alias" else "card",
                card_id=owner.card_id,
                card_name=owner.card_name,
            )
    for leak in _harness_terms(extra_terms, as_of):
        terms[leak.term] = leak
        known.discard(leak.term)
    return LeakLexicon(work_id=work_id, as_of=as_of, terms=terms, known=frozenset(known))


def dating_owners(appearances: Iterable[TermAppearance]) -> dict[str, TermAppearance]:
    """term → the appearance that dates it: the earliest, among confirmed owners if any."""
    owners: dict[str, list[TermAppearance]] = defaultdict(list)
    for a in appearances:
        term = normalize_text(a.term).strip()
        if term:
            owners[term].append(a)
    dated = {}
    for term, found in owners.items():
        confirmed = [a for a in found if a.status == "confirmed"]
        dated[term] = min(confirmed or found, key=_earliest)
    return dated


def _earliest(a: TermAppearance) -> tuple[float, str]:
    chapter = float("inf") if a.first_chapter is None else a.first_chapter
    return chapter, a.card_id  # ties broken by card id: the same lexicon every time


def _harness_terms(extra_terms: Iterable[HarnessTerm], as_of: int) -> list[LeakTerm]:
    out = []
    for item in extra_terms:
        term, chapter = (item, None) if isinstance(item, str) else item
        term = normalize_text(term).strip()
        if not term:
            raise InvalidInput("泄漏词表中有空词条。")
        if chapter is not None and chapter <= as_of:
            raise InvalidInput(
                f"泄漏词条「{term}」的首次出现章（第 {chapter} 章）不晚于冻结点第 {as_of} 章，"
                "不是未来信息。",
                hint="回放词表只收冻结点之后才首次出现的名称。",
            )
        out.append(LeakTerm(term=term, first_chapter=chapter, origin="harness"))
    return out
