"""The parts of the as-of rules that do not depend on ``as_of``: debuts, unprovable or misplaced
milestones, and the first chapter each name of a book may be mentioned in (:class:`BookTerms`).

The rules themselves are described in ``card_state.py``; ``speed/prepared.py`` applies them.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from muse.knowledge.card_types import CardType
from muse.knowledge.contracts import Card, Cycle, Exclusion, ExclusionReason
from muse.knowledge.speed.rows import (
    C_ALIASES,
    C_END_STATE,
    C_ENDING_DIRECTION,
    C_GROWTH_ARC,
    C_ID,
    C_MILESTONES,
    C_NAME,
    M_CHAPTER,
    M_CYCLE,
    M_DESCRIPTION,
    M_REFS,
    M_STEP,
    R_CHAPTER,
    R_STALE,
    Row,
    milestone_row,
    row_of,
)
from muse.knowledge.trusted import maker

R = ExclusionReason
NEVER = float("inf")
DEBUT = Cycle.debut.value


_exclusion = maker(Exclusion)


def exclusion(
    kind: str, item: str, chapter: int | None, reason: ExclusionReason, message: str
) -> Exclusion:
    return _exclusion(
        {"kind": kind, "item": item, "chapter": chapter, "reason": reason, "message": message}
    )


def latest(own: int | None, refs: Sequence[Row]) -> int | None:
    """The latest of ``own`` and the chapters of ``refs`` (None: none of them)."""
    out = own
    for r in refs:
        if out is None or r[R_CHAPTER] > out:
            out = r[R_CHAPTER]
    return out


def milestone_issue(m: Row) -> tuple[ExclusionReason, int | None, str] | None:
    """Why milestone row ``m`` can never be part of a state (unproven or misplaced), else None."""
    chapter, refs = m[M_CHAPTER], m[M_REFS]
    if chapter is None:
        note = f"（原写作「{m[1]}」）" if m[1] else ""
        return R.unproven_chapter, None, f"章号无法证明{note}：不是绝对章号。"
    if refs and all(r[R_STALE] for r in refs):
        return R.unproven_chapter, chapter, "出处均已失效，章号无法证明。"
    late = latest(None, refs)
    if late is not None and late > chapter:
        return R.misplaced, late, f"错位：出处指向第 {late} 章，晚于里程碑自身的第 {chapter} 章。"
    return None


def milestone_label(m: Row) -> str:
    chapter = m[M_CHAPTER]
    where = f"第 {chapter} 章" if chapter is not None else "章号不明"
    return f"{where} {m[M_CYCLE]}：{m[M_STEP] or m[M_DESCRIPTION]}"


def field_label(kind: CardType, key: str) -> str:
    return f"字段「{kind.label_of(key)}」"


def field_texts(value: str | list[str] | None, doubt: str | None) -> list[str | None]:
    items = value if isinstance(value, list) else [value]
    return [*items, doubt]


def planning(card: Row) -> list[Exclusion]:
    """成长弧线, 结局方向 and 全书终态: planning data, left out of every state."""
    out = [
        exclusion(
            "plan",
            f"成长弧线：{cycle} {step or description}",
            chapter,
            R.growth_arc,
            "成长弧线是未来计划，不进入冻结视图。",
        )
        for chapter, step, cycle, description in card[C_GROWTH_ARC]
    ]
    if card[C_ENDING_DIRECTION]:
        out.append(
            exclusion(
                "plan", "结局方向", None, R.ending_direction, "结局方向是规划数据，不进入冻结视图。"
            )
        )
    if card[C_END_STATE]:
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


def debut_of_milestones(milestones: Sequence[Row]) -> Debut:
    debuts = [m for m in milestones if m[M_CYCLE] == DEBUT]
    proven = [
        m[M_CHAPTER] for m in debuts if m[M_CHAPTER] is not None and milestone_issue(m) is None
    ]
    return Debut(min(proven) if proven else None, bool(debuts))


def debut_of(card: Card) -> Debut:
    return debut_of_milestones([milestone_row(m) for m in card.milestones])


_books_lock = threading.Lock()
_books: OrderedDict[tuple[int, ...], tuple[tuple[Card, ...], BookTerms]] = OrderedDict()
BOOKS_KEPT = 2


@dataclass(frozen=True)
class BookTerms:
    """Every name and alias of a book with the first chapter it may be mentioned in.

    Independent of ``as_of``: built once per book, it serves any freeze point. A term shared by
    several cards is known from the earliest of them. It also keeps each card's as-of-independent
    preparation (speed/prepared.py), so that many freeze points cost little each.
    """

    first_known: Mapping[str, float]
    reasons: Mapping[str, str]
    debuts: Mapping[str, Debut]
    starts: Mapping[str, tuple[int, ...]]  # first character of a term → lengths of such terms
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
        book = cls.of_rows([row_of(card) for card in cards])
        with _books_lock:
            _books[key] = (tuple(cards), book)
            while len(_books) > BOOKS_KEPT:
                _books.popitem(last=False)
        return book

    @classmethod
    def of_rows(cls, rows: Sequence[Row]) -> BookTerms:
        """The terms of a book of plain card rows (speed/rows.py); not shared."""
        first_known: dict[str, float] = {}
        reasons: dict[str, str] = {}
        debuts = {row[C_ID]: debut_of_milestones(row[C_MILESTONES]) for row in rows}
        for row in rows:
            name, debut = row[C_NAME], debuts[row[C_ID]]
            when = f"第 {debut.chapter} 章才登场" if debut.chapter else "登场章无法证明"
            entries = [(name, debut.first_chapter, f"「{name}」{when}")]
            for alias, since in row[C_ALIASES]:
                since = since or 0
                if since > debut.first_chapter:
                    entries.append((alias, since, f"别名「{alias}」第 {since} 章才出现"))
                else:
                    entries.append((alias, debut.first_chapter, f"「{alias}」{when}"))
            for term, chapter, reason in entries:
                if term not in first_known or chapter < first_known[term]:
                    first_known[term], reasons[term] = chapter, reason
        starts: dict[str, set[int]] = {}
        for term in first_known:
            if term:
                starts.setdefault(term[0], set()).add(len(term))
        lengths = {char: tuple(sorted(found)) for char, found in starts.items()}
        return cls(first_known, reasons, debuts, lengths)

    def debut(self, row: Row) -> Debut:
        return self.debuts.get(row[C_ID]) or debut_of_milestones(row[C_MILESTONES])

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
            found = self._dates[text] = self._scan(text)
        return found

    def _scan(self, text: str) -> tuple[float, str]:
        """Every term occurring anywhere in ``text`` (overlapping ones too) is some slice
        ``text[i:i + n]`` whose first character starts a term of length ``n``: a dictionary
        lookup per character, no regular expression to compile for each new book. The result
        is the largest (date, reason) of them, as ``max`` over the terms would give."""
        best: tuple[float, str] = (0, "")
        starts, known = self.starts, self.first_known
        for i, char in enumerate(text):
            lengths = starts.get(char)
            if lengths is None:
                continue
            for n in lengths:
                term = text[i : i + n]
                date = known.get(term)
                if date is not None and (date, self.reasons[term]) > best:
                    best = (date, self.reasons[term])
        return best
