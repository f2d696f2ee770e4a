"""The straightforward stateAsOf, as it was before the fast path (commit 804786b): the oracle.

tests/knowledge/test_state_as_of_fast.py checks that ``muse.knowledge.card_state`` gives
exactly what this gives, on random books. Do not optimise this file: its worth is that it reads
like the rules (see the docstring of ``muse/knowledge/card_state.py``).
"""

# ruff: noqa
# mypy: ignore-errors
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import NamedTuple

from muse.knowledge.card_types import CardType, card_type
from muse.knowledge.contracts import (
    Card,
    CardField,
    CardState,
    Cycle,
    Exclusion,
    ExclusionReason,
    Milestone,
    Relation,
    SourceRef,
    StateAsOf,
)
from muse.knowledge.terms import TermMatcher, matcher_for

R = ExclusionReason
NEVER = float("inf")


def _x(
    kind: str, item: str, chapter: int | None, reason: ExclusionReason, message: str
) -> Exclusion:
    return Exclusion(kind=kind, item=item, chapter=chapter, reason=reason, message=message)


def _latest(own: int | None, refs: Sequence[SourceRef]) -> int | None:
    latest = own
    for r in refs:
        if latest is None or r.chapter > latest:
            latest = r.chapter
    return latest


def _milestone_issue(m: Milestone) -> tuple[ExclusionReason, int | None, str] | None:
    """Why ``m`` can never be part of a state (unproven or misplaced), else None."""
    if m.chapter is None:
        note = f"（原写作「{m.chapter_note}」）" if m.chapter_note else ""
        return R.unproven_chapter, None, f"章号无法证明{note}：不是绝对章号。"
    if m.refs and all(r.stale for r in m.refs):
        return R.unproven_chapter, m.chapter, "出处均已失效，章号无法证明。"
    late = _latest(None, m.refs)
    if late is not None and late > m.chapter:
        return R.misplaced, late, f"错位：出处指向第 {late} 章，晚于里程碑自身的第 {m.chapter} 章。"
    return None


def _milestone_label(m: Milestone) -> str:
    where = f"第 {m.chapter} 章" if m.chapter is not None else "章号不明"
    return f"{where} {m.cycle.value}：{m.step or m.description}"


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
    proven = [m.chapter for m in debuts if m.chapter is not None and _milestone_issue(m) is None]
    return Debut(min(proven) if proven else None, bool(debuts))


def exists_as_of(card: Card, as_of: int) -> bool:
    return debut_of(card).exists(as_of)


@dataclass(frozen=True)
class BookTerms:
    """Every name and alias of a book with the first chapter it may be mentioned in.

    Independent of ``as_of``: built once per book, it serves any freeze point. A term shared by
    several cards is known from the earliest of them.
    """

    first_known: Mapping[str, float]
    reasons: Mapping[str, str]
    debuts: Mapping[str, Debut]
    matcher: TermMatcher
    _dates: dict[str, tuple[float, str]] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def of(cls, cards: Sequence[Card]) -> BookTerms:
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
                date, reason = self._date_of(text)
                if date > as_of:
                    return reason
        return None

    def _date_of(self, text: str) -> tuple[float, str]:
        """The latest first chapter among the terms ``text`` mentions (0: none), and why."""
        found = self._dates.get(text)
        if found is None:
            found = max(
                ((self.first_known[t], self.reasons[t]) for t in self.matcher.terms_in(text)),
                default=(0, ""),
            )
            self._dates[text] = found
        return found


