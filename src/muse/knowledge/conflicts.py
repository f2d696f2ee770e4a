"""The conflict queue: contradictions between a draft and a confirmed card (or an earlier pending
draft of the same entity, from another 拆书 batch), until the author decides.

Nothing is overwritten silently: a contradiction (see merging.py) becomes an ``open`` row holding
both sides and their evidence. The author resolves it — keep, replace or merge — and the decision
is applied to the confirmed card at once, in the same transaction, by compare-and-set on both the
conflict and the card. Rejecting a draft dismisses its open conflicts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, Row, Select, bindparam, select

from muse.core.clock import iso, utc_now
from muse.core.errors import InvalidInput, NotFound
from muse.core.ids import new_id
from muse.knowledge.card_types import card_type
from muse.knowledge.cards import get_card, rewrite_card, set_status, spec_of, spec_sha256
from muse.knowledge.contracts import CardSpec, CardStatus, Conflict
from muse.knowledge.merging import (
    PLAN_KEYS,
    Contradiction,
    Resolution,
    apply_resolution,
    compare_cards,
)
from muse.knowledge.tables import card_conflicts, card_drafts, cards
from muse.store.cas import compare_and_set
from muse.store.prepared import Prepared

RESOLUTIONS: tuple[Resolution, ...] = ("keep", "replace", "merge")
RESOLUTION_LABELS = {"keep": "保留原卡", "replace": "采用草稿", "merge": "合并"}
_PLAN_LABELS = dict(zip(PLAN_KEYS, ("成长弧线", "结局方向", "全书终态"), strict=True))


def subject_label(card_type_key: str, subject: str) -> str:
    kind, _, key = subject.partition(":")
    if kind == "field":
        return f"字段「{card_type(card_type_key).label_of(key)}」"
    if kind == "relation":
        return f"关系「{key}」"
    if kind == "plan":
        return _PLAN_LABELS.get(key, key)
    return "登场章"


def enqueue_conflicts(
    conn: Connection,
    work_id: int,
    draft_id: str,
    card_id: str,
    contradictions: Sequence[Contradiction],
) -> list[str]:
    ids = []
    for c in contradictions:
        conflict_id = new_id("conf")
        conn.execute(
            card_conflicts.insert().values(
                id=conflict_id,
                work_id=work_id,
                draft_id=draft_id,
                card_id=card_id,
                kind=c.kind,
                subject=c.subject,
                confirmed_side=c.confirmed_side,
                draft_side=c.draft_side,
                status="open",
                created_at=utc_now(),
            )
        )
        ids.append(conflict_id)
    return ids


def _query() -> Select[Any]:
    return select(
        card_conflicts, cards.c.name.label("card_name"), cards.c.type.label("card_type")
    ).select_from(card_conflicts.join(cards, cards.c.id == card_conflicts.c.card_id))


def _to_conflict(row: Row[Any]) -> Conflict:
    return Conflict(
        id=row.id,
        work_id=row.work_id,
        draft_id=row.draft_id,
        card_id=row.card_id,
        card_name=row.card_name,
        kind=row.kind,
        subject=row.subject,
        subject_label=subject_label(row.card_type, row.subject),
        confirmed_side=row.confirmed_side,
        draft_side=row.draft_side,
        status=row.status,
        resolution=row.resolution,
        resolved_value=row.resolved_value,
        created_at=iso(row.created_at) or "",
        resolved_at=iso(row.resolved_at),
    )


_OF_WORK_QUERY = (
    _query()
    .where(card_conflicts.c.work_id == bindparam("work_id"))
    .order_by(card_conflicts.c.created_at, card_conflicts.c.id)
)
_OF_WORK = Prepared(_OF_WORK_QUERY)
_OF_WORK_IN_STATUS = Prepared(_OF_WORK_QUERY.where(card_conflicts.c.status == bindparam("status")))


def list_conflicts(
    conn: Connection, work_id: int, *, status: str | None = "open"
) -> list[Conflict]:
    if status is None:
        rows = _OF_WORK.run(conn, work_id=work_id)
    else:
        rows = _OF_WORK_IN_STATUS.run(conn, work_id=work_id, status=status)
    return [_to_conflict(row) for row in rows]


def get_conflict(conn: Connection, conflict_id: str) -> Conflict:
    row = conn.execute(_query().where(card_conflicts.c.id == conflict_id)).first()
    if row is None:
        raise NotFound(f"冲突 {conflict_id} 不存在。", hint="用 muse conflicts 查看待处理的冲突。")
    return _to_conflict(row)


def draft_conflicts(conn: Connection, draft_id: str) -> list[tuple[str, str]]:
    """(subject, status) of every conflict a draft has had."""
    rows = conn.execute(
        select(card_conflicts.c.subject, card_conflicts.c.status).where(
            card_conflicts.c.draft_id == draft_id
        )
    ).all()
    return [(r.subject, r.status) for r in rows]


def resolve_conflict(
    conn: Connection,
    conflict_id: str,
    resolution: Resolution,
    *,
    value: str | None = None,
) -> Conflict:
    """Apply the author's decision to the confirmed card and close the conflict."""
    if resolution not in RESOLUTIONS:
        raise InvalidInput(f"未知的处理方式「{resolution}」，可选：keep / replace / merge。")
    conflict = get_conflict(conn, conflict_id)
    if conflict.status != "open":
        raise InvalidInput(f"冲突 {conflict_id} 已处理（{conflict.status}）。")
    if value is not None and (
        resolution != "merge"
        or conflict.kind not in ("field", "plan")
        or conflict.subject == "plan:growth_arc"
    ):
        raise InvalidInput("只有合并文字字段时才能给出合并后的文字（--value）。")
    card = get_card(conn, conflict.card_id)
    if card.status not in (CardStatus.confirmed, CardStatus.draft):
        raise InvalidInput(f"卡片「{card.name}」已不是正式卡或待确认的草稿，冲突无法处理。")
    shadow_id = conn.execute(
        select(card_drafts.c.card_id).where(card_drafts.c.id == conflict.draft_id)
    ).scalar_one()
    before = spec_of(card)
    after = apply_resolution(
        before, spec_of(get_card(conn, shadow_id)), conflict.subject, resolution, value
    )
    if after != before:
        rewrite_card(conn, card, after)
    compare_and_set(
        conn,
        card_conflicts,
        where={"id": conflict_id, "status": "open"},
        values={
            "status": "resolved",
            "resolution": resolution,
            "resolved_at": utc_now(),
            "resolved_value": _written(after, conflict.subject) if resolution == "merge" else None,
        },
        message=f"冲突 {conflict_id} 已被其他操作处理。",
    )
    if card.status is CardStatus.draft:
        _fold_into_draft(conn, conflict.draft_id, card.id)
    return get_conflict(conn, conflict_id)


