"""Storing and reading cards: the card row, its milestones, relations and source references.

A card's content is written as a whole (:func:`insert_card`, :func:`rewrite_card`) from a
:class:`CardSpec` that passed :func:`validate_spec`; a rewrite moves the card's revision by
compare-and-set, so two decisions racing on one card cannot both land.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any

from sqlalchemy import Connection, select

from muse.core.canonical import hash_value
from muse.core.clock import utc_now
from muse.core.errors import InvalidInput, NotFound
from muse.core.ids import new_id
from muse.knowledge.card_types import card_type, check_fields, describe_missing, types_version
from muse.knowledge.contracts import (
    Card,
    CardSpec,
    CardStatus,
)
from muse.knowledge.source_refs import delete_refs, insert_ref_rows, ref_rows
from muse.knowledge.speed import (
    Row,
    card_of,
    keep_built,
    load_card_rows,
    many_objects,
    work_book,
)
from muse.knowledge.tables import card_milestones, card_relations, cards
from muse.store.cas import compare_and_set

_SPEC_KEYS = set(CardSpec.model_fields)


def spec_of(card: CardSpec) -> CardSpec:
    """The content of a card, without its identity and bookkeeping."""
    if type(card) is CardSpec:
        return card
    return CardSpec.model_validate(card.model_dump(include=_SPEC_KEYS))


def spec_sha256(spec: CardSpec) -> str:
    return hash_value(spec.model_dump(mode="json", include=_SPEC_KEYS))


def validate_spec(spec: CardSpec) -> list[str]:
    """Problems that keep ``spec`` from being stored (gate 1 and value shapes), in Chinese."""
    kind = card_type(spec.type)
    problems = describe_missing(kind, check_fields(kind, spec.fields))
    for key, value in spec.fields.items():
        definition = kind.field(key)
        if definition is None or value.value is None:
            continue
        if not definition.list and isinstance(value.value, list):
            problems.append(f"字段「{definition.label}」应为一段文字，不是列表。")
        if value.value in ("", []):
            problems.append(f"字段「{definition.label}」为空；确无依据时写「字段存疑：原因」。")
    problems += [
        f"字段「{kind.label_of(k)}」的存疑原因为空：写「字段存疑：原因」。"
        for k, v in spec.fields.items()
        if v.doubt == ""
    ]
    return list(dict.fromkeys(problems))


def require_valid(spec: CardSpec) -> CardSpec:
    problems = validate_spec(spec)
    if problems:
        raise InvalidInput(f"卡片「{spec.name}」不合格：" + " ".join(problems))
    return spec.model_copy(update={"type": card_type(spec.type).key})


# --- writing -------------------------------------------------------------------------------


def _fields_doc(spec: CardSpec) -> dict[str, Any]:
    return {k: v.model_dump(mode="json", exclude={"refs"}) for k, v in spec.fields.items()}


def insert_card(conn: Connection, work_id: int, spec: CardSpec, status: CardStatus) -> str:
    """Store a validated card with everything it holds; returns the new card id."""
    spec = require_valid(spec)
    card_id = new_id("card")
    now = utc_now()
    conn.execute(
        cards.insert().values(
            id=card_id,
            work_id=work_id,
            type=spec.type,
            name=spec.name,
            aliases=[a.model_dump(mode="json") for a in spec.aliases],
            fields=_fields_doc(spec),
            growth_arc=[s.model_dump(mode="json") for s in spec.growth_arc],
            ending_direction=spec.ending_direction,
            end_state=spec.end_state,
            status=status.value,
            revision=1,
            types_version=types_version(),
            spec_sha256=spec_sha256(spec),
            created_at=now,
            updated_at=now,
        )
    )
    _insert_parts(conn, work_id, card_id, spec)
    return card_id


def _insert_parts(conn: Connection, work_id: int, card_id: str, spec: CardSpec) -> None:
    """Milestones, relations and every reference of a card: three multi-row inserts."""
    refs = ref_rows(work_id, "card", card_id, "card", spec.refs)
    for key, value in spec.fields.items():
        refs += ref_rows(work_id, "card", card_id, f"field:{key}", value.refs)
    milestones, relations = [], []
    for position, m in enumerate(spec.milestones):
        mid = new_id("mile")
        milestones.append(
            dict(
                id=mid,
                card_id=card_id,
                position=position,
                chapter=m.chapter,
                chapter_note=m.chapter_note,
                step=m.step,
                cycle=m.cycle.value,
                description=m.description,
            )
        )
        refs += ref_rows(work_id, "card", card_id, f"milestone:{mid}", m.refs)
    for position, r in enumerate(spec.relations):
        rid = new_id("rel")
        relations.append(
            dict(
                id=rid,
                card_id=card_id,
                position=position,
                kind=r.kind,
                target=r.target,
                since_chapter=r.since_chapter,
                note=r.note,
            )
        )
        refs += ref_rows(work_id, "card", card_id, f"relation:{rid}", r.refs)
    if milestones:
        conn.execute(card_milestones.insert(), milestones)
    if relations:
        conn.execute(card_relations.insert(), relations)
    insert_ref_rows(conn, refs)


def rewrite_card(conn: Connection, card: Card, spec: CardSpec) -> Card:
    """Replace ``card``'s content with ``spec``; fails if the card moved since it was read."""
    spec = require_valid(spec)
    compare_and_set(
        conn,
        cards,
        where={"id": card.id, "revision": card.revision},
        values=dict(
            name=spec.name,
            aliases=[a.model_dump(mode="json") for a in spec.aliases],
            fields=_fields_doc(spec),
            growth_arc=[s.model_dump(mode="json") for s in spec.growth_arc],
            ending_direction=spec.ending_direction,
            end_state=spec.end_state,
            revision=card.revision + 1,
            types_version=types_version(),
            spec_sha256=spec_sha256(spec),
            updated_at=utc_now(),
        ),
        message=f"卡片「{card.name}」已被其他操作修改，请刷新后重试。",
    )
    conn.execute(card_milestones.delete().where(card_milestones.c.card_id == card.id))
    conn.execute(card_relations.delete().where(card_relations.c.card_id == card.id))
    delete_refs(conn, "card", card.id)
    _insert_parts(conn, card.work_id, card.id, spec)
    return get_card(conn, card.id)


