"""Saving, confirming and loading fine outlines (stage 4).

Only a confirmed fine outline may feed generation (spec 001 §1A, gate 4): ``load_confirmed``
never returns a shadow row. Confirming a new outline for a chapter supersedes the previous one.
Once the work is in planning mode (it has a 定盘, see ``plan_view.py``), ``load_confirmed`` also
refuses an outline whose upper stages are not all confirmed or that contradicts them.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection

from muse.core.errors import InvalidInput, NotFound
from muse.planning.confirming import confirm_section
from muse.planning.contracts import FineOutline
from muse.planning.gates import generation_gate
from muse.planning.plan_view import load_plan_view
from muse.planning.saving import save_stage_section
from muse.planning.sections import confirmed_section
from muse.planning.stages import FINE_OUTLINE
from muse.planning.validation import parse_stage_payload

__all__ = ["confirm_section", "load_confirmed", "parse_fine_outline", "save_fine_outline"]


def parse_fine_outline(payload: dict[str, Any]) -> FineOutline:
    """The payload as a FineOutline, or InvalidInput naming every bad field."""
    return parse_stage_payload(FINE_OUTLINE, payload)  # type: ignore[return-value]


def save_fine_outline(conn: Connection, work_id: int, payload: dict[str, Any]) -> str:
    """Validate and store a fine outline as a shadow section; returns its id."""
    return save_stage_section(conn, work_id, FINE_OUTLINE.number, payload).section_id


def load_confirmed(conn: Connection, work_id: int, chapter: int) -> tuple[str, FineOutline]:
    """The confirmed fine outline of ``chapter`` and its section id, or NotFound / GateBlocked."""
    section = confirmed_section(conn, work_id, FINE_OUTLINE.number, chapter)
    if section is None:
        raise NotFound(
            f"第 {chapter} 章没有已确认的细纲，不能生成正文。",
            hint="先保存并确认该章细纲（未确认的细纲不会进入生成上下文）。",
        )
    outline = parse_fine_outline(section.payload)  # the payload gate, in every mode
    if outline.target_chapter != chapter:
        raise InvalidInput(
            f"第 {chapter} 章的已确认细纲（{section.id}）写的是第 {outline.target_chapter} 章，"
            "不能用于本章。",
            hint="修正细纲的 target_chapter 后重新确认。",
        )
    # Planning mode: the whole plan must hold. Free mode: only the content gates.
    generation_gate(load_plan_view(conn, work_id), section, outline)
    return section.id, outline
