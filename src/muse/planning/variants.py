"""Comparing drafts of one stage side by side (e.g. the variants of one planner request)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection

from muse.core.errors import InvalidInput
from muse.planning.sections import get_section
from muse.planning.stages import STAGES
from muse.planning.validation import field_label


def _leaves(value: object, path: tuple[int | str, ...] = ()) -> dict[tuple[int | str, ...], object]:
    if isinstance(value, dict):
        return {k: v for key, item in value.items() for k, v in _leaves(item, (*path, key)).items()}
    if isinstance(value, list):
        return {k: v for i, item in enumerate(value) for k, v in _leaves(item, (*path, i)).items()}
    return {path: value}


def compare_sections(conn: Connection, section_ids: list[str]) -> dict[str, Any]:
    """The fields on which the given sections (of one stage) differ, with each one's value."""
    sections = [get_section(conn, i) for i in section_ids]
    if len(sections) < 2 or len({(s.work_id, s.stage) for s in sections}) != 1:
        raise InvalidInput("比较需要同一作品、同一阶段的至少两条规划。")
    stage = STAGES[sections[0].stage]  # type: ignore[index]
    leaves = [_leaves(s.payload) for s in sections]
    paths = sorted({p for leaf in leaves for p in leaf}, key=lambda p: [str(x) for x in p])
    rows = [
        {
            "field": ".".join(map(str, p)),
            "label": field_label(stage.contract, p),
            "values": [leaf.get(p) for leaf in leaves],
        }
        for p in paths
        if len({repr(leaf.get(p)) for leaf in leaves}) > 1
    ]
    return {"stage": stage.number, "sections": [s.brief() for s in sections], "differences": rows}
