"""Exporting cards to the hand-editable YAML format (docs/cards.md): the inverse of yaml_io.

Chinese keys, as an author writes them; every source reference in full (chapter, offsets,
revision, hash, quote), so that the file imports back to the same cards. A stale reference is
written with its reason under 「失效」, which an import refuses until the author fixes it.
"""

from __future__ import annotations

from typing import Any

import yaml
from sqlalchemy import Connection

from muse.knowledge.card_types import DOUBT_MARKER, card_type
from muse.knowledge.cards import load_cards
from muse.knowledge.contracts import CardField, CardSpec, Milestone, PlannedStep, SourceRef
from muse.knowledge.yaml_io import FORMAT
from muse.works import get_work_row


def _ref_doc(ref: SourceRef) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "章": ref.chapter,
        "起": ref.start,
        "止": ref.end,
        "修订": ref.revision,
        "哈希": ref.sha256,
        "引文": ref.quote,
    }
    if ref.stale:
        doc["失效"] = ref.stale_reason or "原文已修改"
    return doc


def _dated(doc: dict[str, Any], since: int | None, refs: list[SourceRef]) -> dict[str, Any]:
    if since is not None:
        doc["起始章"] = since
    if refs:
        doc["出处"] = [_ref_doc(r) for r in refs]
    return doc


def _field_doc(value: CardField) -> Any:
    plain = f"{DOUBT_MARKER}：{value.doubt}" if value.doubt is not None else value.value
    if value.since_chapter is None and not value.refs:
        return plain
    return _dated({"值": plain}, value.since_chapter, value.refs)


def card_doc(card: CardSpec) -> dict[str, Any]:
    """A card in the hand-editable YAML shape (Chinese keys)."""
    kind = card_type(card.type)
    doc: dict[str, Any] = {"类型": card.type, "名称": card.name}
    if card.aliases:
        doc["别名"] = [
            a.name if a.since_chapter is None else {"名称": a.name, "起始章": a.since_chapter}
            for a in card.aliases
        ]
    doc["字段"] = {kind.label_of(k): _field_doc(v) for k, v in card.fields.items()}
    if card.relations:
        doc["关系"] = [
            _dated(
                {"关系": r.kind, "对象": r.target, **({"说明": r.note} if r.note else {})},
                r.since_chapter,
                r.refs,
            )
            for r in card.relations
        ]
    if card.milestones:
        doc["演变历程"] = [
            _dated(
                _step_doc(m.chapter if m.chapter is not None else m.chapter_note, m), None, m.refs
            )
            for m in card.milestones
        ]
    if card.growth_arc:
        doc["成长弧线"] = [_step_doc(s.chapter, s) for s in card.growth_arc]
    for key, label in (("ending_direction", "结局方向"), ("end_state", "全书终态")):
        if getattr(card, key):
            doc[label] = getattr(card, key)
    if card.refs:
        doc["出处"] = [_ref_doc(r) for r in card.refs]
    return doc


def _step_doc(chapter: Any, step: Milestone | PlannedStep) -> dict[str, Any]:
    doc: dict[str, Any] = {} if chapter is None else {"章": chapter}
    doc["周期"] = step.cycle.value
    if step.step:
        doc["台阶"] = step.step
    if step.description:
        doc["描述"] = step.description
    return doc


def export_cards_yaml(conn: Connection, work_id: int) -> str:
    """The work's confirmed cards as one YAML document that imports back to the same cards."""
    title = get_work_row(conn, work_id).title
    doc = {"格式": FORMAT, "作品": title, "卡片": [card_doc(c) for c in load_cards(conn, work_id)]}
    text: str = yaml.safe_dump(doc, allow_unicode=True, sort_keys=False, width=100)
    return text
