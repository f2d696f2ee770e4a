"""Generating the three arms of one sample (spec 000 §3.2, §10; the sample: ``replay``).

For each arm: its evaluation run and authorization snapshot, the frozen arm context (``AsOfView``
at ``as_of = N − 1``; arm C passes the production sufficiency gate), and the writer's candidate
of an attempt (:func:`produce`, also the rewrite step of ``arm_detection``). Idempotent: a stored
candidate is rebuilt from its receipted writer reply, and a receipted reply whose candidate was
not stored yet is used, so a resumed sample calls the writer only for what is missing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel
from sqlalchemy import Connection, Engine

from muse.agents import (
    AgentCallError,
    DispatchResult,
    ForbiddenInput,
    InvalidOutput,
    dispatch,
    receipt_of,
    stored_reply,
)
from muse.context import (
    FrozenContext,
    UnlocatedClaim,
    WriterContext,
    WriterDraft,
    WriterOutput,
    build_output,
    freeze_context,
    latest_snapshot,
)
from muse.core.clock import utc_now
from muse.core.errors import AuthorizationError, ContractViolation
from muse.core.ids import new_id
from muse.evaluation.arms import freeze_arm
from muse.evaluation.contracts import ARM_MODES, ARMS, EVAL_POLICY_VERSION
from muse.evaluation.replay import SampleCtx, SampleFailed
from muse.evaluation.sample_state import arm_rows
from muse.evaluation.tables import eval_arms
from muse.flow import (
    candidate_of_version,
    insert_candidate,
    insert_run,
    move_candidate,
    move_run,
    run_row,
    with_attempt,
    writer_input,
)
from muse.store.engine import reading
from muse.works import get_snapshot, take_snapshot


def generate_arms(ctx: SampleCtx) -> None:
    for arm in ARMS:
        _generate_arm(ctx, arm)


def _generate_arm(ctx: SampleCtx, arm: str) -> None:
    with ctx.engine.begin() as conn:
        row = arm_rows(conn, ctx.eval_run_id).get(arm)
    if row is not None and row.candidate_id is not None:
        return
    run_id = row.run_id if row is not None else _start_arm_run(ctx, arm)
    state = _run_state(ctx.engine, run_id)
    if state == "retrieving":
        _freeze(ctx, arm, run_id)
        state = "writing"
    if state != "writing":
        raise SampleFailed("failed_contract", f"{arm} 臂运行停在意外的状态 {state}。")
    with reading(ctx.engine) as conn:
        frozen = load_frozen(conn, run_id)
    produce(ctx, arm, run_id, frozen, 1, None)


def _run_state(engine: Engine, run_id: str) -> str:
    with reading(engine) as conn:
        return run_row(conn, run_id).state


def _start_arm_run(ctx: SampleCtx, arm: str) -> str:
    """Insert the arm's run and take its authorization snapshot (purpose: evaluation)."""
    writer = ctx.evaluation_set.models.writer
    now = utc_now()
    try:
        with ctx.engine.begin() as conn:
            run_id = insert_run(
                conn,
                work_id=ctx.work_id,
                chapter=ctx.sample.targetChapter,
                run_type="evaluation",
                mode=ARM_MODES[arm],
                quality_policy_version=EVAL_POLICY_VERSION,
                as_of=ctx.as_of,
                provider=writer.provider,
                model=writer.model,
            )
            snapshot = take_snapshot(conn, ctx.work_id, "evaluation")
            move_run(
                conn,
                run_id,
                "retrieving",
                expected_state="validating_context",
                authorization_snapshot_id=snapshot.id,
            )
            conn.execute(
                eval_arms.insert().values(
                    eval_run_id=ctx.eval_run_id,
                    arm=arm,
                    run_id=run_id,
                    created_at=now,
                    updated_at=now,
                )
            )
    except AuthorizationError as err:
        raise SampleFailed("failed_authorization", f"{arm} 臂授权失败：{err}") from None
    ctx.emit(f"{arm}:authorized", "ok")
    return run_id


def _outline_ref(ctx: SampleCtx) -> str:
    return f"eval:{ctx.set_id}:{ctx.sample.sampleId}"


def _freeze(ctx: SampleCtx, arm: str, run_id: str) -> None:
    try:
        with ctx.engine.begin() as conn:
            snapshot_id = run_row(conn, run_id).authorization_snapshot_id
            if snapshot_id is None:  # every arm run takes one before retrieving
                raise AuthorizationError(f"运行 {run_id} 没有授权快照。")
            full = freeze_context(
                conn,
                work_id=ctx.work_id,
                outline=ctx.sample.outline(),
                outline_section_id=_outline_ref(ctx),
                run_id=run_id,
                attempt=1,
                as_of=ctx.as_of,
                authorization=get_snapshot(conn, snapshot_id),
                store=False,
                budget=ctx.evaluation_set.settings.budget,
            )
            if arm == "C" and full.blocking:  # the production sufficiency gate
                raise SampleFailed(
                    "failed_freeze",
                    "C 臂（生产策略）覆盖门阻断：" + "；".join(r.note for r in full.blocking),
                )
            freeze_arm(conn, full.context, arm, run_id)
            move_run(conn, run_id, "writing", expected_state="retrieving")
    except (ContractViolation, AuthorizationError) as err:
        raise SampleFailed("failed_freeze", f"{arm} 臂冻结上下文失败：{err}") from None
    ctx.emit(f"{arm}:frozen", "ok")


