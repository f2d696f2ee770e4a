"""Drafts → confirmed: only the author's confirmation makes a proposal part of the book's memory.

Imported and extracted cards arrive here as drafts (ARCHITECTURE.md principle 2): a shadow card
row (status ``draft``) plus a ``card_drafts`` row naming its origin and the confirmed card it
would update (same type, and the same name, or a name that is one of the card's aliases).

* A draft that only adds to its confirmed card merges on confirmation.
* A draft that contradicts it puts each contradiction in the conflict queue at once; it cannot be
  confirmed while any of them is open. Confirmation re-compares with the card as it is then, so a
  contradiction that appeared meanwhile is queued too, never merged.
* A proposal that adds nothing is not stored (``unchanged``); the same proposal twice while the
  first is pending is stored once (``duplicate``).
* A 拆书 draft may be stored as *the* pending draft of its entity (``entity_key``): the database
  refuses a second one (migration 0024), so two workers racing on one new entity leave one draft
  (the loser merges, book_drafts.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import Connection, Row, func, select

from muse.core.clock import iso, utc_now
from muse.core.errors import InvalidInput, NotFound
from muse.core.ids import new_id
from muse.knowledge.card_types import card_type, check_fields
from muse.knowledge.cards import (
    get_card,
    insert_card,
    load_cards,
    require_valid,
    rewrite_card,
    set_status,
    spec_of,
    spec_sha256,
)
from muse.knowledge.conflicts import dismiss_open_conflicts, draft_conflicts, enqueue_conflicts
from muse.knowledge.contracts import Card, CardSpec, CardStatus, Draft, DraftOutcome
from muse.knowledge.merging import Contradiction, compare_cards
from muse.knowledge.tables import card_conflicts, card_drafts, cards
from muse.store.cas import compare_and_set

ORIGINS = ("import", "extract", "manual")


def find_target(
    conn: Connection, work_id: int, spec: CardSpec, *, among: list[Card] | None = None
) -> Card | None:
    """The confirmed card a proposal is about: same type, same name, else a unique alias match."""
    kind = card_type(spec.type).key
    pool = among if among is not None else load_cards(conn, work_id, card_type_key=kind)
    pool = [c for c in pool if c.type == kind]
    by_name = [c for c in pool if c.name == spec.name]
    if by_name:
        return by_name[0]
    mine = {spec.name, *(a.name for a in spec.aliases)}
    by_alias = [c for c in pool if mine & {c.name, *(a.name for a in c.aliases)}]
    return by_alias[0] if len(by_alias) == 1 else None


def entity_key(spec: CardSpec) -> str:
    """The key of the one pending draft an entity may have: its card type and name."""
    return f"{card_type(spec.type).key}:{spec.name}"


def _recommended_warnings(spec: CardSpec) -> list[str]:
    kind = card_type(spec.type)
    missing = check_fields(kind, spec.fields).missing_recommended
    return (
        [f"「{spec.name}」缺少推荐字段：" + "、".join(kind.label_of(k) for k in missing)]
        if missing
        else []
    )


def submit_draft(
    conn: Connection,
    work_id: int,
    spec: CardSpec,
    *,
    origin: str = "extract",
    origin_detail: Mapping[str, Any] | None = None,
    among: list[Card] | None = None,
    keyed: bool = False,
) -> DraftOutcome:
    """Store a proposal as a draft (and its contradictions as conflicts). Nothing is confirmed.
    ``keyed``: store it as its entity's one pending draft (:func:`entity_key`); a concurrent
    twin makes the insert raise ``IntegrityError``, for the caller to merge instead."""
    if origin not in ORIGINS:
        raise ValueError(f"unknown draft origin {origin!r}")
    spec = require_valid(spec)
    payload = spec_sha256(spec)
    warnings = _recommended_warnings(spec)
    pending = conn.execute(
        select(card_drafts.c.id).where(
            card_drafts.c.work_id == work_id,
            card_drafts.c.payload_sha256 == payload,
            card_drafts.c.status == "pending",
        )
    ).scalar()
    if pending:
        return DraftOutcome(status="duplicate", draft_id=pending, card_id=None, name=spec.name)
    target = find_target(conn, work_id, spec, among=among)
    contradictions: list[Contradiction] = []
    if target is not None:
        merged, contradictions = compare_cards(spec_of(target), spec)
        if not contradictions and spec_sha256(merged) == spec_sha256(spec_of(target)):
            return DraftOutcome(
                status="unchanged",
                draft_id=None,
                card_id=target.id,
                target_card_id=target.id,
                name=spec.name,
                warnings=warnings,
            )
    shadow_id = insert_card(conn, work_id, spec, CardStatus.draft)
    draft_id = new_id("draft")
    conn.execute(
        card_drafts.insert().values(
            id=draft_id,
            work_id=work_id,
            card_id=shadow_id,
            target_card_id=target.id if target else None,
            origin=origin,
            origin_detail=dict(origin_detail or {}),
            payload_sha256=payload,
            entity_key=entity_key(spec) if keyed else None,
            status="pending",
            created_at=utc_now(),
        )
    )
    conflict_ids = (
        enqueue_conflicts(conn, work_id, draft_id, target.id, contradictions) if target else []
    )
    return DraftOutcome(
        status="update" if target else "new",
        draft_id=draft_id,
        card_id=shadow_id,
        target_card_id=target.id if target else None,
        name=spec.name,
        conflicts=conflict_ids,
        warnings=warnings,
    )


def _draft_row(conn: Connection, draft_id: str) -> Row[*tuple[Any, ...]]:
    row = conn.execute(select(card_drafts).where(card_drafts.c.id == draft_id)).first()
    if row is None:
        raise NotFound(f"草稿 {draft_id} 不存在。", hint="用 muse drafts 查看待确认的草稿。")
    if row.status != "pending":
        raise InvalidInput(f"草稿 {draft_id} 已处理（{row.status}）。")
    return row


def _decide(
    conn: Connection, row: Row[*tuple[Any, ...]], status: str, decided_by: str, note: str | None
) -> None:
    compare_and_set(
        conn,
        card_drafts,
        where={"id": row.id, "status": "pending"},
        values={
            "status": status,
            "decided_by": decided_by,
            "decision_note": note,
            "decided_at": utc_now(),
        },
        message=f"草稿 {row.id} 已被其他操作处理。",
    )


def confirm_draft(
    conn: Connection,
    draft_id: str,
    *,
    decided_by: str = "author",
    note: str | None = None,
    among: list[Card] | None = None,
) -> DraftOutcome:
    """The author confirms a draft: a new card becomes confirmed, an update merges into its card.

    ``among``: the work's confirmed cards, for a caller that confirms many drafts in one
    transaction (an import): the target is looked up in it instead of reloading every confirmed
    card per draft (which made a bulk confirmation quadratic), and it is kept current here — a
    card this confirms is appended, a card it rewrites replaced. None reads the confirmed cards.
    """
    row = _draft_row(conn, draft_id)
    shadow = get_card(conn, row.card_id)
    history = draft_conflicts(conn, draft_id)
    still_open = [subject for subject, status in history if status == "open"]
    if still_open:
        raise InvalidInput(
            f"草稿「{shadow.name}」还有 {len(still_open)} 个未处理的冲突。",
            hint="用 muse conflicts 查看，muse conflicts resolve ID --keep|--replace|--merge 处理。",
        )
    target = _current_target(conn, row, shadow, among)
    if target is None:
        set_status(conn, shadow, CardStatus.confirmed)
        _decide(conn, row, "confirmed", decided_by, note)
        if among is not None:
            update = {"status": CardStatus.confirmed, "revision": shadow.revision + 1}
            among.append(shadow.model_copy(update=update))
        return DraftOutcome(
            status="confirmed", draft_id=draft_id, card_id=shadow.id, name=shadow.name
        )
    decided = {subject for subject, _ in history}
    merged, contradictions = compare_cards(spec_of(target), spec_of(shadow), skip=decided)
    if contradictions:
        ids = enqueue_conflicts(conn, row.work_id, draft_id, target.id, contradictions)
        conn.execute(
            card_drafts.update()
            .where(card_drafts.c.id == draft_id)
            .values(target_card_id=target.id)
        )
        return DraftOutcome(
            status="conflict",
            draft_id=draft_id,
            card_id=shadow.id,
            target_card_id=target.id,
            name=shadow.name,
            conflicts=ids,
        )
    if merged != spec_of(target):
        rewritten = rewrite_card(conn, target, merged)
        if among is not None:
            among[:] = [rewritten if c.id == target.id else c for c in among]
    set_status(conn, shadow, CardStatus.merged)
    _decide(conn, row, "confirmed", decided_by, note)
    return DraftOutcome(
        status="confirmed",
        draft_id=draft_id,
        card_id=target.id,
        target_card_id=target.id,
        name=target.name,
    )


def _current_target(
    conn: Connection, row: Row[Any], shadow: Card, among: list[Card] | None
) -> Card | None:
    if row.target_card_id is not None:
        target = get_card(conn, row.target_card_id)
        if target.status is CardStatus.confirmed:
            return target
    return find_target(conn, row.work_id, spec_of(shadow), among=among)


def reject_draft(
    conn: Connection,
    draft_id: str,
    *,
    decided_by: str = "author",
    note: str | None = None,
) -> DraftOutcome:
    """The author rejects a draft: its shadow card is retired and its open conflicts dismissed."""
    row = _draft_row(conn, draft_id)
    shadow = get_card(conn, row.card_id)
    set_status(conn, shadow, CardStatus.rejected)
    dismiss_open_conflicts(conn, draft_id)
    _decide(conn, row, "rejected", decided_by, note)
    return DraftOutcome(status="rejected", draft_id=draft_id, card_id=shadow.id, name=shadow.name)


def list_drafts(conn: Connection, work_id: int, *, status: str | None = "pending") -> list[Draft]:
    open_count = (
        select(func.count())
        .where(card_conflicts.c.draft_id == card_drafts.c.id, card_conflicts.c.status == "open")
        .scalar_subquery()
    )
    query = (
        select(card_drafts, cards.c.name, cards.c.type, open_count.label("open_conflicts"))
        .select_from(card_drafts.join(cards, cards.c.id == card_drafts.c.card_id))
        .where(card_drafts.c.work_id == work_id)
        .order_by(card_drafts.c.created_at, card_drafts.c.id)
    )
    if status is not None:
        query = query.where(card_drafts.c.status == status)
    return [
        Draft(
            id=r.id,
            work_id=r.work_id,
            card_id=r.card_id,
            type=r.type,
            name=r.name,
            target_card_id=r.target_card_id,
            origin=r.origin,
            origin_detail=r.origin_detail,
            status=r.status,
            open_conflicts=r.open_conflicts,
            created_at=iso(r.created_at) or "",
            decided_at=iso(r.decided_at),
        )
        for r in conn.execute(query)
    ]


def confirm_all(
    conn: Connection, work_id: int, *, decided_by: str = "author"
) -> list[DraftOutcome]:
    """Confirm every pending draft that has no open conflict; the others wait for the author."""
    return [
        confirm_draft(conn, d.id, decided_by=decided_by)
        for d in list_drafts(conn, work_id)
        if d.open_conflicts == 0
    ]
