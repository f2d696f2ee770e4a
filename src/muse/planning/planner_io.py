"""What the planner receives and, for stage 2, returns.

The planner drafts a stage from what is confirmed above it (spec 003, planner): the task input
holds the confirmed upper stages only — never a shadow — plus what the stage needs (the chapter
for a fine outline, the available pattern cards for an assembly). Stages 0, 1, 3 and 4 answer in
their own contracts; stage 2 answers with card proposals, which become knowledge drafts.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from muse.patterns import Strict, list_patterns
from muse.planning.contracts import FineOutline
from muse.planning.existing_book import book_summary
from muse.planning.plan_view import PlanView
from muse.planning.stages import StageDef
from muse.planning.text_measures import chapter_target
from muse.works import get_work_row

RECENT_OUTLINES = 3


class ProposedStep(Strict):
    chapter: int | None = Field(default=None, ge=1, title="章")
    cycle: Literal["登场", "成长", "高光", "退场", "结局"] = Field(title="周期")
    step: str = Field(default="", title="台阶")
    description: str = Field(default="", title="说明")


class ProposedCard(Strict):
    type: str = Field(min_length=1, title="类型", description="卡片类型键，如 character、artifact")
    name: str = Field(min_length=1, title="名称")
    summary: str = Field(min_length=1, title="简介")
    fields: dict[str, str] = Field(default_factory=dict, title="字段", description="字段键 → 内容")
    growth_arc: tuple[ProposedStep, ...] = Field(default=(), title="成长弧线")
    ending_direction: str = Field(default="", title="结局方向")


class SettingProposal(Strict):
    cards: tuple[ProposedCard, ...] = Field(min_length=1, title="卡片提案")
    design_issues: tuple[str, ...] = Field(default=(), title="设计问题")


def _confirmed(view: PlanView, below: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    names = {0: "foundation", 1: "outline", 2: "setting", 3: "assembly"}
    for stage, key in names.items():
        if stage < below and stage in view.confirmed:
            out[key] = view.confirmed[stage].model.model_dump(mode="json")
    if below > 2 and 2 in view.confirmed:
        out["cards"] = [
            {
                "name": c.name,
                "type": c.type,
                "typeLabel": c.type_label,
                "aliases": sorted(c.names - {c.name}),
            }
            for c in view.setting.cards
        ]
    return out


def task_input(
    view: PlanView,
    stage: StageDef,
    *,
    variant: int,
    chapter: int | None = None,
    note: str | None = None,
) -> dict[str, Any]:
    """The frozen input of one planner call (JSON only, nothing unconfirmed)."""
    data: dict[str, Any] = {
        "task": stage.key,
        "stage": stage.number,
        "stageName": stage.name,
        "work": {
            "title": get_work_row(view.conn, view.work_id).title,
            "latestChapter": view.latest_chapter,
        },
        "variant": variant,
        "authorNote": note or "",
        "confirmed": _confirmed(view, stage.number),
    }
    existing = book_summary(view) if stage.number in (0, 1) else None
    if existing:
        data["existingBook"] = existing
    if stage.number == 3:
        data["availablePatterns"] = [
            {
                "key": p.key,
                "public": p.public,
                "version": p.version,
                "name": p.name,
                "category": p.category,
                "summary": p.content.summary,
            }
            for p in list_patterns(view.conn, view.work_id)
        ]
    if stage.number == 4 and chapter is not None:
        data["chapter"] = chapter
        data["recentOutlines"] = [
            o.model_dump(mode="json") for o in view.outlines_before(chapter)[-RECENT_OUTLINES:]
        ]
        data["chapterTargetChars"] = _target_estimate(view, chapter)
    return data


def _target_estimate(view: PlanView, chapter: int) -> int:
    """The chapter's target length for a typical outline (density 3), to size the skeleton."""
    stub = FineOutline.model_validate(
        {
            "target_chapter": chapter,
            "hard_constraints": {
                "hard_events": [{"id": f"H{i}", "text": "事"} for i in (1, 2)],
                "result_direction": {"id": "R1", "text": "果"},
                "foreshadowing": [
                    {"id": "F1", "action": "埋", "thread": "线", "text": "伏"},
                    {"id": "F2", "action": "推", "thread": "线", "text": "伏"},
                ],
                "chapter_end_hook": {"id": "K1", "text": "钩"},
                "required_entities": [{"id": "E1", "name": "人"}],
            },
        }
    )
    return chapter_target(stub, view.lengths_before(chapter), view.work_default_chars)
