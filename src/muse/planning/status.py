"""``muse plan show``: the five stages, their state, and what blocks the next one.

Read-only. Shadow drafts of stages 0–3 are re-checked so the author sees, per draft, whether it
could be confirmed now; fine outlines are summarised by chapter, with the batches that draft them.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection

from muse.planning.batches import list_batches
from muse.planning.checking import CheckReport, check_plan
from muse.planning.findings import errors
from muse.planning.gates import review, stage_order
from muse.planning.plan_view import PlanView, load_plan_view
from muse.planning.sections import Section, list_sections
from muse.planning.stages import STAGES, StageDef


def _draft_brief(view: PlanView, stage: StageDef, section: Section) -> dict[str, Any]:
    found = review(view, stage.number, stage.contract.model_validate(section.payload), section)
    return {
        **section.brief(),
        "errors": len(errors(found)),
        "warnings": len(found) - len(errors(found)),
        "firstErrors": [f.line() for f in errors(found)[:3]],
    }


def _ranges(numbers: list[int]) -> str:
    parts, start = [], None
    for i, n in enumerate(numbers):
        start = n if start is None else start
        if i + 1 == len(numbers) or numbers[i + 1] != n + 1:
            parts.append(f"{start}" if start == n else f"{start}–{n}")
            start = None
    return "、".join(parts)


def _upper_stage(view: PlanView, conn: Connection, stage: StageDef) -> dict[str, Any]:
    sections = list_sections(conn, view.work_id, stage=stage.number)
    confirmed = next((s for s in sections if s.state == "confirmed"), None)
    shadows = [_draft_brief(view, stage, s) for s in sections if s.state == "shadow"]
    missing = stage_order(view, stage.number)
    blockers = [missing[0].message] if missing else []  # the earliest stage to work on
    if confirmed is None and not shadows:
        blockers.append(
            "尚无草稿：muse plan draft / edit / import"
            if stage.number != 2
            else "尚无台账：确认卡片后运行 muse plan ledger --save"
        )
    elif confirmed is None and all(d["errors"] for d in shadows):
        blockers.append("每份草稿都有阻断问题（见 firstErrors）")
    entry = {
        "stage": stage.number,
        "name": stage.name,
        "key": stage.key,
        "state": "confirmed" if confirmed else ("shadow" if shadows else "empty"),
        "confirmed": confirmed.brief() if confirmed else None,
        "shadows": shadows,
        "blockers": blockers,
    }
    if stage.number == 2:
        entry["cards"] = {
            "confirmed": len(view.setting.cards),
            "pendingDrafts": view.setting.pending_drafts,
        }
    return entry


def _fine_outlines(view: PlanView, conn: Connection) -> dict[str, Any]:
    sections = list_sections(conn, view.work_id, stage=4)
    confirmed = sorted(view.fine_outlines)
    shadow_chapters = sorted({s.target_chapter or 0 for s in sections if s.state == "shadow"})
    blockers = [f.message for f in stage_order(view, 4)]
    return {
        "stage": 4,
        "name": STAGES[4].name,
        "key": STAGES[4].key,
        "state": "confirmed" if confirmed else ("shadow" if shadow_chapters else "empty"),
        "confirmedChapters": _ranges(confirmed),
        "confirmedCount": len(confirmed),
        "shadowChapters": _ranges(shadow_chapters),
        "batches": [b.wire() for b in list_batches(conn, view.work_id)],
        "blockers": blockers,
    }


def plan_status(conn: Connection, work_id: int, *, stage: int | None = None) -> dict[str, Any]:
    """The stages with their blockers. The gates are those of ``muse plan check`` (one
    computation, :func:`check_plan`): show never says writing is ready while check blocks."""
    view = load_plan_view(conn, work_id)
    report = check_plan(conn, work_id)
    stages = [
        (_fine_outlines(view, conn) if st.number == 4 else _upper_stage(view, conn, st))
        for st in STAGES
        if stage is None or st.number == stage
    ]
    confirmed_ids = {c.section.id for c in [*view.confirmed.values(), *view.fine_outlines.values()]}
    for entry in stages:
        entry["checkErrors"] = [  # about the confirmed plan: drafts show their own errors
            f.line()
            for f in report.blocking
            if f.stage == entry["stage"] and (f.section_id is None or f.section_id in confirmed_ids)
        ]
        entry["needsReview"] = [
            f.message
            for f in report.findings
            if f.code == "upstream_superseded" and f.stage == entry["stage"]
        ]
        entry["blockers"] += entry["checkErrors"]
    first_open = next((st for st in STAGES[:4] if st.number not in view.confirmed), None)
    if not view.planning:
        advice = "自由模式：尚未开始规划（没有定盘）。细纲确认后即可写作；开始规划请起草定盘：muse plan draft 0"
    elif first_open is not None:
        advice = f"下一步：完成并确认{first_open.label}"
    else:
        advice = "阶段 0–3 均已确认：起草并确认逐章细纲后即可写作"
    if report.blocking:  # never "ready" while the check blocks
        first = report.blocking[0].message
        blocked = f"muse plan check 有 {len(report.blocking)} 个阻断问题（如：{first}）"
        advice = (
            f"{blocked}，处理后才能写作"
            if first_open is None or not view.planning
            else f"{advice}；另外{blocked}"
        )
    return _status(work_id, view, stages, advice, report)


def _status(
    work_id: int, view: PlanView, stages: list[dict[str, Any]], advice: str, report: CheckReport
) -> dict[str, Any]:
    return {
        "workId": work_id,
        "mode": view.mode,
        "stages": stages,
        "next": advice,
        "checkErrors": len(report.blocking),
    }
