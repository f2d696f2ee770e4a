"""Checking an author-edited version again, with the run's own check step (spec 000 §9).

The edited version goes through exactly what a written candidate goes through:
:func:`muse.flow.checking.check_candidate` (mechanical gate → semantic detector → evidence
gaps) with the run's provider and model, and :func:`muse.flow.verdicts.commit_verdict`, which
binds the report to the version's sha256 and version and moves candidate and run by
compare-and-set. The claims the author's edit left without a sentence are passed as unlocated
(:mod:`muse.flow.author_edit`), so the gate names them.

Where the run goes differs in one way: never to ``rewriting``. The automatic layer does not
rewrite the author's text (spec 001 §2.1), so a rejected edit stops the run for the author
(``blocked_user_action``) with the findings; passed → ``shadow_ready`` (the shadow view again);
a forged report or a detector failure → ``failed`` (fail closed).

A version the author discarded while it was being checked keeps its DISCARDED state; the check
result is dropped and the run ends ``failed`` with that reason.
"""

from __future__ import annotations

from sqlalchemy import Connection, Engine, select

from muse.context import WriterContext
from muse.core.errors import StaleTransition
from muse.flow.author_edit import ATTRIBUTION, AuthorOutput
from muse.flow.checking import check_candidate
from muse.flow.deadlines import guard_result, remaining_s
from muse.flow.rows import RunRow
from muse.flow.tables import candidates, runs
from muse.flow.transitions import move_run, record_event
from muse.flow.verdicts import commit_verdict
from muse.quality import Verdict

NODE = "detecting"


def recheck(
    engine: Engine, run: RunRow, context: WriterContext, built: AuthorOutput, candidate_id: str
) -> Verdict:
    verdict = check_candidate(
        engine,
        run_id=run.id,
        attempt=run.attempt,
        frozen_or_context=context,
        output=built.output,
        provider=run.provider,
        model=run.model,
        timeout_s=_deadline_left(engine, run.id),
        unlocated=list(built.unlocated),
    )
    verdict.report["attribution"] = ATTRIBUTION
    return verdict


def apply_verdict(engine: Engine, run: RunRow, candidate_id: str, verdict: Verdict) -> bool:
    """Commit ``verdict``; ``False``: it came too late (the node timed out or moved on)."""
    try:
        with engine.begin() as conn:
            return commit_verdict(
                conn,
                run_id=run.id,
                attempt=run.attempt,
                candidate_id=candidate_id,
                verdict=verdict,
                run_state=verdict.run_state(may_rewrite=False),
                node=NODE,
                detail={"attribution": ATTRIBUTION},
            )
    except StaleTransition:
        with engine.begin() as conn:
            return _discarded_meanwhile(conn, run, candidate_id)


def _discarded_meanwhile(conn: Connection, run: RunRow, candidate_id: str) -> bool:
    state = conn.execute(
        select(candidates.c.state).where(candidates.c.id == candidate_id)
    ).scalar_one()
    if state == "CHECKING" or not guard_result(conn, run.id, run.attempt, NODE):
        raise StaleTransition(f"候选 {candidate_id} 的复检结果无法提交，请刷新后重试。")
    move_run(
        conn,
        run.id,
        "failed",
        reason=f"复检期间候选 {candidate_id} 已是 {state}，复检结果作废。",
        expected_state=NODE,
        expected_attempt=run.attempt,
    )
    record_event(
        conn,
        run.id,
        run.attempt,
        NODE,
        "late_discarded",
        0,
        {"candidateId": candidate_id, "candidateState": state},
    )
    return False


def _deadline_left(engine: Engine, run_id: str) -> float | None:
    with engine.connect() as conn:
        deadline = conn.execute(select(runs.c.deadline_at).where(runs.c.id == run_id)).scalar()
    return remaining_s(deadline) if deadline is not None else None
