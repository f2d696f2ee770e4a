"""The parts of the as-of rules that do not depend on ``as_of``: debuts, unprovable or misplaced
milestones, and the first chapter each name of a book may be mentioned in (:class:`BookTerms`).

The rules themselves are described in ``state_as_of.py``; ``state_prepared.py`` applies them.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from muse.knowledge.card_types import CardType
from muse.knowledge.contracts import (
    Card,
    CardField,
    Cycle,
    Exclusion,
    ExclusionReason,
    Milestone,
    SourceRef,
)
from muse.knowledge.terms import TermMatcher, matcher_for
from muse.knowledge.trusted import trusted

R = ExclusionReason
NEVER = float("inf")


def exclusion(
    kind: str, item: str, chapter: int | None, reason: ExclusionReason, message: str
) -> Exclusion:
    return trusted(Exclusion, kind=kind, item=item, chapter=chapter, reason=reason, message=message)


def latest(own: int | None, refs: Sequence[SourceRef]) -> int | None:
    """The latest of ``own`` and the chapters of ``refs`` (None: none of them)."""
    out = own
    for r in refs:
        if out is None or r.chapter > out:
            out = r.chapter
    return out


def milestone_issue(m: Milestone) -> tuple[ExclusionReason, int | None, str] | None:
    """Why ``m`` can never be part of a state (unproven or misplaced), else None."""
    if m.chapter is None:
        note = f"（原写作「{m.chapter_note}」）" if m.chapter_note else ""
        return R.unproven_chapter, None, f"章号无法证明{note}：不是绝对章号。"
    if m.refs and all(r.stale for r in m.refs):
        return R.unproven_chapter, m.chapter, "出处均已失效，章号无法证明。"
    late = latest(None, m.refs)
    if late is not None and late > m.chapter:
        return R.misplaced, late, f"错位：出处指向第 {late} 章，晚于里程碑自身的第 {m.chapter} 章。"
    return None


def milestone_label(m: Milestone) -> str:
    where = f"第 {m.chapter} 章" if m.chapter is not None else "章号不明"
    return f"{where} {m.cycle.value}：{m.step or m.description}"


def field_label(kind: CardType, key: str) -> str:
    return f"字段「{kind.label_of(key)}」"


def field_texts(value: CardField) -> list[str | None]:
    items = value.value if isinstance(value.value, list) else [value.value]
    return [*items, value.doubt]


def planning(card: Card) -> list[Exclusion]:
    """成长弧线, 结局方向 and 全书终态: planning data, left out of every state."""
    out = [
        exclusion(
            "plan",
            f"成长弧线：{s.cycle.value} {s.step or s.description}",
            s.chapter,
            R.growth_arc,
            "成长弧线是未来计划，不进入冻结视图。",
        )
        for s in card.growth_arc
    ]
    if card.ending_direction:
        out.append(
            exclusion(
                "plan", "结局方向", None, R.ending_direction, "结局方向是规划数据，不进入冻结视图。"
            )
        )
    if card.end_state:
        out.append(
            exclusion(
                "plan", "全书终态", None, R.end_state, "全书终态摘要是规划数据，不进入冻结视图。"
            )
        )
    return out


class Debut(NamedTuple):
    chapter: int | None  # earliest proven, well-placed 登场
    claimed: bool  # the card has a 登场 milestone at all

    def exists(self, as_of: int) -> bool:
        return self.chapter <= as_of if self.chapter is not None else not self.claimed

    @property
    def first_chapter(self) -> float:
        """The first chapter the card exists in: 0 for setting, NEVER for an unprovable debut."""
        if self.chapter is not None:
            return self.chapter
        return NEVER if self.claimed else 0


def debut_of(card: Card) -> Debut:
    debuts = [m for m in card.milestones if m.cycle is Cycle.debut]
    proven = [m.chapter for m in debuts if m.chapter is not None and milestone_issue(m) is None]
    return Debut(min(proven) if proven else None, bool(debuts))


_books_lock = threading.Lock()
_books: OrderedDict[tuple[int, ...], tuple[tuple[Card, ...], BookTerms]] = OrderedDict()
BOOKS_KEPT = 2


@dataclass(frozen=True)
class BookTerms:
    """Every name and alias of a book with the first chapter it may be mentioned in.

    Independent of ``as_of``: built once per book, it serves any freeze point. A term shared by
    several cards is known from the earliest of them. It also keeps each card's as-of-independent
    preparation (state_prepared.py), so that many freeze points cost little each.
    """

    first_known: Mapping[str, float]
    reasons: Mapping[str, str]
    debuts: Mapping[str, Debut]
    matcher: TermMatcher
    _dates: dict[str, tuple[float, str]] = field(default_factory=dict, compare=False, repr=False)
    prepared: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def of(cls, cards: Sequence[Card]) -> BookTerms:
        """The terms of ``cards``; the same card objects give the same (shared) instance.

        Cards are frozen, so the same objects are the same book. The memo holds the cards, so
        their ids cannot be reused while it is kept.
        """
        key = tuple(map(id, cards))
        with _books_lock:
            found = _books.get(key)
            if found is not None:
                _books.move_to_end(key)
                return found[1]
        book = cls._build(cards)
        with _books_lock:
            _books[key] = (tuple(cards), book)
            while len(_books) > BOOKS_KEPT:
                _books.popitem(last=False)
        return book

    @classmethod
    def _build(cls, cards: Sequence[Card]) -> BookTerms:
        first_known: dict[str, float] = {}
        reasons: dict[str, str] = {}
        debuts = {card.id: debut_of(card) for card in cards}
        for card in cards:
            debut = debuts[card.id]
            when = f"第 {debut.chapter} 章才登场" if debut.chapter else "登场章无法证明"
            entries = [(card.name, debut.first_chapter, f"「{card.name}」{when}")]
            for a in card.aliases:
                since = a.since_chapter or 0
                if since > debut.first_chapter:
                    entries.append((a.name, since, f"别名「{a.name}」第 {since} 章才出现"))
                else:
                    entries.append((a.name, debut.first_chapter, f"「{a.name}」{when}"))
            for term, chapter, reason in entries:
                if term not in first_known or chapter < first_known[term]:
                    first_known[term], reasons[term] = chapter, reason
        return cls(first_known, reasons, debuts, matcher_for(tuple(sorted(first_known))))

    def debut(self, card: Card) -> Debut:
        return self.debuts.get(card.id) or debut_of(card)

    def mention(self, as_of: int, *texts: str | None) -> str | None:
        """Why one of ``texts`` mentions something not yet known at ``as_of``, else None."""
        for text in texts:
            if text:
                date, reason = self.date_of(text)
                if date > as_of:
                    return reason
        return None

    def date_of(self, text: str) -> tuple[float, str]:
        """The latest first chapter among the terms ``text`` mentions (0: none), and why."""
        found = self._dates.get(text)
        if found is None:
            found = max(
                ((self.first_known[t], self.reasons[t]) for t in self.matcher.terms_in(text)),
                default=(0, ""),
            )
            self._dates[text] = found
        return found
