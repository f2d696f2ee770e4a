"""Plan sections: storing, reading and moving the rows every stage writes (spec 001 §1A).

The built save gates live here, in code and again in the database: a section type outside the
whitelist, a fine outline without its chapter, or a payload that is not a non-empty object is
refused. The only way to confirm is shadow → confirmed (:func:`mark_confirmed`), which also
supersedes the previous confirmed twin (same work, stage and chapter). The stage gates that
decide *whether* a section may be confirmed are in ``confirming.py``.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Connection, Row, bindparam, select

from muse.core.canonical import hash_value
from muse.core.clock import utc_now
from muse.core.errors import InvalidInput, NotFound, StaleTransition
from muse.core.ids import new_id
from muse.planning.findings import Finding
from muse.planning.stages import SECTION_TYPES, STAGES
from muse.planning.tables import plan_sections
from muse.store.cas import compare_and_set
from muse.store.prepared import Prepared

ORIGINS = ("import", "edit", "planner", "batch", "ledger")


@dataclass(frozen=True)
class Section:
    id: str
    work_id: int
    stage: int | None
    section_type: str
    target_chapter: int | None
    state: str
    payload: dict[str, Any]
    payload_sha256: str
    origin: str | None
    origin_detail: dict[str, Any] | None
    variant_group: str | None
    variant_index: int | None
    basis: Any
    check_report: list[dict[str, Any]] | None
    created_at: datetime
    confirmed_at: datetime | None

    def brief(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "stage": self.stage,
            "sectionType": self.section_type,
            "targetChapter": self.target_chapter,
            "state": self.state,
            "origin": self.origin,
            "variantGroup": self.variant_group,
            "variantIndex": self.variant_index,
            "payloadSha256": self.payload_sha256,
            "createdAt": self.created_at.isoformat(),
            "confirmedAt": self.confirmed_at.isoformat() if self.confirmed_at else None,
        }


def _section(row: Row[*tuple[Any, ...]]) -> Section:
    return Section(**{name: row._mapping[name] for name in Section.__dataclass_fields__})


def insert_section(
    conn: Connection,
    work_id: int,
    *,
    section_type: str,
    stage: int | None,
    payload: dict[str, Any],
    target_chapter: int | None = None,
    origin: str = "import",
    origin_detail: Mapping[str, Any] | None = None,
    variant: tuple[str, int] | None = None,
    report: list[Finding] | None = None,
) -> str:
    """Store a shadow section after the four built save gates; returns its id."""
    if section_type not in SECTION_TYPES:
        raise InvalidInput(
            f"规划类型「{section_type}」不在白名单内（{' / '.join(SECTION_TYPES)}）。"
        )
    if stage is not None and STAGES[stage].section_type != section_type:
        raise InvalidInput(
            f"阶段 {stage} 的规划类型应为 {STAGES[stage].section_type}，不是 {section_type}。"
        )
    if section_type == "fine_outline" and target_chapter is None:
        raise InvalidInput("细纲（fine_outline）必须带目标章 target_chapter。")
    if not isinstance(payload, dict) or not payload:
        raise InvalidInput("规划内容必须是非空的 JSON 对象。")
    if origin not in ORIGINS:
        raise ValueError(f"unknown plan section origin {origin!r}")
    section_id, now = new_id("plan"), utc_now()
    conn.execute(
        plan_sections.insert().values(
            id=section_id,
            work_id=work_id,
            section_type=section_type,
            stage=stage,
            target_chapter=target_chapter,
            state="shadow",
            payload=payload,
            payload_sha256=hash_value(payload),
            origin=origin,
            origin_detail=dict(origin_detail) if origin_detail else None,
            variant_group=variant[0] if variant else None,
            variant_index=variant[1] if variant else None,
            check_report=[f.wire() for f in report] if report is not None else None,
            checked_at=now if report is not None else None,
            created_at=now,
        )
    )
    return section_id


def get_section(conn: Connection, section_id: str) -> Section:
    row = conn.execute(select(plan_sections).where(plan_sections.c.id == section_id)).first()
    if row is None:
        raise NotFound(
            f"规划条目 {section_id} 不存在。", hint="用 muse plan show 查看各阶段的规划。"
        )
    return _section(row)


def _sections(by_stage: bool, by_chapter: bool) -> Prepared:
    query = select(plan_sections).where(
        plan_sections.c.work_id == bindparam("work_id"),
        plan_sections.c.state.in_(bindparam("states", expanding=True)),
    )
    if by_stage:
        query = query.where(plan_sections.c.stage == bindparam("stage"))
    if by_chapter:
        query = query.where(plan_sections.c.target_chapter == bindparam("chapter"))
    return Prepared(
        query.order_by(
            plan_sections.c.target_chapter, plan_sections.c.created_at, plan_sections.c.id
        )
    )


# by (stage given, chapter given)
_SECTIONS = {(s, c): _sections(s, c) for s in (False, True) for c in (False, True)}


def list_sections(
    conn: Connection,
    work_id: int,
    *,
    stage: int | None = None,
    states: Collection[str] = ("shadow", "confirmed"),
    chapter: int | None = None,
) -> list[Section]:
    """Sections of a work, oldest first (chapter order for fine outlines)."""
    params: dict[str, Any] = {"work_id": work_id, "states": list(states)}
    if stage is not None:
        params["stage"] = stage
    if chapter is not None:
        params["chapter"] = chapter
    query = _SECTIONS[(stage is not None, chapter is not None)]
    return [_section(r) for r in query.run(conn, **params)]


def confirmed_section(
    conn: Connection, work_id: int, stage: int, chapter: int | None = None
) -> Section | None:
    if chapter is None and stage == 4:
        raise ValueError("a fine outline is confirmed per chapter: pass chapter")
    found = list_sections(conn, work_id, stage=stage, states=("confirmed",), chapter=chapter)
    return found[0] if found else None


_PLANNING_STARTED = Prepared(
    select(plan_sections.c.id)
    .where(
        plan_sections.c.work_id == bindparam("work_id"),
        plan_sections.c.stage == 0,
        plan_sections.c.state != "discarded",
    )
    .limit(1)
)


def planning_started(conn: Connection, work_id: int) -> bool:
    """Planning mode: the work has a stage-0 section (定盘) that was not discarded."""
    return _PLANNING_STARTED.run(conn, work_id=work_id).first() is not None


def record_check(conn: Connection, section_id: str, findings: list[Finding]) -> None:
    conn.execute(
        plan_sections.update()
        .where(plan_sections.c.id == section_id)
        .values(check_report=[f.wire() for f in findings], checked_at=utc_now())
    )


def _twins(section: Section) -> ColumnElement[bool]:
    """Rows of the same work, stage and chapter: at most one of them is confirmed."""
    same = (
        (plan_sections.c.work_id == section.work_id)
        & (plan_sections.c.stage == section.stage)
        & (plan_sections.c.section_type == section.section_type)
    )
    same &= (
        plan_sections.c.target_chapter == section.target_chapter
        if section.target_chapter is not None
        else plan_sections.c.target_chapter.is_(None)
    )
    return same


def lock_twins(conn: Connection, section: Section) -> None:
    """Serialise confirmations of one stage (and chapter): ``FOR UPDATE`` on PostgreSQL; SQLite
    already holds the write lock from BEGIN IMMEDIATE."""
    conn.execute(select(plan_sections.c.id).where(_twins(section)).with_for_update()).all()


def mark_confirmed(conn: Connection, section: Section, basis: list[dict[str, Any]]) -> None:
    """Shadow → confirmed; the confirmed twin (same work, stage, chapter) becomes superseded.

    The twins are locked first, so two concurrent confirmations of two drafts serialise and
    exactly one confirmed row remains.
    """
    same = _twins(section)
    lock_twins(conn, section)
    now = utc_now()
    compare_and_set(
        conn,
        plan_sections,
        where={"id": section.id, "state": "shadow"},
        values={"state": "confirmed", "confirmed_at": now, "basis": basis},
        message=f"只有 shadow 状态的规划可以确认，{section.id} 已被其他操作改变。",
    )
    conn.execute(
        plan_sections.update()
        .where(
            same,
            plan_sections.c.state == "confirmed",
            plan_sections.c.id != section.id,
        )
        .values(state="superseded", closed_at=now)
    )


def discard_section(conn: Connection, section_id: str) -> None:
    """Shadow → discarded: the author drops a draft (a variant not chosen). Kept for the record."""
    section = get_section(conn, section_id)
    if section.state != "shadow":
        raise StaleTransition(
            f"只有 shadow 状态的规划可以丢弃，{section_id} 当前是 {section.state}。"
        )
    compare_and_set(
        conn,
        plan_sections,
        where={"id": section_id, "state": "shadow"},
        values={"state": "discarded", "closed_at": utc_now()},
    )