def set_status(conn: Connection, card: Card, status: CardStatus) -> None:
    compare_and_set(
        conn,
        cards,
        where={"id": card.id, "revision": card.revision, "status": card.status.value},
        values={"status": status.value, "revision": card.revision + 1, "updated_at": utc_now()},
        message=f"卡片「{card.name}」的状态已被其他操作改变，请刷新后重试。",
    )


# --- reading -------------------------------------------------------------------------------


def load_cards(
    conn: Connection,
    work_id: int,
    *,
    statuses: Collection[CardStatus | str] = ("confirmed",),
    card_type_key: str | None = None,
    ids: Iterable[str] | None = None,
) -> list[Card]:
    """Cards of a work with all their parts, in (type, name) order. Bulk: four queries.

    A whole work's cards come from the card cache while they do not change (speed/cache.py);
    ``card_type_key`` filters them. Cards are shared frozen models: never change their lists.
    """
    wanted = frozenset(CardStatus(s).value for s in statuses)
    if ids is not None:
        where = [cards.c.work_id == work_id, cards.c.status.in_(sorted(wanted))]
        where.append(cards.c.id.in_(list(ids)))
        if card_type_key is not None:
            where.append(cards.c.type == card_type(card_type_key).key)
        with many_objects():
            return [card_of(r) for r in load_card_rows(conn, work_id, where, by_id=True)]
    found = list(work_book(conn, work_id, wanted).derive("cards", _cards_of))
    if card_type_key is None:
        return found
    key = card_type(card_type_key).key
    return [c for c in found if c.type == key]


def _cards_of(rows: tuple[Row, ...]) -> tuple[Card, ...]:
    with many_objects():
        keep_built()  # kept in the card cache with the rows
        return tuple(card_of(r) for r in rows)


def get_card(conn: Connection, card_id: str) -> Card:
    work_id = conn.execute(select(cards.c.work_id).where(cards.c.id == card_id)).scalar()
    if work_id is None:
        raise NotFound(f"卡片 {card_id} 不存在。")
    return load_cards(conn, work_id, statuses=list(CardStatus), ids=[card_id])[0]


def find_card(
    conn: Connection,
    work_id: int,
    name: str,
    *,
    card_type_key: str | None = None,
    statuses: Collection[CardStatus | str] = ("confirmed",),
) -> Card:
    """A card by id, name or alias; a name beats an alias; ambiguity is an error, not a guess."""
    if name.startswith("card_"):
        return get_card(conn, name)
    candidates = [
        c
        for c in _cards_named(conn, work_id, name, statuses)
        if card_type_key is None or c.type == card_type(card_type_key).key
    ]
    by_name = [c for c in candidates if c.name == name]
    found = by_name or candidates
    if len(found) == 1:
        return found[0]
    if not found:
        raise NotFound(f"没有名为「{name}」的卡片。", hint="用 muse cards list 查看已有卡片。")
    listing = "、".join(f"{c.name}（{card_type(c.type).label}，{c.id}）" for c in found)
    raise InvalidInput(f"「{name}」对应多张卡片：{listing}。", hint="用卡片 ID 或 --type 指定。")


def _cards_named(
    conn: Connection, work_id: int, name: str, statuses: Collection[CardStatus | str]
) -> list[Card]:
    rows = conn.execute(
        select(cards.c.id, cards.c.name, cards.c.aliases).where(
            cards.c.work_id == work_id, cards.c.status.in_([CardStatus(s).value for s in statuses])
        )
    ).all()
    ids = [r.id for r in rows if r.name == name or any(a["name"] == name for a in r.aliases)]
    return load_cards(conn, work_id, statuses=statuses, ids=ids) if ids else []
