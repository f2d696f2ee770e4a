"""``muse eval run``: every sample of a preregistered set through writer-eval-v1.

Samples run with bounded concurrency (``concurrency`` worker threads; within a sample the arms
and judges follow the state machine in order). Every step stores its result before the next, so
a killed run resumes where it stopped: a sample in a terminal state is skipped, a stored arm or
judge sheet is not produced again, and a receipted model reply is reused instead of requested
again. An estimate (calls, tokens, cost per provider from the presets) comes first; the CLI asks
for confirmation before anything is sent.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from decimal import Decimal
from typing import Any

from sqlalchemy import Engine, select

from muse.agents import resolve_provider
from muse.context import refresh_index
from muse.core.errors import InvalidInput, MuseError, StaleTransition
from muse.core.text import count_han
from muse.evaluation.arm_detection import detect_arms
from muse.evaluation.arm_generation import generate_arms
from muse.evaluation.contracts import EvaluationSet, RoleModel
from muse.evaluation.judging import assess_sheets, final_by_arm, run_judge
from muse.evaluation.preregistration import load_set
from muse.evaluation.replay import Progress, SampleCtx, SampleFailed, sample_ctx
from muse.evaluation.sample_state import eval_row, move_eval, zone_engine
from muse.evaluation.states import EVAL_TERMINAL, eval_move_allowed
from muse.evaluation.tables import eval_runs
from muse.store.engine import reading
from muse.works import iter_chapter_texts

MAX_CONCURRENCY = 16
MAX_STALE = 5
JUDGE_OVERHEAD_TOKENS = 1500
DETECTOR_OUTPUT_TOKENS = 800


@dataclass
class Estimate:
    samples: int
    calls: int
    max_calls: int  # with a third judge and every rewrite of arm C everywhere
    by_provider: dict[str, dict[str, Any]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _pending(engine: Engine, set_id: str) -> list[dict[str, Any]]:
    with reading(engine) as conn:
        rows = conn.execute(
            select(eval_runs).where(eval_runs.c.set_id == set_id).order_by(eval_runs.c.sample_key)
        ).mappings()
        return [dict(r) for r in rows if r["state"] not in EVAL_TERMINAL]


def _prose_tokens(engine: Engine, row: dict[str, Any]) -> int:
    with reading(engine) as conn:
        numbers = list(range(max(1, row["as_of"] - 3), row["as_of"] + 1))
        return sum(
            count_han(c.text) for c in iter_chapter_texts(conn, row["work_id"], numbers=numbers)
        )


def estimate(engine: Engine, ref: str) -> Estimate:
    """Calls and tokens of the samples not yet finished, and their cost per provider."""
    engine = zone_engine(engine)
    with reading(engine) as conn:
        set_id, evaluation_set = load_set(conn, ref)
    pending = _pending(engine, set_id)
    models = evaluation_set.models
    out_tokens = evaluation_set.maxGenerationBudget.maxOutputTokens
    usage: dict[tuple[str, str], list[int]] = {}

    def add(role_model: RoleModel, calls: int, tokens_in: int, tokens_out: int) -> None:
        key = (role_model.provider, role_model.model)
        got = usage.setdefault(key, [0, 0, 0])
        got[0] += calls
        got[1] += tokens_in
        got[2] += tokens_out

    for row in pending:
        prose = _prose_tokens(engine, row) + 2000
        add(models.writer, 3, 3 * prose, 3 * out_tokens)
        add(models.detector, 3, 3 * (prose + out_tokens), 3 * DETECTOR_OUTPUT_TOKENS)
        add(
            models.judge, 2, 2 * (3 * out_tokens + JUDGE_OVERHEAD_TOKENS), 2 * JUDGE_OVERHEAD_TOKENS
        )
    # at most: a third judge everywhere, and arm C using its whole rewrite budget (a writer and
    # a detector call per rewrite)
    rewrites = evaluation_set.settings.rewrite_policy.max_rewrites
    result = Estimate(len(pending), 8 * len(pending), (9 + 2 * rewrites) * len(pending))
    for (provider, model), (calls, tin, tout) in usage.items():
        result.by_provider[f"{provider}/{model}"] = {
            "calls": calls,
            "inputTokens": tin,
            "outputTokens": tout,
            **_cost(provider, model, tin, tout),
        }
    return result


def _cost(provider: str, model: str, tokens_in: int, tokens_out: int) -> dict[str, Any]:
    try:
        price = resolve_provider(provider).capabilities.price_for(model)
    except MuseError as err:
        return {"cost": None, "currency": None, "note": f"无法估价：{err.message}"}
    if price is None:
        return {"cost": None, "currency": None, "note": "该模型没有预设价格"}
    cost = (price.input * tokens_in + price.output * tokens_out) / Decimal(1_000_000)
    return {"cost": str(cost.quantize(Decimal("0.0001"))), "currency": price.currency}


@dataclass
class RunResult:
    set_id: str
    states: dict[str, str]  # sampleId → state

    def to_dict(self) -> dict[str, Any]:
        return {"setId": self.set_id, "states": self.states}


def run_set(
    engine: Engine,
    ref: str,
    *,
    concurrency: int = 2,
    progress: Progress | None = None,
) -> RunResult:
    if not 1 <= concurrency <= MAX_CONCURRENCY:
        raise InvalidInput(f"--concurrency 必须在 1–{MAX_CONCURRENCY} 之间，收到 {concurrency}。")
    engine = zone_engine(engine)
    with reading(engine) as conn:
        set_id, evaluation_set = load_set(conn, ref)
    pending = _pending(engine, set_id)
    for work_id in sorted({r["work_id"] for r in pending}):
        # Build each work's prose index once, before samples freeze in parallel: two first
        # builds of one work's index at the same time would race on its row.
        with engine.begin() as conn:
            refresh_index(conn, work_id)
    lock = threading.Lock()
    safe = _locked(progress, lock)
    crashed = threading.Event()

    def guarded(ctx: SampleCtx) -> str | None:
        if crashed.is_set():
            return None  # a crash elsewhere: samples not started wait for the resumed run
        try:
            return run_sample(ctx)
        except BaseException:
            crashed.set()
            raise

    with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="muse-eval") as pool:
        futures = [
            pool.submit(guarded, sample_ctx(engine, set_id, evaluation_set, r["id"], safe))
            for r in pending
        ]
        for future in futures:
            future.result()  # an unexpected error (a crash) propagates; stored work stays
    with reading(engine) as conn:
        rows = conn.execute(select(eval_runs).where(eval_runs.c.set_id == set_id)).all()
    return RunResult(set_id, {r.sample_key: r.state for r in rows})


def _locked(progress: Progress | None, lock: threading.Lock) -> Progress | None:
    if progress is None:
        return None

    def call(sample: str, step: str, status: str) -> None:
        with lock:
            progress(sample, step, status)

    return call


def _state(ctx: SampleCtx) -> str:
    with reading(ctx.engine) as conn:
        state: str = eval_row(conn, ctx.eval_run_id)["state"]
    return state


def _move(ctx: SampleCtx, state: str, new: str, **values: Any) -> None:
    with ctx.engine.begin() as conn:
        move_eval(conn, ctx.eval_run_id, new, expected_state=state, **values)
    ctx.emit("state", new)


_Step = Callable[[SampleCtx, str], None]


def _generating(ctx: SampleCtx, state: str) -> None:
    generate_arms(ctx)
    _move(ctx, state, "detecting")


def _detecting(ctx: SampleCtx, state: str) -> None:
    detect_arms(ctx)
    _move(ctx, state, "judging_pair")


def _labels(ctx: SampleCtx) -> dict[str, str]:
    with reading(ctx.engine) as conn:
        labels: dict[str, str] = eval_row(conn, ctx.eval_run_id)["labels"]
    return labels


def _judging_pair(ctx: SampleCtx, state: str) -> None:
    sheets = [run_judge(ctx, 1), run_judge(ctx, 2)]
    outcome = assess_sheets(sheets)
    if outcome.state == "stable":
        final = final_by_arm(outcome, _labels(ctx))
        _move(ctx, state, "stable_report", final=final, reason="两位评委各维分差均不超过 0.5。")
        return
    pairs = "、".join(f"{label}/{dim}" for label, dim in outcome.unstable)
    _move(ctx, state, "adjudicating", reason=f"双评不稳定（分差 > 0.5）：{pairs}")


def _adjudicating(ctx: SampleCtx, state: str) -> None:
    sheets = [run_judge(ctx, 1), run_judge(ctx, 2), run_judge(ctx, 3)]
    outcome = assess_sheets(sheets)
    if outcome.state == "adjudicated":
        final = final_by_arm(outcome, _labels(ctx))
        _move(
            ctx,
            state,
            "adjudicated_report",
            final=final,
            reason="第三评委后各不稳定维均有稳定配对，取三者中位数。",
        )
        return
    from muse.evaluation.contracts import DIMENSIONS

    pairs = "、".join(f"{label}/{DIMENSIONS[dim]}" for label, dim in outcome.unresolved)
    _move(
        ctx,
        state,
        "invalid_unstable",
        reason=f"第三评委后仍无稳定配对：{pairs}；样本不参与方向结论。",
    )


_STEPS: dict[str, _Step] = {
    "preregistered": lambda ctx, state: _move(ctx, state, "generating"),
    "generating": _generating,
    "detecting": _detecting,
    "judging_pair": _judging_pair,
    "adjudicating": _adjudicating,
}


def run_sample(ctx: SampleCtx) -> str:
    """Drive one sample to a terminal state; a failure ends it in the matching failed_*."""
    stale = 0
    while True:
        state = _state(ctx)
        if state in EVAL_TERMINAL:
            return state
        try:
            _STEPS[state](ctx, state)
        except SampleFailed as failed:
            _fail(ctx, state, failed)
        except StaleTransition:
            stale += 1  # someone else moved it: re-read and carry on from there
            if stale > MAX_STALE:
                raise


def _fail(ctx: SampleCtx, state: str, failed: SampleFailed) -> None:
    options = (failed.state, "failed_contract", "failed_model", "failed_freeze")
    target = next((s for s in options if eval_move_allowed(state, s)), None)
    if target is None:
        raise failed
    _move(ctx, state, target, reason=failed.reason)


__all__ = ["Estimate", "EvaluationSet", "RunResult", "estimate", "run_sample", "run_set"]
