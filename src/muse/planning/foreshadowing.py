"""The foreshadowing ledger (伏笔台账): each thread planted, advanced and paid off as planned.

The plan is the confirmed outline's ``foreshadowing_threads`` (plant, advance and payoff
chapters); what actually happens is read from the fine outlines' 埋 / 推 / 收 actions. A fine
outline is checked against both before it can be confirmed:

* 推 or 收 of a thread that was never planted (no earlier 埋) and is not in the plan → error;
* 收 before the planned payoff chapter (提前回收), or of a thread already paid off → error;
* a planned payoff in this chapter without 收, or a planned payoff already past → error (逾期);
* 埋 away from the planned chapter, or of a thread the outline does not plan → warning.

The ledger flags a thread as overdue (逾期) once the book — its latest chapter or confirmed fine
outline — has passed the planned payoff without a 收.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from muse.planning.contracts import FineOutline
from muse.planning.findings import Finding, Where, error, warning
from muse.planning.stage_contracts import ThreadPlan, WorkOutline


@dataclass
class ThreadHistory:
    planted: int | None = None
    advanced: list[int] = field(default_factory=list)
    paid: int | None = None


def thread_history(outlines: Iterable[FineOutline]) -> dict[str, ThreadHistory]:
    history: dict[str, ThreadHistory] = {}
    for outline in sorted(outlines, key=lambda o: o.target_chapter):
        for action in outline.hard_constraints.foreshadowing:
            h = history.setdefault(action.thread, ThreadHistory())
            if action.action == "埋" and h.planted is None:
                h.planted = outline.target_chapter
            elif action.action == "推":
                h.advanced.append(outline.target_chapter)
            elif action.action == "收" and h.paid is None:
                h.paid = outline.target_chapter
    return history


def _plans(plan: WorkOutline | None) -> dict[str, ThreadPlan]:
    return {t.thread: t for t in plan.foreshadowing_threads} if plan else {}


def check_threads(
    plan: WorkOutline | None, before: list[FineOutline], outline: FineOutline
) -> Iterator[Finding]:
    """Findings of ``outline``'s foreshadowing actions against the plan and earlier outlines."""
    n, plans, history = outline.target_chapter, _plans(plan), thread_history(before)
    for i, a in enumerate(outline.hard_constraints.foreshadowing):
        where: Where = {"field": f"hard_constraints.foreshadowing.{i}"}
        planned, h = plans.get(a.thread), history.get(a.thread, ThreadHistory())
        if a.action != "埋" and h.planted is None and planned is None:
            verb = "回收" if a.action == "收" else "推进"
            yield error(
                "thread_never_planted",
                f"{verb}了从未埋设、也不在大纲伏笔线里的伏笔「{a.thread}」",
                **where,
            )
        elif a.action != "埋" and h.planted is None and planned and planned.plant_chapter > n:
            yield error(
                "thread_before_plant",
                f"伏笔「{a.thread}」计划第 {planned.plant_chapter} 章才埋设，"
                f"第 {n} 章不能{a.action}",
                **where,
            )
        if h.paid is not None:
            yield error(
                "thread_already_paid",
                f"伏笔「{a.thread}」已在第 {h.paid} 章回收，不能再{a.action}",
                **where,
            )
        elif a.action == "收" and planned and n < planned.payoff_chapter:
            yield error(
                "thread_paid_early",
                f"伏笔「{a.thread}」计划第 {planned.payoff_chapter} 章回收，"
                f"第 {n} 章提前回收与已确认大纲相悖",
                **where,
            )
        elif a.action == "收" and planned and n > planned.payoff_chapter:
            yield warning(
                "thread_paid_late",
                f"伏笔「{a.thread}」计划第 {planned.payoff_chapter} 章回收，推迟到第 {n} 章",
                **where,
            )
        if a.action == "埋" and planned is None and plan is not None:
            yield warning(
                "thread_unplanned", f"新伏笔「{a.thread}」不在大纲伏笔线里，建议补进大纲", **where
            )
        elif a.action == "埋" and planned and planned.plant_chapter != n:
            yield warning(
                "thread_plant_moved",
                f"伏笔「{a.thread}」计划第 {planned.plant_chapter} 章埋设",
                **where,
            )
    yield from _due(plans, history, outline)


def _due(
    plans: dict[str, ThreadPlan], history: dict[str, ThreadHistory], outline: FineOutline
) -> Iterator[Finding]:
    n = outline.target_chapter
    paying = {a.thread for a in outline.hard_constraints.foreshadowing if a.action == "收"}
    for name, planned in plans.items():
        if history.get(name, ThreadHistory()).paid is not None or name in paying:
            continue
        if planned.payoff_chapter == n:
            yield error(
                "thread_payoff_missing",
                f"已确认大纲计划本章回收伏笔「{name}」，细纲里没有「收」",
                field="hard_constraints.foreshadowing",
            )
        elif planned.payoff_chapter < n:
            yield error(
                "thread_overdue",
                f"伏笔「{name}」计划第 {planned.payoff_chapter} 章回收，至今未收，"
                "已逾期：先回收或修改大纲的伏笔线",
                field="hard_constraints.foreshadowing",
            )


@dataclass(frozen=True)
class ThreadStatus:
    thread: str
    plan: dict[str, Any] | None  # {plant, advances, payoff} from the confirmed outline
    planted: int | None
    advanced: tuple[int, ...]
    paid: int | None
    status: str  # 未埋 | 已埋 | 已收 | 逾期 | 计划外

    def wire(self) -> dict[str, Any]:
        return {
            "thread": self.thread,
            "plan": self.plan,
            "planted": self.planted,
            "advanced": list(self.advanced),
            "paid": self.paid,
            "status": self.status,
        }


def foreshadowing_ledger(
    plan: WorkOutline | None, outlines: Iterable[FineOutline], progress: int
) -> list[ThreadStatus]:
    """Every planned or used thread with its status as of ``progress`` (the furthest chapter)."""
    history, plans = thread_history(outlines), _plans(plan)
    out = []
    for name in [*plans, *sorted(set(history) - set(plans))]:
        h, p = history.get(name, ThreadHistory()), plans.get(name)
        if h.paid is not None:
            status = "已收"
        elif p is not None and p.payoff_chapter <= progress:
            status = "逾期"
        elif p is None:
            status = "计划外"
        else:
            status = "已埋" if h.planted is not None else "未埋"
        planned = (
            {
                "plant": p.plant_chapter,
                "advances": list(p.advance_chapters),
                "payoff": p.payoff_chapter,
            }
            if p
            else None
        )
        out.append(ThreadStatus(name, planned, h.planted, tuple(h.advanced), h.paid, status))
    return out