def _planning(card: Card) -> list[Exclusion]:
    out = [
        _x(
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
            _x("plan", "结局方向", None, R.ending_direction, "结局方向是规划数据，不进入冻结视图。")
        )
    if card.end_state:
        out.append(
            _x("plan", "全书终态", None, R.end_state, "全书终态摘要是规划数据，不进入冻结视图。")
        )
    return out


def _live_refs(
    refs: list[SourceRef], as_of: int, owner: Callable[[], str], out: list[Exclusion]
) -> list[SourceRef]:
    """``refs`` without the ones after ``as_of`` or stale (each reported); ``refs`` if all hold."""
    if all(r.chapter <= as_of and not r.stale for r in refs):
        return refs
    kept = []
    for r in refs:
        item = f"{owner()}的出处（第 {r.chapter} 章）"
        if r.chapter > as_of:
            message = f"出处在第 {r.chapter} 章，晚于冻结点第 {as_of} 章。"
            out.append(_x("ref", item, r.chapter, R.future, message))
        elif r.stale:
            message = f"出处已失效：{r.stale_reason or '原文已修改'}"
            out.append(_x("ref", item, r.chapter, R.stale_ref, message))
        else:
            kept.append(r)
    return kept


def _field_text(value: CardField) -> list[str | None]:
    items = value.value if isinstance(value.value, list) else [value.value]
    return [*items, value.doubt]


def _fields(card: Card, as_of: int, book: BookTerms, out: list[Exclusion]) -> dict[str, CardField]:
    kind = card_type(card.type)
    kept: dict[str, CardField] = {}
    for key, value in card.fields.items():
        date = _latest(value.since_chapter, value.refs)
        definition = kind.field(key)
        if date is not None and date > as_of:
            reason, message = R.future, f"依据在第 {date} 章，晚于冻结点第 {as_of} 章。"
        elif date is None and definition is not None and definition.sealed:
            reason, message = R.sealed, "封存字段未注明揭示章（起始章或出处），揭示前不可见。"
        elif mention := book.mention(as_of, *_field_text(value)):
            reason, message = R.future_mention, f"内容提及{mention}。"
        else:
            refs = _live_refs(value.refs, as_of, partial(_field_label, kind, key), out)
            kept[key] = value if refs is value.refs else _with_refs(value, refs)
            continue
        out.append(_x("field", _field_label(kind, key), date, reason, message))
    return kept


def _field_label(kind: CardType, key: str) -> str:
    return f"字段「{kind.label_of(key)}」"


def _with_refs(item, refs: list[SourceRef]):
    return item.model_copy(update={"refs": refs})


def _relations(card: Card, as_of: int, book: BookTerms, out: list[Exclusion]) -> list[Relation]:
    kept = []
    for rel in card.relations:
        label = f"关系「{rel.kind}→{rel.target}」"
        date = _latest(rel.since_chapter, rel.refs)
        if date is not None and date > as_of:
            message = f"依据在第 {date} 章，晚于冻结点第 {as_of} 章。"
            out.append(_x("relation", label, date, R.future, message))
        elif mention := book.mention(as_of, rel.target, rel.kind, rel.note):
            out.append(_x("relation", label, date, R.future_mention, f"关系涉及{mention}。"))
        else:
            refs = _live_refs(rel.refs, as_of, partial(str, label), out)
            kept.append(rel if refs is rel.refs else _with_refs(rel, refs))
    return kept


def _plainly_kept(m: Milestone, as_of: int, book: BookTerms) -> bool:
    """The common case, checked fast: dated, not later than as_of, every reference sound."""
    chapter = m.chapter
    if chapter is None or chapter > as_of:
        return False
    for r in m.refs:
        if r.stale or r.chapter > chapter:
            return False
    return book.mention(as_of, m.step, m.description) is None


def _milestones(card: Card, as_of: int, book: BookTerms, out: list[Exclusion]) -> list[Milestone]:
    kept = []
    for m in card.milestones:
        if _plainly_kept(m, as_of, book):
            kept.append(m)
            continue
        issue = _milestone_issue(m)
        if issue is None and m.chapter > as_of:  # type: ignore[operator]
            issue = R.future, m.chapter, f"发生在第 {m.chapter} 章，晚于冻结点第 {as_of} 章。"
        elif issue is None and (mention := book.mention(as_of, m.step, m.description)):
            issue = R.future_mention, m.chapter, f"错位：描述提及{mention}。"
        if issue is not None:
            out.append(_x("milestone", _milestone_label(m), issue[1], issue[0], issue[2]))
            continue
        refs = _live_refs(m.refs, as_of, partial(_milestone_label, m), out)
        kept.append(m if refs is m.refs else _with_refs(m, refs))
    kept.sort(key=lambda m: m.chapter or 0)  # stable: same chapter keeps the author's order
    return kept


def _absent(card: Card, debut: Debut, as_of: int) -> StateAsOf:
    if debut.chapter is not None:
        reason, message = (
            R.not_debuted,
            f"第 {debut.chapter} 章才登场，冻结点第 {as_of} 章时尚不存在。",
        )
    else:
        reason, message = (
            R.debut_unproven,
            "登场章无法证明（无绝对章号、错位或出处失效），视为不存在。",
        )
    gone = _x("card", f"卡片「{card.name}」", debut.chapter, reason, message)
    return StateAsOf(as_of=as_of, card_id=card.id, exists=False, state=None, excluded=[gone])


def _aliases(card: Card, as_of: int, out: list[Exclusion]) -> list[str]:
    kept = []
    for a in card.aliases:
        if a.since_chapter is not None and a.since_chapter > as_of:
            message = f"第 {a.since_chapter} 章才出现，晚于冻结点第 {as_of} 章。"
            out.append(_x("alias", f"别名「{a.name}」", a.since_chapter, R.future, message))
        else:
            kept.append(a.name)
    return kept


def state_as_of(card: Card, as_of: int, *, book: BookTerms | None = None) -> StateAsOf:
    """The card as of the end of chapter ``as_of``, and every item left out with its reason.

    ``book`` holds the names a text must not mention before their time (build it once with
    :meth:`BookTerms.of` over the whole book); alone, a card is checked against its own aliases.
    """
    book = book if book is not None else BookTerms.of([card])
    debut = book.debut(card)
    if not debut.exists(as_of):
        return _absent(card, debut, as_of)
    excluded = _planning(card)
    aliases = _aliases(card, as_of, excluded)
    milestones = _milestones(card, as_of, book, excluded)
    state = CardState(
        card_id=card.id,
        type=card.type,
        name=card.name,
        aliases=aliases,
        fields=_fields(card, as_of, book, excluded),
        relations=_relations(card, as_of, book, excluded),
        milestones=milestones,
        refs=_live_refs(card.refs, as_of, lambda: "卡片", excluded),
        debut_chapter=debut.chapter,
        step=milestones[-1].step if milestones else None,
        cycle=milestones[-1].cycle if milestones else None,
    )
    return StateAsOf(as_of=as_of, card_id=card.id, exists=True, state=state, excluded=excluded)


def book_state_as_of(
    cards: Sequence[Card], as_of: int, *, book: BookTerms | None = None
) -> list[StateAsOf]:
    """Every card of a book as of ``as_of``, mentions checked against the whole book.

    Pass ``book`` (``BookTerms.of(cards)``) to reuse it across freeze points.
    """
    book = book if book is not None else BookTerms.of(cards)
    return [state_as_of(card, as_of, book=book) for card in cards]
