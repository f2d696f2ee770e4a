"""The as-of rules of ``card_state.py``, split into what ``as_of`` changes and what it does not.

Whatever does not depend on ``as_of`` is worked out once per card and book (:func:`prepare_row`)
from the card's plain row (speed/rows.py): the debut, the planning data left out, milestones that
can never be shown (unprovable, misplaced), each dated item's own date, the dates of the names
its texts mention, and the exclusions of stale references. A state as of a chapter then only
compares chapters and builds the result (:meth:`Prepared.at`). The models a state shows (a
milestone, field or relation without its stale references, the card's references) are built
from the rows when first shown and kept: a card that never exists, or an item never shown,
costs no model. The outcome is exactly the rules' outcome: tests/knowledge/
test_state_as_of_fast.py compares it with the straightforward implementation on random books.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from muse.knowledge.card_types import CardType, card_type
from muse.knowledge.contracts import Card, CardState, Exclusion, Milestone, SourceRef, StateAsOf
from muse.knowledge.speed.rows import (
    C_ALIASES,
    C_FIELDS,
    C_ID,
    C_MILESTONES,
    C_NAME,
    C_REFS,
    C_RELATIONS,
    C_TYPE,
    M_CHAPTER,
    M_DESCRIPTION,
    M_REFS,
    M_STEP,
    R_CHAPTER,
    R_STALE,
    R_STALE_REASON,
    Row,
    field_of,
    milestone_of,
    refs_of,
    relation_of,
    row_of,
)
from muse.knowledge.speed.rules import (
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
from muse.knowledge.trusted import trusted

Texts = tuple[tuple[float, str], ...]  # (date, reason) of each non-empty text, in order

# An item (milestone, field or relation) ready to be judged at any ``as_of``, a plain tuple:
#   (slot, key, date, texts, last_text, row, stale, fixed, label)
# slot: its place in ``Prepared.models``; key: field key, or rank in the chapter order for a
# milestone; date: milestone chapter, else the latest of own chapter and references; texts: the
# dates of the names its texts mention; last_text: the latest of those (0: none); row: the item's
# plain row; stale: exclusions of its stale references; fixed: left out whatever as_of is;
# label: how an exclusion names it (None for a milestone: made when needed, from its row).
Item = tuple[Any, ...]  # typed by the layout above
SLOT, KEY, DATE, TEXTS, LAST_TEXT, ROW, STALE, FIXED, LABEL = range(9)
_NOTHING: tuple[()] = ()


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


def _stale(refs: tuple[Row, ...], label: str) -> tuple[Exclusion, ...]:
    """Exclusions of the stale ones among ``refs`` (which can only be those ≤ the item's date)."""
    return tuple(
        exclusion(
            "ref",
            f"{label}的出处（第 {r[R_CHAPTER]} 章）",
            r[R_CHAPTER],
            R.stale_ref,
            f"出处已失效：{r[R_STALE_REASON] or '原文已修改'}",
        )
        for r in refs
        if r[R_STALE]
    )


def _without_stale(row: Row) -> Row:
    """An item row (its references last) without its stale references."""
    return (*row[:-1], tuple(r for r in row[-1] if not r[R_STALE]))


@dataclass(slots=True)
class Prepared:
    row: Row
    debut: Debut
    planning: tuple[Exclusion, ...]
    milestones: tuple[Item, ...]  # in the card's order
    milestones_in_order: bool  # the card's order is already the chapter order
    fields: tuple[Item, ...]
    relations: tuple[Item, ...]
    models: list[BaseModel | None]  # per slot: the item as a state shows it, built when first shown
    card: Card | None = None  # the model it was prepared from (pure functions)
    card_refs: list[SourceRef] | None = None

    def at(self, as_of: int) -> StateAsOf:
        row = self.row
        if not self.debut.exists(as_of):
            return absent(row, self.debut, as_of)
        out = list(self.planning)
        aliases = _aliases(row[C_ALIASES], as_of, out)
        milestones = self._milestones(as_of, out)
        kept = self._kept
        fields = {}
        for item in self.fields:
            if _judge(item, as_of, out, "field", "内容提及"):
                fields[item[KEY]] = kept(item, field_of)
        relations = [
            kept(item, relation_of)
            for item in self.relations
            if _judge(item, as_of, out, "relation", "关系涉及")
        ]
        if self.card_refs is None:
            self.card_refs = refs_of(row[C_REFS])
        last = milestones[-1] if milestones else None
        state = trusted(
            CardState,
            card_id=row[C_ID],
            type=row[C_TYPE],
            name=row[C_NAME],
            aliases=aliases,
            fields=fields,
            relations=relations,
            milestones=milestones,
            refs=_live_refs(self.card_refs, as_of, "卡片", out),
            debut_chapter=self.debut.chapter,
            step=last.step if last is not None else None,
            cycle=last.cycle if last is not None else None,
        )
        return trusted(
            StateAsOf, as_of=as_of, card_id=row[C_ID], exists=True, state=state, excluded=out
        )

    def _kept(self, item: Item, build: Callable[[Row], Any]) -> Any:
        model = self.models[item[SLOT]]
        if model is None:
            row = _without_stale(item[ROW]) if item[STALE] else item[ROW]
            model = self.models[item[SLOT]] = build(row)
        return model

    def _milestones(self, as_of: int, out: list[Exclusion]) -> list[Milestone]:
        kept = []
        for item in self.milestones:
            date = item[DATE]
            if item[FIXED] is not None:
                out.append(item[FIXED])
            elif date > as_of:
                out.append(
                    exclusion(
                        "milestone",
                        milestone_label(item[ROW]),
                        date,
                        R.future,
                        f"发生在第 {date} 章，晚于冻结点第 {as_of} 章。",
                    )
                )
            elif item[LAST_TEXT] > as_of and (mention := _mention(item[TEXTS], as_of)):
                out.append(
                    exclusion(
                        "milestone",
                        milestone_label(item[ROW]),
                        date,
                        R.future_mention,
                        f"错位：描述提及{mention}。",
                    )
                )
            else:
                if item[STALE]:
                    out.extend(item[STALE])
                kept.append(item)
        if not self.milestones_in_order:
            kept.sort(key=lambda item: item[KEY])
        return [self._kept(item, milestone_of) for item in kept]


def _judge(item: Item, as_of: int, out: list[Exclusion], kind: str, mentions: str) -> bool:
    """Whether a field or relation is in the state as of ``as_of``; if not, why (into ``out``)."""
    if item[FIXED] is not None:
        out.append(item[FIXED])
        return False
    date = item[DATE]
    if date is not None and date > as_of:
        message = f"依据在第 {date} 章，晚于冻结点第 {as_of} 章。"
        out.append(exclusion(kind, item[LABEL], date, R.future, message))
        return False
    if item[LAST_TEXT] > as_of and (mention := _mention(item[TEXTS], as_of)):
        label = item[LABEL]
        out.append(exclusion(kind, label, date, R.future_mention, f"{mentions}{mention}。"))
        return False
    if item[STALE]:
        out.extend(item[STALE])
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


def _aliases(aliases: tuple[Row, ...], as_of: int, out: list[Exclusion]) -> list[str]:
    kept = []
    for name, since in aliases:
        if since is not None and since > as_of:
            message = f"第 {since} 章才出现，晚于冻结点第 {as_of} 章。"
            out.append(exclusion("alias", f"别名「{name}」", since, R.future, message))
        else:
            kept.append(name)
    return kept


def absent(row: Row, debut: Debut, as_of: int) -> StateAsOf:
    """The state of a card that does not exist as of ``as_of``: nothing, and why."""
    if debut.chapter is not None:
        reason = R.not_debuted
        message = f"第 {debut.chapter} 章才登场，冻结点第 {as_of} 章时尚不存在。"
    else:
        reason = R.debut_unproven
        message = "登场章无法证明（无绝对章号、错位或出处失效），视为不存在。"
    gone = exclusion("card", f"卡片「{row[C_NAME]}」", debut.chapter, reason, message)
    return trusted(
        StateAsOf, as_of=as_of, card_id=row[C_ID], exists=False, state=None, excluded=[gone]
    )


# --- preparation (once per card and book) -----------------------------------------------------


def prepare(card: Card, book: BookTerms) -> Prepared:
    """:func:`prepare_row` for a card model; the items it shows as they are are its own."""
    prepared = prepare_row(row_of(card), book)
    prepared.card = card
    models = prepared.models
    for group, own in (
        (prepared.milestones, card.milestones),
        (prepared.fields, list(card.fields.values())),
        (prepared.relations, card.relations),
    ):
        for item, model in zip(group, own, strict=True):
            if not item[STALE]:
                models[item[SLOT]] = model
    prepared.card_refs = card.refs
    return prepared


def prepare_row(row: Row, book: BookTerms) -> Prepared:
    milestones = row[C_MILESTONES]
    chapters = [m[M_CHAPTER] or 0 for m in milestones]
    order = sorted(range(len(chapters)), key=chapters.__getitem__)
    rank = {position: n for n, position in enumerate(order)}
    kind = card_type(row[C_TYPE])
    fields = row[C_FIELDS]
    n_milestones, n_fields = len(milestones), len(fields)
    return Prepared(
        row=row,
        debut=book.debut(row),
        planning=tuple(planning(row)),
        milestones=tuple(_milestone(m, i, rank[i], book) for i, m in enumerate(milestones)),
        milestones_in_order=order == sorted(order),
        fields=tuple(_field(f, n_milestones + i, kind, book) for i, f in enumerate(fields)),
        relations=tuple(
            _relation(r, n_milestones + n_fields + i, book) for i, r in enumerate(row[C_RELATIONS])
        ),
        models=[None] * (n_milestones + n_fields + len(row[C_RELATIONS])),
    )


def _milestone(m: Row, slot: int, rank: int, book: BookTerms) -> Item:
    chapter, refs = m[M_CHAPTER], m[M_REFS]
    # :func:`milestone_issue` decides; this only spares it the common case it would pass:
    # a chapter, no reference after it, not every reference stale
    any_stale = maybe_issue = chapter is None
    if not maybe_issue:
        for r in refs:
            if r[R_STALE]:
                any_stale = True
            if r[R_CHAPTER] > chapter:
                maybe_issue = True
        maybe_issue = maybe_issue or (any_stale and all(r[R_STALE] for r in refs))
    if maybe_issue and (issue := milestone_issue(m)) is not None:
        fixed = exclusion("milestone", milestone_label(m), issue[1], issue[0], issue[2])
        return (slot, rank, chapter, _NOTHING, 0, m, _NOTHING, fixed, None)
    date_of = book.date_of
    step, description = m[M_STEP], m[M_DESCRIPTION]
    if step and description:
        first, second = date_of(step), date_of(description)
        texts: Texts = (first, second)
        last = max(first[0], second[0], 0)
    elif step or description:
        only = date_of(step or description)
        texts, last = (only,), max(only[0], 0)
    else:
        texts, last = _NOTHING, 0
    stale = _stale(refs, milestone_label(m)) if any_stale else _NOTHING
    return (slot, rank, chapter, texts, last, m, stale, None, None)


def _any_stale(refs: tuple[Row, ...]) -> bool:
    return any(r[R_STALE] for r in refs)


def _field(f: Row, slot: int, kind: CardType, book: BookTerms) -> Item:
    key, value, doubt, since, refs = f
    label = field_label(kind, key)
    date = latest(since, refs)
    definition = kind.field(key)
    if date is None and definition is not None and definition.sealed:
        message = "封存字段未注明揭示章（起始章或出处），揭示前不可见。"
        fixed = exclusion("field", label, None, R.sealed, message)
        return (slot, key, date, _NOTHING, 0, f, _NOTHING, fixed, label)
    texts, last = _texts(book, field_texts(value, doubt))
    stale = _stale(refs, label) if _any_stale(refs) else _NOTHING
    return (slot, key, date, texts, last, f, stale, None, label)


def _relation(r: Row, slot: int, book: BookTerms) -> Item:
    kind, target, since, note, refs = r
    label = f"关系「{kind}→{target}」"
    texts, last = _texts(book, (target, kind, note))
    stale = _stale(refs, label) if _any_stale(refs) else _NOTHING
    return (slot, None, latest(since, refs), texts, last, r, stale, None, label)