def _fold_into_draft(conn: Connection, draft_id: str, shadow_id: str) -> None:
    """A contradiction between two pending drafts (two 拆书 batches) is decided: once the later
    draft has no open conflict left, what it adds goes into the earlier draft and the later one is
    retired, so the entity has one draft again."""
    if any(status == "open" for _, status in draft_conflicts(conn, draft_id)):
        return
    row = conn.execute(select(card_drafts).where(card_drafts.c.id == draft_id)).one()
    if row.status != "pending":
        return
    decided = {subject for subject, _ in draft_conflicts(conn, draft_id)}
    earlier = get_card(conn, shadow_id)
    later = get_card(conn, row.card_id)
    merged, _ = compare_cards(spec_of(earlier), spec_of(later), skip=decided)
    if merged != spec_of(earlier):
        rewrite_card(conn, earlier, merged)
        conn.execute(
            card_drafts.update()
            .where(card_drafts.c.card_id == shadow_id, card_drafts.c.status == "pending")
            .values(payload_sha256=spec_sha256(merged))
        )
    set_status(conn, later, CardStatus.rejected)
    compare_and_set(
        conn,
        card_drafts,
        where={"id": draft_id, "status": "pending"},
        values={
            "status": "rejected",
            "decided_by": "author",
            "decision_note": "矛盾已处理，其余内容并入同一实体的草稿",
            "decided_at": utc_now(),
        },
        message=f"草稿 {draft_id} 已被其他操作处理。",
    )


def _written(spec: CardSpec, subject: str) -> dict[str, Any]:
    kind, _, key = subject.partition(":")
    if kind == "field":
        return {"value": spec.fields[key].value}
    if kind == "plan":
        value = getattr(spec, key)
        return {
            "value": [s.model_dump(mode="json") for s in value]
            if isinstance(value, list)
            else value
        }
    if kind == "relation":
        return {"relations": [r.model_dump(mode="json") for r in spec.relations]}
    return {
        "milestones": [
            m.model_dump(mode="json") for m in spec.milestones if m.cycle.value == "登场"
        ]
    }


def dismiss_open_conflicts(conn: Connection, draft_id: str) -> None:
    conn.execute(
        card_conflicts.update()
        .where(card_conflicts.c.draft_id == draft_id, card_conflicts.c.status == "open")
        .values(status="dismissed", resolved_at=utc_now())
    )
