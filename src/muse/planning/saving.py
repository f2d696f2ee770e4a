"""Saving a stage's output as a shadow section: the schema gate refuses, the other gates report.

A payload that breaks its stage's schema is refused with every field named. A valid one is
stored as shadow together with its check report (stage order, doubts, recommended fields, the
mechanical checks); errors in that report do not stop the save — they stop the confirmation.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel
from sqlalchemy import Connection

from muse.core.errors import InvalidInput, NotFound
from muse.patterns import find_pattern
from muse.planning.findings import Finding, located
from muse.planning.gates import review
from muse.planning.plan_view import load_plan_view
from muse.planning.sections import insert_section
from muse.planning.setting_link import setting_state
from muse.planning.stage_contracts import Assembly, CardPin, SettingSignoff
from muse.planning.stages import StageDef, stage_of
from muse.planning.validation import parse_stage_payload


@dataclass(frozen=True)
class Saved:
    section_id: str
    stage: int
    findings: list[Finding]

    @property
    def blocking(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]


def _pin_patterns(conn: Connection, work_id: int, assembly: Assembly) -> Assembly:
    """Fix each chosen pattern to an exact version and content hash (latest when unpinned)."""
    pinned = []
    for choice in assembly.patterns:
        try:
            card = find_pattern(
                conn, work_id, choice.key, public=choice.public, version=choice.version
            )
        except NotFound:
            pinned.append(choice)  # reported by the check as pattern_missing
            continue
        pinned.append(
            choice.model_copy(
                update={
                    "version": card.version,
                    "content_sha256": choice.content_sha256 or card.content_sha256,
                }
            )
        )
    return assembly.model_copy(update={"patterns": tuple(pinned)})


def _prepare(conn: Connection, work_id: int, stage: StageDef, model: BaseModel) -> BaseModel:
    if isinstance(model, Assembly):
        return _pin_patterns(conn, work_id, model)
    return model


def save_stage_section(
    conn: Connection,
    work_id: int,
    stage: int | str,
    payload: Any,
    *,
    origin: str = "import",
    origin_detail: Mapping[str, Any] | None = None,
    variant: tuple[str, int] | None = None,
) -> Saved:
    """Validate ``payload`` for ``stage`` and store it as a shadow section with its report."""
    st = stage_of(stage)
    model = _prepare(conn, work_id, st, parse_stage_payload(st, payload))
    view = load_plan_view(conn, work_id)
    findings = review(view, st.number, model)
    section_id = insert_section(
        conn,
        work_id,
        section_type=st.section_type,
        stage=st.number,
        payload=model.model_dump(mode="json"),
        target_chapter=getattr(model, "target_chapter", None) if st.number == 4 else None,
        origin=origin,
        origin_detail=origin_detail,
        variant=variant,
        report=findings,
    )
    return Saved(section_id, st.number, located(findings, stage=st.number, section_id=section_id))


def build_signoff(conn: Connection, work_id: int, note: str = "") -> dict:
    """Stage 2's payload: the work's confirmed cards, pinned by their content hash (设定台账)."""
    cards = setting_state(conn, work_id).cards
    if not cards:
        raise InvalidInput(
            "还没有已确认的卡片，设定拆条无从签收。",
            hint="先用卡片命令导入并确认设定卡（或 muse plan draft 2 起草卡片草稿）。",
        )
    pins = [
        CardPin(card_id=c.id, name=c.name, type=c.type, spec_sha256=c.spec_sha256) for c in cards
    ]
    return SettingSignoff(cards=tuple(pins), note=note).model_dump(mode="json")
