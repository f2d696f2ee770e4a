"""The planner role drafts a stage from what is confirmed above it (spec 003, planner).

Each call goes through the agents layer (``dispatch``, role ``planner``, task ``draft``) with the
stage's own contract as the output model, so the planner's output is exactly what the author
edits and what the gates check. Drafts are always shadow; ``variants`` drafts of one request
share a variant group so they can be compared before one is confirmed. Stage 2's proposals
become knowledge card drafts, confirmed card by card through the knowledge domain.

No transaction is held open while a model is called: upstream is read, the connection is
released, the call is made (it writes its own receipt), and each draft is saved in its own
transaction.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import BaseModel
from sqlalchemy import Connection, Engine

from muse.agents import dispatch
from muse.core.errors import ContractViolation, InvalidInput
from muse.core.ids import new_id
from muse.planning.findings import Finding, GateBlocked
from muse.planning.gates import stage_order
from muse.planning.plan_view import load_plan_view
from muse.planning.planner_io import SettingProposal, task_input
from muse.planning.saving import save_stage_section
from muse.planning.setting_link import submit_card_proposals
from muse.planning.stages import StageDef, stage_of

MAX_VARIANTS = 5


@dataclass(frozen=True)
class Drafted:
    variant: int
    receipt_id: str
    model_returned: str
    section_id: str | None = None  # stages 0, 1, 3, 4
    findings: list[Finding] = field(default_factory=list)
    card_drafts: list[dict] = field(default_factory=list)  # stage 2

    def wire(self) -> dict:
        return {
            "variant": self.variant,
            "receiptId": self.receipt_id,
            "modelReturned": self.model_returned,
            "sectionId": self.section_id,
            "findings": [f.wire() for f in self.findings],
            "cardDrafts": self.card_drafts,
        }


def output_model(stage: StageDef) -> type[BaseModel]:
    return SettingProposal if stage.number == 2 else stage.contract


def planner_inputs(
    engine: Engine,
    work_id: int,
    stage: StageDef,
    variants: int,
    chapter: int | None,
    note: str | None,
) -> list[dict]:
    """Frozen inputs of the calls, or GateBlocked when an upper stage is not confirmed."""
    with engine.connect().execution_options(sqlite_begin="DEFERRED") as conn, conn.begin():
        view = load_plan_view(conn, work_id)
        missing = stage_order(view, stage.number)
        if missing:
            raise GateBlocked(
                f"不能起草{stage.label}：", missing, hint="规划员只依据已确认的上层规划起草。"
            )
        return [
            task_input(view, stage, variant=i, chapter=chapter, note=note)
            for i in range(1, variants + 1)
        ]


def call_planner(
    engine: Engine,
    stage: StageDef,
    data: dict,
    *,
    provider: str,
    model: str,
    run_id: str | None = None,
):
    return dispatch(
        engine,
        role="planner",
        task="draft",
        provider=provider,
        model=model,
        task_input=data,
        output_model=output_model(stage),
        run_id=run_id,
    )


def store_output(
    conn: Connection,
    work_id: int,
    stage: StageDef,
    result,
    *,
    variant: tuple[str, int] | None,
    chapter: int | None,
    origin: str = "planner",
    extra: dict | None = None,
) -> Drafted:
    """Save one planner answer: a shadow section (stage 2: knowledge card drafts)."""
    output = result.output.model_dump(mode="json")
    detail = {
        "receiptId": result.receipt_id,
        "modelReturned": result.model_returned,
        **(extra or {}),
    }
    index = variant[1] if variant else 1
    if stage.number == 2:
        outcomes = submit_card_proposals(conn, work_id, output["cards"], detail)
        return Drafted(index, result.receipt_id, result.model_returned, card_drafts=outcomes)
    if stage.number == 4 and output.get("target_chapter") != chapter:
        raise ContractViolation(
            f"规划员返回的细纲是第 {output.get('target_chapter')} 章，"
            f"请求的是第 {chapter} 章；已拒收。"
        )
    saved = save_stage_section(
        conn, work_id, stage.number, output, origin=origin, origin_detail=detail, variant=variant
    )
    return Drafted(
        index, result.receipt_id, result.model_returned, saved.section_id, saved.findings
    )


def draft_stage(
    engine: Engine,
    work_id: int,
    stage: int | str,
    *,
    provider: str,
    model: str,
    variants: int = 1,
    chapter: int | None = None,
    note: str | None = None,
) -> list[Drafted]:
    """Draft ``variants`` shadow versions of ``stage`` (one chapter for stage 4)."""
    st = stage_of(stage)
    if not 1 <= variants <= MAX_VARIANTS:
        raise InvalidInput(f"变体数应在 1–{MAX_VARIANTS} 之间。")
    if st.number == 4 and chapter is None:
        raise InvalidInput("起草细纲要指定章号（--chapter N），整卷请用 --chapters A-B 分批起草。")
    group = new_id("var") if variants > 1 else None
    drafted = []
    for data in planner_inputs(engine, work_id, st, variants, chapter, note):
        result = call_planner(engine, st, data, provider=provider, model=model)
        variant = (group, data["variant"]) if group else None
        with engine.begin() as conn:
            drafted.append(
                store_output(conn, work_id, st, result, variant=variant, chapter=chapter)
            )
    return drafted
