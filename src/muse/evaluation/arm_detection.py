"""Checking the three arms of one sample through the production rewrite loop (spec 000 §10).

The check runs through the production rewrite loop (``flow.rewrite.rewrite_loop``): arm C, on
the production policy, rewrites a rejected candidate within the set's attempt budget (the
production default of 2 rewrites, or the round's ``maxRewrites``); the diagnostic arms A and B
get one attempt. A rewrite is a new candidate from ``arm_generation.produce``. The replay
lexicon (later names, the oracle) goes to the mechanical future-leak gate only, and a verdict it
caught is never sent back to the writer (:func:`oracle_findings`).
"""

from __future__ import annotations

import json
from typing import Any

from muse.core.clock import utc_now
from muse.evaluation.arm_generation import Written, load_frozen, produce
from muse.evaluation.contracts import ARM_MODES, ARMS, Sample
from muse.evaluation.lexicon import replay_lexicon
from muse.evaluation.replay import SampleCtx, SampleFailed
from muse.evaluation.sample_state import arm_rows
from muse.evaluation.tables import eval_arms
from muse.flow import (
    Decision,
    RewritePolicy,
    candidate_row,
    check_candidate,
    check_lexicons,
    commit_verdict,
    rewrite_loop,
)
from muse.quality import Verdict
from muse.store.engine import reading

LEAK_KINDS = frozenset({"future_leak", "semantic_future_leak"})
MISSING_KINDS = frozenset(
    {"hard_constraint_missing", "required_entity_missing", "semantic_outline_hard_constraint"}
)


def arm_policy(ctx: SampleCtx, arm: str) -> RewritePolicy:
    """C runs the production rewrite loop within the set's attempt budget (production default
    2 rewrites); the diagnostic arms A and B get one attempt and no automatic rewrite."""
    if ARM_MODES[arm] != "production":
        return RewritePolicy(0)
    return ctx.evaluation_set.settings.rewrite_policy


def oracle_findings(verdict: Verdict) -> str | None:
    """A mechanical future-leak finding comes from the replay lexicon (the oracle): its
    revision line would tell the writer which names the later chapters hold, so such a verdict
    is never sent back for a rewrite; the arm stops with it (and Gate A sees the leak)."""
    if any(f.kind == "future_leak" for f in verdict.findings):
        return "（机械门的未来泄漏来自回放词表，即标准答案；评测中不把它写进返修单交给写手。）"
    return None


def detect_arms(ctx: SampleCtx) -> None:
    with reading(ctx.engine) as conn:
        rows = arm_rows(conn, ctx.eval_run_id)
        leak_terms = replay_lexicon(conn, ctx.work_id, ctx.as_of)
    # what the preregistered outline itself writes was given to the writer, so it cannot have
    # come from the oracle (「金刚琢」 in the outline's hook makes 「金刚」 no leak)
    given = json.dumps(ctx.sample.fineOutline, ensure_ascii=False)
    leak_terms = [(term, first) for term, first in leak_terms if term not in given]
    for arm in ARMS:
        row = rows[arm]
        if row.check is None:
            _detect(ctx, arm, row.run_id, leak_terms)


def _detect(ctx: SampleCtx, arm: str, run_id: str, leak_terms: list[tuple[str, int]]) -> None:
    """The arm's check, through the production rewrite loop (``flow.rewrite.rewrite_loop``).

    Every step is idempotent, so a resumed sample walks the loop again from attempt 1 without a
    model call for anything stored: candidates are rebuilt from their receipted writer replies,
    the detector's receipted reply to the same input is used again, and a verdict already
    committed is not committed twice."""
    with reading(ctx.engine) as conn:
        frozen = load_frozen(conn, run_id)
    lexicons = check_lexicons(ctx.engine, frozen.context, leak_terms)
    detector = ctx.evaluation_set.models.detector

    def write(attempt: int, revision: dict[str, Any] | None) -> Written:
        return produce(ctx, arm, run_id, frozen, attempt, revision)

    def check(written: Written, attempt: int) -> Verdict:
        ctx.emit(f"{arm}:detector", "running")
        verdict = check_candidate(
            ctx.engine,
            run_id=run_id,
            attempt=attempt,
            frozen_or_context=frozen,
            output=written.output,
            provider=detector.provider,
            model=detector.model,
            unlocated=written.unlocated,
            lexicons=lexicons,
            reuse_stored=True,
        )
        ctx.emit(f"{arm}:detector", "replied")  # the reply is receipted, nothing committed yet
        return verdict

    def commit(written: Written, attempt: int, verdict: Verdict, decision: Decision) -> None:
        final = decision.run_state != "rewriting"
        with ctx.engine.begin() as conn:
            if candidate_row(conn, written.candidate_id).state != "CHECKING":
                return  # committed before a crash: the resumed loop only walks past it
            commit_verdict(
                conn,
                run_id=run_id,
                attempt=attempt,
                candidate_id=written.candidate_id,
                verdict=verdict,
                run_state=decision.run_state,
                reason=decision.reason,
                detail={"writerReceiptId": written.receipt_id},
            )
            if final:
                summary = check_summary(verdict, ctx.sample, attempt, decision.run_state)
                conn.execute(
                    eval_arms.update()
                    .where(eval_arms.c.eval_run_id == ctx.eval_run_id, eval_arms.c.arm == arm)
                    .values(check=summary, updated_at=utc_now())
                )
        ctx.emit(f"{arm}:detector", verdict.outcome)

    _, verdict, _ = rewrite_loop(
        arm_policy(ctx, arm), write=write, check=check, commit=commit, withhold=oracle_findings
    )
    if verdict.outcome == "detector_failed":
        raise SampleFailed("failed_model", f"{arm} 臂检测员调用失败：{verdict.reason}")
    if verdict.outcome == "forged":
        raise SampleFailed("failed_contract", f"{arm} 臂检测报告不合合同：{verdict.reason}")


def check_summary(
    verdict: Verdict, sample: Sample, attempts: int = 1, run_state: str | None = None
) -> dict[str, Any]:
    hc = sample.outline().hard_constraints
    total = len(hc.constraint_ids()) + len(hc.required_entities)
    missing = sum(1 for f in verdict.findings if f.kind in MISSING_KINDS and f.severity == "high")
    return {
        "outcome": verdict.outcome,
        "attempts": attempts,
        "runState": run_state,
        "highSeverity": sum(1 for f in verdict.findings if f.severity == "high"),
        "futureLeaks": sum(1 for f in verdict.findings if f.kind in LEAK_KINDS),
        "hardTotal": total,
        "hardMissing": min(missing, total),
        "findings": [
            {"kind": f.kind, "severity": f.severity, "message": f.message}
            for f in verdict.findings[:20]
        ],
    }


__all__ = ["arm_policy", "check_summary", "detect_arms", "oracle_findings"]
