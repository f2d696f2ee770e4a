"""The stage gates: stage order, the mechanical checks of each stage, and the generation gate.

Rule of stage order (spec 001 §1A "上层约束下层"; the planning mode is defined in
``plan_view.py``): a section of stage *k* can be confirmed only when stages 0 … k−1 are
confirmed; in free mode a fine outline (stage 4) is exempt, and its checks are only reported —
except the checks that protect the chapter's content (``CONTENT_GATES``), which block in every
mode.
:func:`generation_gate` applies the same rule when a confirmed fine outline is about to feed
generation, so a plan whose upper stages changed under it is stopped with the reason named.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from pydantic import BaseModel

from muse.planning import checks_lower, checks_upper
from muse.planning.contracts import FineOutline
from muse.planning.findings import Finding, GateBlocked, as_warnings, error, errors, located
from muse.planning.plan_view import PlanView
from muse.planning.sections import Section
from muse.planning.stages import STAGES
from muse.planning.validation import schema_findings

CHECKS: dict[int, tuple[Callable[..., Iterable[Finding]], ...]] = {
    **checks_upper.CHECKS,
    **checks_lower.CHECKS,
}
FREE_MODE = "自由模式：作品尚未开始规划（没有定盘），仅提示"
# Checks that protect the chapter's content itself, not its fit with a plan: they block in free
# mode too (issue 19). A fine outline whose hard constraints are incomplete would feed the writer
# and the mechanical gate a chapter contract with a hole in it, whatever the planning mode. The
# payload's schema and its target chapter are checked in every mode where it is loaded
# (``fine_outlines.load_confirmed``).
CONTENT_GATES = frozenset({"foreshadowing_missing"})


def stage_order(view: PlanView, stage: int) -> list[Finding]:
    """One error per upstream stage that is not confirmed (none for stage 4 in free mode)."""
    if stage == 4 and not view.planning:
        return []
    return [
        error(
            "stage_order",
            f"{STAGES[s].label}尚未确认：上层规划确认之前，"
            f"{STAGES[stage].name}不能确认，也不能进入生成上下文",
            stage=stage,
        )
        for s in range(stage)
        if s not in view.confirmed
    ]


def check_stage(
    view: PlanView, stage: int, model: BaseModel, section: Section | None = None
) -> list[Finding]:
    """Every mechanical finding of ``model`` (a payload of ``stage``) against ``view``."""
    found = [f for check in CHECKS[stage] for f in check(view, model, section)]
    if stage == 4 and not view.planning:
        found = as_warnings(found, FREE_MODE, keep=CONTENT_GATES)
    return located(found, stage=stage, section_id=section.id if section else None)


def review(
    view: PlanView, stage: int, model: BaseModel, section: Section | None = None
) -> list[Finding]:
    """Stage order, schema findings (doubts, recommended fields) and the mechanical checks."""
    payload = model.model_dump(mode="json")
    found = located(
        schema_findings(STAGES[stage], model, payload),
        stage=stage,
        section_id=section.id if section else None,
    )
    return stage_order(view, stage) + found + check_stage(view, stage, model, section)


def generation_gate(view: PlanView, section: Section, outline: FineOutline) -> None:
    """Refuse a confirmed fine outline whose plan does not hold (planning mode only).

    Re-checked now: stages 0–3 confirmed; the confirmed outline (stage 1) and assembly (stage 3)
    still agree with what is above them; the fine outline passes its own checks. Stage 2 is not
    re-checked here: cards evolve while the book is written, and that is reported, not blocked.
    """
    if not view.planning:  # free mode: only the content gates (CONTENT_GATES) can block
        blocking = errors(check_stage(view, 4, outline, section))
        if blocking:
            raise GateBlocked(
                f"第 {outline.target_chapter} 章细纲（{section.id}）不能进入生成上下文：",
                blocking,
                hint="补全细纲后重新确认（这类问题在自由模式下同样阻断）。",
            )
        return
    blocking = stage_order(view, 4)
    for stage in (1, 3):  # an upper plan that no longer agrees with the plan above it
        if stage in view.confirmed:
            upper = view.confirmed[stage]
            blocking += errors(check_stage(view, stage, upper.model, upper.section))
    blocking = errors(blocking + check_stage(view, 4, outline, section))
    if blocking:
        raise GateBlocked(
            f"第 {outline.target_chapter} 章细纲（{section.id}）不能进入生成上下文：",
            blocking,
            hint="用 muse plan check 查看全部问题；修改规划后重新确认。",
        )
