"""The writer's explore phase (spec 001 §5, spec 003 "两阶段写手").

One dispatched call of writer/explore, WITH the read-only tools of its task package (through
``agents.dispatching``, so the call has its receipt and every tool read its ledger row). The model
reads what it wants through the as-of view and returns an ``ExploreDraft``; Muse vets it into an
``ExplorationManifest`` with the retrieval plan's reads first (``plan_reads.merge_reads``). The
manifest, not the model's memory of what it read, is what the deterministic replay executes.

It lives in flow, not context: flow is the one package that dispatches the writer (explore
here, generate in ``flow.production``); context supplies the plan's reads, the as-of view, the
tool reader and the manifest rules (``context.explore.plan_reads``).

A draft that is not even a valid ``ExploreDraft`` is refused by dispatch (one repair, then
``InvalidOutput``); single bad reads inside a valid draft are dropped with their reason.
"""

from __future__ import annotations

from sqlalchemy import Engine

from muse.agents import RetryPolicy, ToolSet, dispatch
from muse.context import (
    EXPLORE_INPUT_VERSION,
    AsOfToolReader,
    AsOfView,
    ExplorationManifest,
    ExploreDraft,
    explore_whitelist,
    from_draft,
    merge_reads,
    planned_reads,
    refresh_index,
)
from muse.core.errors import ContractViolation
from muse.planning import FineOutline
from muse.store.engine import reading


def explore(
    engine: Engine,
    *,
    run_id: str,
    work_id: int,
    as_of: int,
    target_chapter: int,
    outline: FineOutline,
    provider: str,
    model: str,
    timeout_s: float | None = None,
    retry: RetryPolicy | None = None,
) -> ExplorationManifest:
    """Dispatch writer/explore with its read-only tools and return the vetted manifest."""
    if outline.target_chapter != target_chapter:
        raise ContractViolation(
            f"细纲属于第 {outline.target_chapter} 章，不是目标章第 {target_chapter} 章。"
        )
    if as_of >= target_chapter:
        raise ContractViolation(
            f"冻结点（第 {as_of} 章）必须早于目标章（第 {target_chapter} 章）。"
        )
    with engine.begin() as conn:
        refresh_index(conn, work_id)  # search_prose must see the canonical text
    whitelist = explore_whitelist()
    with reading(engine) as conn:
        view = AsOfView(conn, work_id, as_of)
        planned = planned_reads(view, outline)
        task_input = {
            "schemaVersion": EXPLORE_INPUT_VERSION,
            "workId": work_id,
            "targetChapter": target_chapter,
            "asOf": as_of,
            "fineOutline": outline.model_dump(mode="json"),
            "plannedReads": [{"tool": r.tool, "args": r.args, "why": r.why} for r in planned],
        }
        result = dispatch(
            engine,
            role="writer",
            task="explore",
            provider=provider,
            model=model,
            task_input=task_input,
            output_model=ExploreDraft,
            run_id=run_id,
            tools=ToolSet(AsOfToolReader(view, target_chapter), allowed=whitelist),
            timeout_s=timeout_s,
            retry=retry,
        )
    assert isinstance(result.output, ExploreDraft)
    return merge_reads(
        work_id=work_id,
        target_chapter=target_chapter,
        as_of=as_of,
        planned=planned,
        explored=from_draft(result.output),
        notes=result.output.notes,
        receipt_id=result.receipt_id,
        whitelist=whitelist,
    )
