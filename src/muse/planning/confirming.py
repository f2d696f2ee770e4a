"""Confirming a plan section: the author's decision, after every gate (spec 001 §1A).

Shadow → confirmed is the only way to confirm, and only a shadow can be confirmed. Before it,
the stage order and the section's checks run against the plan as confirmed *now*; any error
refuses the confirmation with every reason named (:class:`GateBlocked`). The confirmation stores
the upstream it was checked against (``basis``); the sections confirmed against a version it
supersedes are marked 需复核 and its own superseded version's marks are cleared (reviews.py). Confirming an assembly (stage 3) binds its
patterns and style in the same transaction.
"""

from __future__ import annotations

from sqlalchemy import Connection, Engine

from muse.core.errors import StaleTransition
from muse.patterns import Binding, bind_assembly, find_pattern
from muse.planning.findings import Finding, GateBlocked, errors
from muse.planning.gates import review
from muse.planning.plan_view import load_plan_view
from muse.planning.reviews import confirmed_twins, record_supersession
from muse.planning.sections import (
    Section,
    get_section,
    lock_twins,
    mark_confirmed,
    record_check,
)
from muse.planning.stage_contracts import Assembly
from muse.planning.stages import STAGES


def _bind(conn: Connection, section: Section, assembly: Assembly) -> None:
    bindings = [
        Binding(
            find_pattern(conn, section.work_id, c.key, public=c.public, version=c.version),
            c.purpose,
        )
        for c in assembly.patterns
    ]
    bind_assembly(conn, section.work_id, section.id, bindings, assembly.style)


def confirm_section(conn: Connection, section_id: str) -> list[Finding]:
    """Confirm a shadow section if every gate passes; returns the remaining warnings."""
    lock_twins(conn, get_section(conn, section_id))  # then read and check under the lock
    section = get_section(conn, section_id)
    if section.state != "shadow":
        raise StaleTransition(
            f"只有 shadow 状态的规划可以确认，{section_id} 当前是 {section.state}。"
        )
    superseded = confirmed_twins(conn, section)
    if section.stage is None:  # a section outside the five stages has no stage gates
        mark_confirmed(conn, section, [])
        record_supersession(conn, section, superseded)
        return []
    view = load_plan_view(conn, section.work_id)
    stage = STAGES[section.stage]
    model = stage.contract.model_validate(section.payload)
    findings = review(view, stage.number, model, section)
    blocking = errors(findings)
    if blocking:
        raise GateBlocked(
            f"{stage.label}（{section_id}）不能确认：",
            blocking,
            hint="修改后重新保存（muse plan edit / import），或用 muse plan check 查看。",
        )
    mark_confirmed(conn, section, view.basis(stage.number))
    record_supersession(conn, section, superseded)  # 需复核 for what stood on the old version
    record_check(conn, section_id, findings)
    if isinstance(model, Assembly):
        _bind(conn, section, model)
    return findings


def confirm_and_record(engine: Engine, section_id: str) -> list[Finding]:
    """:func:`confirm_section` in its own transaction; a refusal's reasons are stored on the row."""
    try:
        with engine.begin() as conn:
            return confirm_section(conn, section_id)
    except GateBlocked as refused:
        with engine.begin() as conn:
            record_check(conn, section_id, refused.findings)
        raise
