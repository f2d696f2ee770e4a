"""Generating and checking the three arms of one sample (spec 000 §3.2, §10).

Each arm is a ``runs`` row of ``run_type = 'evaluation'`` that walks the production states
validating_context → retrieving → writing → detecting → shadow_ready | blocked_user_action |
failed, through the production helpers (freeze, writer dispatch, WriterOutput, check, verdict).
Every step commits what it produced before the next begins, and every step first looks at what
is stored: a killed evaluation resumes where it stopped, and a writer reply already receipted is
reused rather than requested again.

The oracle red line: the writer and detector read only the frozen arm context, built through
``AsOfView(work, as_of = N − 1)``; the replay lexicon (later names) goes to the mechanical
future-leak gate only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Engine, select

from muse.agents import AgentCallError, ForbiddenInput, InvalidOutput, dispatch, last_ok_call
from muse.context import (
    FrozenContext,
    WriterContext,
    WriterDraft,
    build_output,
    freeze_context,
    latest_snapshot,
)
from muse.core.clock import utc_now
from muse.core.errors import AuthorizationError, ContractViolation
from muse.core.ids import new_id
from muse.core.text import count_han
from muse.evaluation.arms import freeze_arm
from muse.evaluation.contracts import ARM_MODES, ARMS, EVAL_POLICY_VERSION, EvaluationSet, Sample
from muse.evaluation.lexicon import replay_lexicon
from muse.evaluation.sample_state import arm_rows, eval_row
from muse.evaluation.tables import eval_arms
from muse.flow import (
    check_candidate,
    check_lexicons,
    commit_verdict,
    move_candidate,
    move_run,
    with_attempt,
    writer_input,
)
from muse.flow.tables import candidates, runs
from muse.store.engine import reading
from muse.works import current_revision, get_snapshot, take_snapshot

LEAK_KINDS = frozenset({"future_leak", "semantic_future_leak"})
MISSING_KINDS = frozenset(
    {"hard_constraint_missing", "required_entity_missing", "semantic_outline_hard_constraint"}
)


class SampleFailed(Exception):
    """The sample ends in ``state`` (a failed_* state) for ``reason`` (Chinese)."""

    def __init__(self, state: str, reason: str) -> None:
        super().__init__(reason)
        self.state, self.reason = state, reason


Progress = Callable[[str, str, str], None]  # (sampleId, step, status)


@dataclass
class SampleCtx:
    engine: Engine  # the zone engine (muse.evaluation.sample_state.zone_engine)
    set_id: str
    evaluation_set: EvaluationSet
    sample: Sample
    eval_run_id: str
    work_id: int
    progress: Progress | None = None

    def emit(self, step: str, status: str) -> None:
        if self.progress is not None:
            self.progress(self.sample.sampleId, step, status)

    @property
    def as_of(self) -> int:
        return self.sample.as_of


# -- generating ----------------------------------------------------------------------------------


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
    _write(ctx, arm, run_id)


def _run_state(engine: Engine, run_id: str) -> str:
    with reading(engine) as conn:
        return conn.execute(select(runs.c.state).where(runs.c.id == run_id)).scalar_one()


def _start_arm_run(ctx: SampleCtx, arm: str) -> str:
    """Insert the arm's run and take its authorization snapshot (purpose: evaluation)."""
    writer = ctx.evaluation_set.models.writer
    run_id, now = new_id("run"), utc_now()
    try:
        with ctx.engine.begin() as conn:
            base = current_revision(conn, ctx.work_id, ctx.sample.targetChapter)
            conn.execute(
                runs.insert().values(
                    id=run_id,
                    work_id=ctx.work_id,
                    target_chapter=ctx.sample.targetChapter,
                    run_type="evaluation",
                    mode=ARM_MODES[arm],
                    quality_policy_version=EVAL_POLICY_VERSION,
                    state="validating_context",
                    attempt=1,
                    revision=0,
                    provider=writer.provider,
                    model=writer.model,
                    as_of=ctx.as_of,
                    base_revision=base or 0,
                    created_at=now,
                    updated_at=now,
                )
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
            snapshot_id = conn.execute(
                select(runs.c.authorization_snapshot_id).where(runs.c.id == run_id)
            ).scalar_one()
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


def stored_output(conn: Connection, run_id: str, role: str, task: str) -> dict | None:
    """The validated output of the run's last successful ``role/task`` call, if receipted."""
    row = last_ok_call(conn, run_id, role, task)
    return (
        None if row is None else {"id": row.id, "output": row.output, "tokensOut": row.tokens_out}
    )


def _writer_draft(ctx: SampleCtx, arm: str, run_id: str, frozen: FrozenContext) -> dict:
    with reading(ctx.engine) as conn:
        stored = stored_output(conn, run_id, "writer", "generate")
    if stored is not None:
        ctx.emit(f"{arm}:writer", "reused")
        return stored
    writer = ctx.evaluation_set.models.writer
    ctx.emit(f"{arm}:writer", "running")
    try:
        result = dispatch(
            ctx.engine,
            role="writer",
            task="generate",
            provider=writer.provider,
            model=writer.model,
            task_input=writer_input(frozen.context),
            output_model=WriterDraft,
            run_id=run_id,
        )
    except (InvalidOutput, ForbiddenInput) as err:
        raise SampleFailed("failed_contract", f"{arm} 臂写手输出不合合同：{err}") from None
    except AgentCallError as err:
        raise SampleFailed("failed_model", f"{arm} 臂写手调用失败：{err}") from None
    with reading(ctx.engine) as conn:
        stored = stored_output(conn, run_id, "writer", "generate")
    assert stored is not None and stored["id"] == result.receipt_id
    ctx.emit(f"{arm}:writer", "ok")
    return stored


def _write(ctx: SampleCtx, arm: str, run_id: str) -> None:
    with reading(ctx.engine) as conn:
        frozen = load_frozen(conn, run_id)
    stored = _writer_draft(ctx, arm, run_id, frozen)
    limit = ctx.evaluation_set.maxGenerationBudget.maxOutputTokens
    if stored["tokensOut"] > limit:
        raise SampleFailed(
            "failed_model",
            f"{arm} 臂写手用了 {stored['tokensOut']} 个输出 token，超过预算 {limit}。",
        )
    output, _ = _build(frozen, stored["output"])
    now = utc_now()
    with ctx.engine.begin() as conn:
        candidate_id = new_id("cand")
        conn.execute(
            candidates.insert().values(
                id=candidate_id,
                run_id=run_id,
                work_id=ctx.work_id,
                chapter=ctx.sample.targetChapter,
                version=1,
                state="DRAFT",
                revision=0,
                acceptance_eligible=False,  # an evaluation run: never (triggers agree)
                body=output.candidate_body,
                sha256=output.candidate_sha256,
                han_count=count_han(output.candidate_body),
                context_snapshot_id=frozen.snapshot_id,
                writer_output=output.wire(),
                report=None,
                created_at=now,
                updated_at=now,
            )
        )
        move_candidate(conn, candidate_id, "CHECKING", expected_state="DRAFT")
        move_run(conn, run_id, "detecting", expected_state="writing", expected_attempt=1)
        conn.execute(
            eval_arms.update()
            .where(eval_arms.c.eval_run_id == ctx.eval_run_id, eval_arms.c.arm == arm)
            .values(candidate_id=candidate_id, writer_receipt_id=stored["id"], updated_at=now)
        )


def _build(frozen: FrozenContext, draft_wire: dict[str, Any]):
    try:
        draft = WriterDraft.model_validate(draft_wire)
        return with_attempt(*build_output(frozen.context, frozen.snapshot_id, draft, 1), 1)
    except (ValueError, ContractViolation) as err:
        raise SampleFailed("failed_contract", f"写手输出无法组成 WriterOutput：{err}") from None


# -- detecting -----------------------------------------------------------------------------------


def detect_arms(ctx: SampleCtx) -> None:
    with reading(ctx.engine) as conn:
        rows = arm_rows(conn, ctx.eval_run_id)
        leak_terms = replay_lexicon(conn, ctx.work_id, ctx.as_of)
    for arm in ARMS:
        row = rows[arm]
        if row.check is None:
            _detect(ctx, arm, row.run_id, row.candidate_id or "", leak_terms)


def _detect(ctx: SampleCtx, arm: str, run_id: str, candidate_id: str, leak_terms) -> None:
    with reading(ctx.engine) as conn:
        frozen = load_frozen(conn, run_id)
        stored = stored_output(conn, run_id, "writer", "generate")
    assert stored is not None
    output, unlocated = _build(frozen, stored["output"])
    detector = ctx.evaluation_set.models.detector
    ctx.emit(f"{arm}:detector", "running")
    verdict = check_candidate(
        ctx.engine,
        run_id=run_id,
        attempt=1,
        frozen_or_context=frozen,
        output=output,
        provider=detector.provider,
        model=detector.model,
        unlocated=unlocated,
        lexicons=check_lexicons(ctx.engine, frozen.context, leak_terms),
    )
    run_state = verdict.run_state(may_rewrite=False)
    summary = check_summary(verdict, ctx.sample)
    with ctx.engine.begin() as conn:
        commit_verdict(
            conn,
            run_id=run_id,
            attempt=1,
            candidate_id=candidate_id,
            verdict=verdict,
            run_state=run_state,
        )
        conn.execute(
            eval_arms.update()
            .where(eval_arms.c.eval_run_id == ctx.eval_run_id, eval_arms.c.arm == arm)
            .values(check=summary, updated_at=utc_now())
        )
    ctx.emit(f"{arm}:detector", verdict.outcome)
    if verdict.outcome == "detector_failed":
        raise SampleFailed("failed_model", f"{arm} 臂检测员调用失败：{verdict.reason}")
    if verdict.outcome == "forged":
        raise SampleFailed("failed_contract", f"{arm} 臂检测报告不合合同：{verdict.reason}")


def check_summary(verdict, sample: Sample) -> dict[str, Any]:
    hc = sample.outline().hard_constraints
    total = len(hc.constraint_ids()) + len(hc.required_entities)
    missing = sum(1 for f in verdict.findings if f.kind in MISSING_KINDS and f.severity == "high")
    return {
        "outcome": verdict.outcome,
        "highSeverity": sum(1 for f in verdict.findings if f.severity == "high"),
        "futureLeaks": sum(1 for f in verdict.findings if f.kind in LEAK_KINDS),
        "hardTotal": total,
        "hardMissing": min(missing, total),
        "findings": [
            {"kind": f.kind, "severity": f.severity, "message": f.message}
            for f in verdict.findings[:20]
        ],
    }


def sample_ctx(
    engine: Engine,
    set_id: str,
    evaluation_set: EvaluationSet,
    eval_run_id: str,
    progress: Progress | None = None,
) -> SampleCtx:
    with reading(engine) as conn:
        row = eval_row(conn, eval_run_id)
    sample = next(s for s in evaluation_set.samples if s.sampleId == row["sample_key"])
    return SampleCtx(engine, set_id, evaluation_set, sample, eval_run_id, row["work_id"], progress)


__all__ = ["SampleCtx", "SampleFailed", "detect_arms", "generate_arms", "sample_ctx"]
