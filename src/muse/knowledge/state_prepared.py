"""The as-of rules of ``state_as_of.py``, split into what ``as_of`` changes and what it does not.

Whatever does not depend on ``as_of`` is worked out once per card and book (:func:`prepare`):
the debut, the planning data left out, milestones that can never be shown (unprovable,
misplaced), each dated item's own date, the dates of the names its texts mention, the item
without its stale references and the exclusions of those. A state as of a chapter then only
compares chapters and builds the result (:meth:`Prepared.at`). The outcome is exactly the rules'
outcome: tests/knowledge/test_state_as_of_fast.py compares it with the straightforward
implementation on random books.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from muse.knowledge.as_of_rules import (
    BookTerms,
    Debut,
    R,
    exclusion,
    field_label,
    field_texts,
    latest,
    milestone_issue,
    milestone_label,
    planning,
)
from muse.knowledge.card_types import card_type
from muse.knowledge.contracts import Card, CardState, Exclusion, SourceRef, StateAsOf
from muse.knowledge.trusted import trusted

Texts = tuple[tuple[float, str], ...]  # (date, reason) of each non-empty text, in order


@dataclass(slots=True)
class Item:
    """A milestone, field or relation of a card, ready to be judged at any ``as_of``."""

    key: Any  # field key; position in the chapter order for milestones
    date: int | None  # milestone chapter; latest of own chapter and references otherwise
    texts: Texts
    last_text: float  # the latest date among ``texts`` (0: they mention nothing dated)
    kept: Any  # the item as a state holds it: without its stale references
    stale: tuple[Exclusion, ...]  # the stale references, left out
    label: str
    fixed: Exclusion | None  # left out whatever as_of is


def _mention(texts: Texts, as_of: int) -> str | None:
    for date, reason in texts:
        if date > as_of:
            return reason
    return None


def _texts(book: BookTerms, texts: Sequence[str | None]) -> tuple[Texts, float]:
    date_of = book.date_of
    dated = tuple([date_of(t) for t in texts if t])
    last: float = 0
    for date, _ in dated:
        if date > last:
            last = date
    return dated, last


def _without_stale(item: Any, refs: list[SourceRef], label: str) -> tuple[Any, tuple]:
    """``item`` without its stale references (which can only be those ≤ its date), and why."""
    if not any(r.stale for r in refs):
        return item, ()
    gone = tuple(
        exclusion(
            "ref",
            f"{label}的出处（第 {r.chapter} 章）",
            r.chapter,
            R.stale_ref,
            f"出处已失效：{r.stale_reason or '原文已修改'}",
        )
        for r in refs
        if r.stale
    )
    return item.model_copy(update={"refs": [r for r in refs if not r.stale]}), gone


@dataclass(slots=True)
class Prepared:
    card: Card
    debut: Debut
    planning: tuple[Exclusion, ...]
    milestones: tuple[Item, ...]  # in the card's order
    milestones_in_order: bool  # the card's order is already the chapter order
    fields: tuple[Item, ...]
    relations: tuple[Item, ...]

    def at(self, as_of: int) -> StateAsOf:
        card = self.card
        if not self.debut.exists(as_of):
            return _absent(card, self.debut, as_of)
        out = list(self.planning)
        aliases = _aliases(card, as_of, out)
        milestones = self._milestones(as_of, out)
        fields = {}
        for item in self.fields:
            if _judge(item, as_of, out, "field", "内容提及"):
                fields[item.key] = item.kept
        relations = [
            item.kept for item in self.relations if _judge(item, as_of, out, "relation", "关系涉及")
        ]
        last = milestones[-1] if milestones else None
        state = trusted(
            CardState,
            card_id=card.id,
            type=card.type,
            name=card.name,
            aliases=aliases,
            fields=fields,
            relations=relations,
            milestones=milestones,
            refs=_live_refs(card.refs, as_of, "卡片", out),
            debut_chapter=self.debut.chapter,
            step=last.step if last is not None else None,
            cycle=last.cycle if last is not None else None,
        )
        return trusted(
            StateAsOf, as_of=as_of, card_id=card.id, exists=True, state=state, excluded=out
        )

    def _milestones(self, as_of: int, out: list[Exclusion]) -> list:
        kept = []
        for item in self.milestones:
            if item.fixed is not None:
                out.append(item.fixed)
            elif item.date > as_of:  # type: ignore[operator]
                out.append(
                    exclusion(
                        "milestone",
                        item.label,
                        item.date,
                        R.future,
                        f"发生在第 {item.date} 章，晚于冻结点第 {as_of} 章。",
                    )
                )
            elif item.last_text > as_of and (mention := _mention(item.texts, as_of)):
                out.append(
                    exclusion(
                        "milestone",
                        item.label,
                        item.date,
                        R.future_mention,
                        f"错位：描述提及{mention}。",
                    )
                )
            else:
                if item.stale:
                    out.extend(item.stale)
                kept.append(item)
        if not self.milestones_in_order:
            kept.sort(key=lambda item: item.key)
        return [item.kept for item in kept]


def _judge(item: Item, as_of: int, out: list[Exclusion], kind: str, mentions: str) -> bool:
    """Whether a field or relation is in the state as of ``as_of``; if not, why (into ``out``)."""
    if item.fixed is not None:
        out.append(item.fixed)
        return False
    date = item.date
    if date is not None and date > as_of:
        message = f"依据在第 {date} 章，晚于冻结点第 {as_of} 章。"
        out.append(exclusion(kind, item.label, date, R.future, message))
        return False
    if item.last_text > as_of and (mention := _mention(item.texts, as_of)):
        out.append(exclusion(kind, item.label, date, R.future_mention, f"{mentions}{mention}。"))
        return False
    if item.stale:
        out.extend(item.stale)
    return True


def _live_refs(
    refs: list[SourceRef], as_of: int, owner: str, out: list[Exclusion]
) -> list[SourceRef]:
    """``refs`` without the ones after ``as_of`` or stale (each reported); ``refs`` if all hold."""
    if all(r.chapter <= as_of and not r.stale for r in refs):
        return refs
    kept = []
    for r in refs:
        item = f"{owner}的出处（第 {r.chapter} 章）"
        if r.chapter > as_of:
            message = f"出处在第 {r.chapter} 章，晚于冻结点第 {as_of} 章。"
            out.append(exclusion("ref", item, r.chapter, R.future, message))
        elif r.stale:
            message = f"出处已失效：{r.stale_reason or '原文已修改'}"
            out.append(exclusion("ref", item, r.chapter, R.stale_ref, message))
        else:
            kept.append(r)
    return kept


def _aliases(card: Card, as_of: int, out: list[Exclusion]) -> list[str]:
    kept = []
    for a in card.aliases:
        if a.since_chapter is not None and a.since_chapter > as_of:
            message = f"第 {a.since_chapter} 章才出现，晚于冻结点第 {as_of} 章。"
            out.append(exclusion("alias", f"别名「{a.name}」", a.since_chapter, R.future, message))
        else:
            kept.append(a.name)
    return kept


def _absent(card: Card, debut: Debut, as_of: int) -> StateAsOf:
    if debut.chapter is not None:
        reason = R.not_debuted
        message = f"第 {debut.chapter} 章才登场，冻结点第 {as_of} 章时尚不存在。"
    else:
        reason = R.debut_unproven
        message = "登场章无法证明（无绝对章号、错位或出处失效），视为不存在。"
    gone = exclusion("card", f"卡片「{card.name}」", debut.chapter, reason, message)
    return trusted(
        StateAsOf, as_of=as_of, card_id=card.id, exists=False, state=None, excluded=[gone]
    )


# --- preparation (once per card and book) -----------------------------------------------------


def prepare(card: Card, book: BookTerms) -> Prepared:
    chapters = [m.chapter or 0 for m in card.milestones]
    order = sorted(range(len(chapters)), key=chapters.__getitem__)
    rank = {position: n for n, position in enumerate(order)}
    milestones = tuple(_milestone(card, i, rank[i], book) for i in range(len(card.milestones)))
    return Prepared(
        card=card,
        debut=book.debut(card),
        planning=tuple(planning(card)),
        milestones=milestones,
        milestones_in_order=order == sorted(order),
        fields=tuple(_field(card, key, book) for key in card.fields),
        relations=tuple(_relation(rel, book) for rel in card.relations),
    )


def _milestone(card: Card, position: int, rank: int, book: BookTerms) -> Item:
    m = card.milestones[position]
    label = milestone_label(m)
    issue = milestone_issue(m)
    if issue is not None:
        fixed = exclusion("milestone", label, issue[1], issue[0], issue[2])
        return Item(rank, m.chapter, (), 0, m, (), label, fixed)
    texts, last = _texts(book, (m.step, m.description))
    kept, stale = _without_stale(m, m.refs, label)
    return Item(rank, m.chapter, texts, last, kept, stale, label, None)


def _field(card: Card, key: str, book: BookTerms) -> Item:
    kind = card_type(card.type)
    value = card.fields[key]
    label = field_label(kind, key)
    date = latest(value.since_chapter, value.refs)
    definition = kind.field(key)
    if date is None and definition is not None and definition.sealed:
        message = "封存字段未注明揭示章（起始章或出处），揭示前不可见。"
        fixed = exclusion("field", label, None, R.sealed, message)
        return Item(key, date, (), 0, value, (), label, fixed)
    texts, last = _texts(book, field_texts(value))
    kept, stale = _without_stale(value, value.refs, label)
    return Item(key, date, texts, last, kept, stale, label, None)


def _relation(rel, book: BookTerms) -> Item:
    label = f"关系「{rel.kind}→{rel.target}」"
    texts, last = _texts(book, (rel.target, rel.kind, rel.note))
    kept, stale = _without_stale(rel, rel.refs, label)
    return Item(None, latest(rel.since_chapter, rel.refs), texts, last, kept, stale, label, None)
