"""``muse plan check``: every gate re-run against the plan as it is now, plus the foreshadowing ledger.

A confirmed section stays confirmed, but the plan above it may have changed since; the check shows
what no longer holds (a fine outline that now contradicts a newer outline is also refused by the
generation gate). The latest shadow of each stage is checked too, so the author sees what stands
between a draft and its confirmation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection

from muse.planning.findings import Finding, error, warning
from muse.planning.foreshadowing import ThreadStatus, foreshadowing_ledger
from muse.planning.gates import review
from muse.planning.plan_view import PlanView, load_plan_view
from muse.planning.reviews import review_findings
from muse.planning.sections import Section, list_sections
from muse.planning.stages import STAGES


@dataclass(frozen=True)
class CheckReport:
    work_id: int
    mode: str
    checked: list[dict[str, Any]]  # section briefs that were checked
    findings: list[Finding]
    ledger: list[ThreadStatus]

    @property
    def blocking(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]

    def wire(self) -> dict[str, Any]:
        return {
            "workId": self.work_id,
            "mode": self.mode,
            "checked": self.checked,
            "findings": [f.wire() for f in self.findings],
            "errors": len(self.blocking),
            "ledger": [t.wire() for t in self.ledger],
        }


def _latest_per_key(sections: list[Section]) -> list[Section]:
    """The confirmed section and the newest shadow of each (stage, chapter)."""
    chosen: dict[tuple[int | None, int | None, str], Section] = {}
    for s in sections:
        key = (s.stage, s.target_chapter, s.state)
        if s.state == "confirmed" or key not in chosen or s.created_at >= chosen[key].created_at:
            chosen[key] = s
    return sorted(chosen.values(), key=lambda s: (s.stage, s.target_chapter or 0, s.state))


def _ledger_findings(view: PlanView, ledger: list[ThreadStatus]) -> list[Finding]:
    make = error if view.planning else warning
    return [
        make(
            "thread_overdue",
            f"伏笔「{t.thread}」计划第 {t.plan['payoff']} 章回收，至今未收（逾期）",
            stage=1,
        )
        for t in ledger
        if t.status == "逾期" and t.plan
    ]


def progress_of(view: PlanView) -> int:
    """How far the book has got: its latest chapter or its furthest confirmed fine outline."""
    return max([view.latest_chapter, *view.fine_outlines])


def check_plan(conn: Connection, work_id: int, *, stage: int | None = None) -> CheckReport:
    view = load_plan_view(conn, work_id)
    sections = [s for s in list_sections(conn, work_id, stage=stage) if s.stage is not None]
    findings, checked = [], []
    for section in _latest_per_key(sections):
        model = STAGES[section.stage].contract.model_validate(section.payload)  # type: ignore[index]
        findings += review(view, section.stage, model, section)  # type: ignore[arg-type]
        checked.append(section.brief())
    ledger = foreshadowing_ledger(
        view.outline, view.outlines_before(progress_of(view) + 1), progress_of(view)
    )
    if stage in (None, 1, 4):
        findings += _ledger_findings(view, ledger)
    findings += [f for f in review_findings(conn, work_id) if stage is None or f.stage == stage]
    return CheckReport(work_id, view.mode, checked, findings, ledger)
