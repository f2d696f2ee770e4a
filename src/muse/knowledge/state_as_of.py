"""stateAsOf: a card as the story knows it at the end of chapter ``as_of`` (spec 000 §5.2).

Nothing dated after ``as_of`` may reach a model (ARCHITECTURE.md principle 4). The state is
rebuilt from the card's data with these rules; everything left out is returned beside the state
with its reason, for the author and the dashboard (never for a model input).

Always left out
  * 全书终态 (end state), 成长弧线 (planned growth arc) and 结局方向 (ending direction): they are
    planning data, true of no chapter yet.
  * a milestone whose chapter cannot be proven: no absolute chapter, or all its source references
    are stale;
  * a misplaced milestone: a source reference points after the milestone's own chapter (its text
    belongs to a later chapter, whatever ``as_of`` is).

Existence
  * the card's debut is the earliest proven, well-placed 登场 milestone; a card whose debut is
    after ``as_of`` does not exist as of that chapter (no state at all). A card that claims a
    登场 but none can be proven does not exist either (fail closed). A card without any 登场
    milestone is a setting known from the start (world, rules, terms …).

Dated items (the field-leak rule)
  * an item's date is the latest of its own chapter (milestone chapter, 起始章 of a field, alias or
    relation) and the chapters of its source references. An item dated after ``as_of`` is left
    out. An undated field, alias or relation is setting known from the card's debut.
  * a *sealed* field (a secret's truth, a foreshadowing's payoff; see card_types.yaml) that is not
    dated is left out: what the story reveals later must say when.
  * stale source references are dropped from the state (the text they pointed at changed).
  * mentions: an included text (milestone, field value, relation target or note) that names a
    card that does not exist yet, or uses an alias dated after ``as_of``, is left out — its
    content belongs to a later chapter.

:func:`state_as_of` is a pure function over card data; :func:`book_state_as_of` applies it to a
whole book (so that mentions of other cards are checked); :func:`work_state_as_of` loads a work's
confirmed cards and calls it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from sqlalchemy import Connection

from muse.knowledge.card_types import card_type
from muse.knowledge.cards import load_cards
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
    WorkStateAsOf,
)
from muse.knowledge.terms import TermMatcher

R = ExclusionReason


def _x(kind: str, item: str, chapter: int | None, reason: ExclusionReason, message: str) -> Exclusion:
    return Exclusion.model_construct(kind=kind, item=item, chapter=chapter, reason=reason,
                                     message=message)


def _latest(own: int | None, refs: Sequence[SourceRef]) -> int | None:
    dates = [r.chapter for r in refs]
    if own is not None:
        dates.append(own)
    return max(dates) if dates else None


def milestone_problem(m: Milestone) -> Exclusion | None:
    """Why ``m`` can never be part of a state (unproven or misplaced), else None."""
    label = _milestone_label(m)
    if m.chapter is None:
        note = f"（原写作「{m.chapter_note}」）" if m.chapter_note else ""
        return _x("milestone", label, None, R.unproven_chapter, f"章号无法证明{note}：不是绝对章号。")
    if m.refs and all(r.stale for r in m.refs):
        return _x("milestone", label, m.chapter, R.unproven_chapter, "出处均已失效，章号无法证明。")
    late = max((r.chapter for r in m.refs), default=0)
    if late > m.chapter:
        return _x("milestone", label, late, R.misplaced,
                  f"错位：出处指向第 {late} 章，晚于里程碑自身的第 {m.chapter} 章。")
    return None


def _milestone_label(m: Milestone) -> str:
    where = f"第 {m.chapter} 章" if m.chapter is not None else "章号不明"
    return f"{where} {m.cycle.value}：{m.step or m.description}"


def debut_of(card: Card) -> tuple[int | None, bool]:
    """(debut chapter, whether the card claims a debut at all)."""
    debuts = [m for m in card.milestones if m.cycle is Cycle.debut]
    proven = [m.chapter for m in debuts if milestone_problem(m) is None]
    return (min(proven) if proven else None), bool(debuts)  # type: ignore[type-var]


def exists_as_of(card: Card, as_of: int) -> bool:
    debut, claimed = debut_of(card)
    return debut <= as_of if debut is not None else not claimed


@dataclass(frozen=True)
class FutureTerms:
    """Names and aliases that must not appear as of a chapter, each with the reason why."""

    reasons: Mapping[str, str]
    matcher: TermMatcher

    @classmethod
    def of(cls, cards: Sequence[Card], as_of: int) -> FutureTerms:
        known: set[str] = set()
        future: dict[str, str] = {}
        for card in cards:
            debut, _ = debut_of(card)
            if exists_as_of(card, as_of):
                known.add(card.name)
                for a in card.aliases:
                    if a.since_chapter is None or a.since_chapter <= as_of:
                        known.add(a.name)
                    else:
                        future[a.name] = f"别名「{a.name}」第 {a.since_chapter} 章才出现"
                continue
            when = f"第 {debut} 章才登场" if debut is not None else "登场章无法证明"
            for term in [card.name, *(a.name for a in card.aliases)]:
                future[term] = f"「{term}」{when}"
        reasons = {t: r for t, r in future.items() if t not in known}
        return cls(reasons=reasons, matcher=TermMatcher(reasons))

    def mention(self, *texts: str | None) -> str | None:
        for text in texts:
            term = self.matcher.first(text) if text else None
            if term is not None:
                return self.reasons[term]
        return None


def _planning(card: Card) -> list[Exclusion]:
    out = [_x("plan", f"成长弧线：{s.cycle.value} {s.step or s.description}", s.chapter, R.growth_arc,
              "成长弧线是未来计划，不进入冻结视图。") for s in card.growth_arc]
    if card.ending_direction:
        out.append(_x("plan", "结局方向", None, R.ending_direction, "结局方向是规划数据，不进入冻结视图。"))
    if card.end_state:
        out.append(_x("plan", "全书终态", None, R.end_state, "全书终态摘要是规划数据，不进入冻结视图。"))
    return out


def _live_refs(refs: Sequence[SourceRef], as_of: int, owner: str, out: list[Exclusion]) -> list[SourceRef]:
    kept = []
    for r in refs:
        if r.chapter > as_of:
            out.append(_x("ref", f"{owner}的出处（第 {r.chapter} 章）", r.chapter, R.future,
                          f"出处在第 {r.chapter} 章，晚于冻结点第 {as_of} 章。"))
        elif r.stale:
            out.append(_x("ref", f"{owner}的出处（第 {r.chapter} 章）", r.chapter, R.stale_ref,
                          f"出处已失效：{r.stale_reason or '原文已修改'}"))
        else:
            kept.append(r)
    return kept


def _field_text(value: CardField) -> list[str | None]:
    items = value.value if isinstance(value.value, list) else [value.value]
    return [*items, value.doubt]


def _fields(card: Card, as_of: int, terms: FutureTerms, out: list[Exclusion]) -> dict[str, CardField]:
    kind = card_type(card.type)
    kept: dict[str, CardField] = {}
    for key, value in card.fields.items():
        label = f"字段「{kind.label_of(key)}」"
        date = _latest(value.since_chapter, value.refs)
        definition = kind.field(key)
        if date is not None and date > as_of:
            out.append(_x("field", label, date, R.future, f"依据在第 {date} 章，晚于冻结点第 {as_of} 章。"))
        elif date is None and definition is not None and definition.sealed:
            out.append(_x("field", label, None, R.sealed, "封存字段未注明揭示章（起始章或出处），揭示前不可见。"))
        elif reason := terms.mention(*_field_text(value)):
            out.append(_x("field", label, date, R.future_mention, f"内容提及{reason}。"))
        else:
            refs = _live_refs(value.refs, as_of, label, out)
            kept[key] = value if refs == value.refs else value.model_copy(update={"refs": refs})
    return kept


def _relations(card: Card, as_of: int, terms: FutureTerms, out: list[Exclusion]) -> list[Relation]:
    kept = []
    for rel in card.relations:
        label = f"关系「{rel.kind}→{rel.target}」"
        date = _latest(rel.since_chapter, rel.refs)
        if date is not None and date > as_of:
            out.append(_x("relation", label, date, R.future, f"依据在第 {date} 章，晚于冻结点第 {as_of} 章。"))
        elif reason := terms.mention(rel.target, rel.kind, rel.note):
            out.append(_x("relation", label, date, R.future_mention, f"关系涉及{reason}。"))
        else:
            refs = _live_refs(rel.refs, as_of, label, out)
            kept.append(rel if refs == rel.refs else rel.model_copy(update={"refs": refs}))
    return kept


def _milestones(card: Card, as_of: int, terms: FutureTerms, out: list[Exclusion]) -> list[Milestone]:
    kept = []
    for m in card.milestones:
        problem = milestone_problem(m)
        if problem is not None:
            out.append(problem)
        elif m.chapter > as_of:  # type: ignore[operator]
            out.append(_x("milestone", _milestone_label(m), m.chapter, R.future,
                          f"发生在第 {m.chapter} 章，晚于冻结点第 {as_of} 章。"))
        elif reason := terms.mention(m.step, m.description):
            out.append(_x("milestone", _milestone_label(m), m.chapter, R.future_mention,
                          f"错位：描述提及{reason}。"))
        else:
            refs = _live_refs(m.refs, as_of, _milestone_label(m), out)
            kept.append(m if refs == m.refs else m.model_copy(update={"refs": refs}))
    kept.sort(key=lambda m: m.chapter)  # stable: same chapter keeps the author's order
    return kept


def state_as_of(card: Card, as_of: int, *, terms: FutureTerms | None = None) -> StateAsOf:
    """The card as of the end of chapter ``as_of``, and every item left out with its reason.

    ``terms`` are the names that must not be mentioned (built from the whole book by
    :func:`book_state_as_of`); alone, a card is checked against its own future aliases.
    """
    terms = terms if terms is not None else FutureTerms.of([card], as_of)
    debut, claimed = debut_of(card)
    if not exists_as_of(card, as_of):
        reason, message = ((R.not_debuted, f"第 {debut} 章才登场，冻结点第 {as_of} 章时尚不存在。")
                           if debut is not None else
                           (R.debut_unproven, "登场章无法证明（无绝对章号、错位或出处失效），视为不存在。"))
        gone = _x("card", f"卡片「{card.name}」", debut, reason, message)
        return StateAsOf.model_construct(as_of=as_of, card_id=card.id, exists=False, state=None,
                                         excluded=[gone])
    excluded = _planning(card)
    aliases = []
    for a in card.aliases:
        if a.since_chapter is not None and a.since_chapter > as_of:
            excluded.append(_x("alias", f"别名「{a.name}」", a.since_chapter, R.future,
                               f"第 {a.since_chapter} 章才出现，晚于冻结点第 {as_of} 章。"))
        else:
            aliases.append(a.name)
    milestones = _milestones(card, as_of, terms, excluded)
    state = CardState.model_construct(
        card_id=card.id, type=card.type, name=card.name, aliases=aliases,
        fields=_fields(card, as_of, terms, excluded),
        relations=_relations(card, as_of, terms, excluded), milestones=milestones,
        refs=_live_refs(card.refs, as_of, "卡片", excluded), debut_chapter=debut,
        step=milestones[-1].step if milestones else None,
        cycle=milestones[-1].cycle if milestones else None,
    )
    return StateAsOf.model_construct(as_of=as_of, card_id=card.id, exists=True, state=state,
                                     excluded=excluded)


def book_state_as_of(cards: Sequence[Card], as_of: int) -> list[StateAsOf]:
    """Every card of a book as of ``as_of``, mentions checked against the whole book."""
    terms = FutureTerms.of(cards, as_of)
    return [state_as_of(card, as_of, terms=terms) for card in cards]


def work_state_as_of(conn: Connection, work_id: int, as_of: int) -> WorkStateAsOf:
    """All confirmed cards of a work as of chapter ``as_of``."""
    states = book_state_as_of(load_cards(conn, work_id), as_of)
    return WorkStateAsOf.model_construct(work_id=work_id, as_of=as_of, cards=states)
