"""Saving, confirming and loading fine outlines (stage 4).

Only a confirmed fine outline may feed generation (spec 001 §1A, gate 4): ``load_confirmed``
never returns a shadow row. Confirming a new outline for a chapter supersedes the previous one.
"""

from __future__ import annotations

from pydantic import ValidationError
from sqlalchemy import Connection, select

from muse.core.canonical import hash_value
from muse.core.clock import utc_now
from muse.core.errors import InvalidInput, NotFound, StaleTransition
from muse.core.ids import new_id
from muse.planning.contracts import FineOutline
from muse.planning.tables import plan_sections
from muse.store.cas import compare_and_set


def parse_fine_outline(payload: dict) -> FineOutline:
    if not isinstance(payload, dict) or not payload:
        raise InvalidInput("细纲内容必须是非空对象。")
    try:
        return FineOutline.model_validate(payload)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise InvalidInput(f"细纲字段「{where}」不合格：{first['msg']}") from None


def save_fine_outline(conn: Connection, work_id: int, payload: dict) -> str:
    """Validate and store a fine outline as a shadow section; returns its id."""
    outline = parse_fine_outline(payload)
    section_id = new_id("plan")
    data = outline.model_dump(mode="json")
    conn.execute(plan_sections.insert().values(
        id=section_id, work_id=work_id, section_type="fine_outline",
        target_chapter=outline.target_chapter, state="shadow", payload=data,
        payload_sha256=hash_value(data), created_at=utc_now(),
    ))
    return section_id


def confirm_section(conn: Connection, section_id: str) -> None:
    """Shadow → confirmed, the only way to confirm; an older confirmed twin is superseded."""
    row = conn.execute(select(plan_sections).where(plan_sections.c.id == section_id)).mappings().first()
    if row is None:
        raise NotFound(f"规划条目 {section_id} 不存在。")
    if row["state"] != "shadow":
        raise StaleTransition(f"只有 shadow 状态的规划可以确认，{section_id} 当前是 {row['state']}。")
    conn.execute(plan_sections.update().where(
        plan_sections.c.work_id == row["work_id"],
        plan_sections.c.section_type == row["section_type"],
        plan_sections.c.target_chapter == row["target_chapter"],
        plan_sections.c.state == "confirmed",
    ).values(state="superseded"))
    compare_and_set(conn, plan_sections, where={"id": section_id, "state": "shadow"},
                    values={"state": "confirmed", "confirmed_at": utc_now()})


def load_confirmed(conn: Connection, work_id: int, chapter: int) -> tuple[str, FineOutline]:
    """The confirmed fine outline of ``chapter`` and its section id, or NotFound."""
    row = conn.execute(
        select(plan_sections.c.id, plan_sections.c.payload).where(
            plan_sections.c.work_id == work_id,
            plan_sections.c.section_type == "fine_outline",
            plan_sections.c.target_chapter == chapter,
            plan_sections.c.state == "confirmed",
        )
    ).first()
    if row is None:
        raise NotFound(
            f"第 {chapter} 章没有已确认的细纲，不能生成正文。",
            hint="先保存并确认该章细纲（未确认的细纲不会进入生成上下文）。",
        )
    return row.id, FineOutline.model_validate(row.payload)