def load_frozen(conn: Connection, run_id: str) -> FrozenContext:
    row = latest_snapshot(conn, run_id)
    if row is None:
        raise SampleFailed("failed_freeze", f"运行 {run_id} 没有冻结的上下文。")
    return FrozenContext(row.id, WriterContext.model_validate(row.payload), ())


@dataclass(frozen=True)
class Written:
    """One attempt's candidate of an arm run, as the check needs it."""

    output: WriterOutput
    unlocated: list[UnlocatedClaim]
    candidate_id: str
    receipt_id: str


def produce(
    ctx: SampleCtx,
    arm: str,
    run_id: str,
    frozen: FrozenContext,
    attempt: int,
    revision: dict[str, Any] | None,
) -> Written:
    """Attempt ``attempt`` of the arm's candidate (version = attempt), idempotently: a stored
    candidate is rebuilt from its receipted writer reply, a receipted reply whose candidate was
    not stored yet (a crash in between) is used, and only otherwise is the writer called."""
    task_input = writer_input(frozen.context, revision)
    with reading(ctx.engine) as conn:
        existing = candidate_of_version(conn, run_id, attempt)
    reply = stored_reply(
        ctx.engine,
        run_id=run_id,
        role="writer",
        task="generate",
        task_input=task_input,
        output_model=WriterDraft,
    )
    if existing is not None:
        if reply is None:
            raise SampleFailed("failed_contract", f"{arm} 臂第 {attempt} 稿没有写手回执。")
        output, unlocated = _build(frozen, reply.output, attempt)
        return Written(output, unlocated, existing, reply.receipt_id)
    if reply is not None:
        ctx.emit(f"{arm}:writer", "reused")
    else:
        reply = _call_writer(ctx, arm, run_id, task_input)
    _within_budget(ctx, arm, reply.receipt_id)
    output, unlocated = _build(frozen, reply.output, attempt)
    candidate_id = _store_candidate(ctx, arm, run_id, frozen, output, attempt, reply.receipt_id)
    return Written(output, unlocated, candidate_id, reply.receipt_id)


def _call_writer(
    ctx: SampleCtx, arm: str, run_id: str, task_input: dict[str, Any]
) -> DispatchResult:
    writer = ctx.evaluation_set.models.writer
    ctx.emit(f"{arm}:writer", "running")
    try:
        result = dispatch(
            ctx.engine,
            role="writer",
            task="generate",
            provider=writer.provider,
            model=writer.model,
            task_input=task_input,
            output_model=WriterDraft,
            run_id=run_id,
        )
    except (InvalidOutput, ForbiddenInput) as err:
        raise SampleFailed("failed_contract", f"{arm} 臂写手输出不合合同：{err}") from None
    except AgentCallError as err:
        raise SampleFailed("failed_model", f"{arm} 臂写手调用失败：{err}") from None
    ctx.emit(f"{arm}:writer", "ok")
    return result


def _within_budget(ctx: SampleCtx, arm: str, receipt_id: str) -> None:
    with reading(ctx.engine) as conn:
        receipt = receipt_of(conn, receipt_id)
    if receipt is None:
        raise SampleFailed("failed_contract", f"{arm} 臂写手调用没有回执 {receipt_id}。")
    used = int(receipt.tokens_out or 0)
    limit = ctx.evaluation_set.maxGenerationBudget.maxOutputTokens
    if used > limit:
        raise SampleFailed(
            "failed_model", f"{arm} 臂写手用了 {used} 个输出 token，超过预算 {limit}。"
        )


def _store_candidate(
    ctx: SampleCtx,
    arm: str,
    run_id: str,
    frozen: FrozenContext,
    output: WriterOutput,
    attempt: int,
    receipt_id: str,
) -> str:
    now = utc_now()
    candidate_id = new_id("cand")
    with ctx.engine.begin() as conn:
        # version = attempt (``_build``); an evaluation run: never eligible (triggers agree)
        insert_candidate(
            conn,
            candidate_id,
            run_id=run_id,
            work_id=ctx.work_id,
            chapter=ctx.sample.targetChapter,
            context_snapshot_id=frozen.snapshot_id,
            output=output,
        )
        move_candidate(conn, candidate_id, "CHECKING", expected_state="DRAFT")
        node = "writing" if attempt == 1 else "rewriting"
        move_run(conn, run_id, "detecting", expected_state=node, expected_attempt=attempt)
        conn.execute(
            eval_arms.update()
            .where(eval_arms.c.eval_run_id == ctx.eval_run_id, eval_arms.c.arm == arm)
            .values(candidate_id=candidate_id, writer_receipt_id=receipt_id, updated_at=now)
        )
    return candidate_id


def _build(
    frozen: FrozenContext, draft: BaseModel, attempt: int
) -> tuple[WriterOutput, list[UnlocatedClaim]]:
    try:
        parsed = WriterDraft.model_validate(draft.model_dump(mode="json"))
        built = build_output(frozen.context, frozen.snapshot_id, parsed, attempt)
        return with_attempt(*built, attempt)
    except (ValueError, ContractViolation) as err:
        raise SampleFailed("failed_contract", f"写手输出无法组成 WriterOutput：{err}") from None


__all__ = ["Written", "generate_arms", "load_frozen", "produce"]
