"""Applying a check verdict to the run and its candidate, in one transaction (spec 001 §3).

:func:`commit_verdict` is the only way a verdict of :func:`muse.flow.checking.check_candidate`
becomes state. In the caller's transaction it:

1. asks :func:`~muse.flow.deadlines.guard_result` whether the result is still current — the run
   must be in ``node`` (``detecting``) at exactly ``attempt`` and within its deadline. A late
   result (an older attempt, a timed-out node) moves nothing: it leaves a ``late_discarded`` event
   and ``commit_verdict`` returns ``False``;
2. checks that the candidate is the one the verdict is about (version and sha256 as checked);
3. moves the candidate CHECKING → PASSED | REJECTED with its report, and the run from ``node`` to
   ``run_state`` (``rewriting`` also raises ``attempt`` by one), each by compare-and-set;
4. stores the evidence-gap rows and the node events, and starts the next node's deadline.

Any refusal raises ``StaleTransition`` and the caller's transaction rolls everything back.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, bindparam, select

from muse.core.clock import utc_now
from muse.core.errors import StaleTransition
from muse.flow.deadlines import guard_result, start_node
from muse.flow.states import WORKING_NODES
from muse.flow.tables import candidates, run_evidence
from muse.flow.transitions import move_candidate, move_run, record_event
from muse.quality import Verdict
from muse.store.prepared import Prepared

_RUN_STATUS = {
    "shadow_ready": "ok",
    "rewriting": "failed",
    "failed": "failed",
}


def commit_verdict(
    conn: Connection,
    *,
    run_id: str,
    attempt: int,
    candidate_id: str,
    verdict: Verdict,
    run_state: str,
    node: str = "detecting",
    reason: str | None = None,
    detail: dict[str, Any] | None = None,
) -> bool:
    """Apply ``verdict`` of ``candidate_id`` (attempt ``attempt``); ``False``: it came too late.

    ``run_state`` is where the run goes (``verdict.run_state(may_rewrite=…)``); ``reason``
    overrides the verdict's reason on the run (e.g. "rewrites used up"); ``detail`` is added to
    the node event (writer receipt id, limits)."""
    if not guard_result(conn, run_id, attempt, node):
        return False
    _require_same_candidate(conn, candidate_id, verdict)
    version = verdict.report["candidateVersion"]
    move_candidate(
        conn,
        candidate_id,
        verdict.candidate_state,
        expected_state="CHECKING",
        expected_version=version,
        report=verdict.report,
    )
    extra = {"attempt": attempt + 1} if run_state == "rewriting" else {}
    move_run(
        conn,
        run_id,
        run_state,
        reason=reason or verdict.reason,
        expected_state=node,
        expected_attempt=attempt,
        **extra,
    )
    _store_gaps(conn, run_id, attempt, candidate_id, verdict)
    _record(conn, run_id, attempt, candidate_id, verdict, run_state, node, reason, detail or {})
    if run_state in WORKING_NODES:
        start_node(conn, run_id, run_state)
    return True


_VERSION_AND_HASH = Prepared(
    select(candidates.c.version, candidates.c.sha256).where(
        candidates.c.id == bindparam("candidate_id")
    )
)


def _require_same_candidate(conn: Connection, candidate_id: str, verdict: Verdict) -> None:
    row = _VERSION_AND_HASH.run(conn, candidate_id=candidate_id).first()
    expected = (verdict.report["candidateVersion"], verdict.report["candidateSha256"])
    if row is None or (row.version, row.sha256) != expected:
        raise StaleTransition(
            f"检测结论针对的是另一版候选（版本 {expected[0]}），不能用于候选 {candidate_id}。"
        )


def _store_gaps(
    conn: Connection, run_id: str, attempt: int, candidate_id: str, verdict: Verdict
) -> None:
    now = utc_now()
    for gap in verdict.gaps:
        conn.execute(
            run_evidence.insert().values(
                run_id=run_id,
                attempt=attempt,
                candidate_id=candidate_id,
                gap_index=gap.index,
                subject=gap.gap.subject,
                needed=gap.gap.needed,
                origin=gap.gap.origin,
                outcome=gap.outcome,
                fact_evidence=list(gap.fact_evidence),
                new_setting=gap.new_setting,
                note=gap.note,
                created_at=now,
            )
        )


def _record(
    conn: Connection,
    run_id: str,
    attempt: int,
    candidate_id: str,
    verdict: Verdict,
    run_state: str,
    node: str,
    reason: str | None,
    extra: dict[str, Any],
) -> None:
    timings = verdict.timings_ms
    blocking = verdict.blocking
    mechanical_blocking = [f for f in blocking if not f.kind.startswith("semantic_")]
    record_event(
        conn,
        run_id,
        attempt,
        "mechanical_gate",
        "failed" if mechanical_blocking else "ok",
        timings.get("mechanical_gate", 0),
        {
            "candidateId": candidate_id,
            "findings": len(verdict.report["mechanical"]["findings"]),
            "blocking": len(mechanical_blocking),
            **extra,
        },
    )
    semantic = verdict.semantic
    if semantic is not None or verdict.outcome == "detector_failed":
        record_event(
            conn,
            run_id,
            attempt,
            "semantic_detector",
            "ok" if semantic is not None and semantic.passed else "failed",
            timings.get("semantic_detector", 0),
            {
                "status": semantic.status if semantic else "call_failed",
                "receiptId": semantic.receipt_id if semantic else None,
                "findings": len(semantic.findings) if semantic else 0,
                "gaps": len(semantic.gaps) if semantic else 0,
                "gapResolution": semantic.gap_resolution if semantic else None,
            },
        )
    if verdict.gaps:
        record_event(
            conn,
            run_id,
            attempt,
            "evidence_search",
            "ok" if verdict.outcome == "passed" else "blocked",
            timings.get("evidence_search", 0),
            {"gaps": [g.to_dict() for g in verdict.gaps]},
        )
    record_event(
        conn,
        run_id,
        attempt,
        node,
        _RUN_STATUS.get(run_state, "blocked"),
        sum(timings.values()),
        {
            "candidateId": candidate_id,
            "candidateVersion": verdict.report["candidateVersion"],
            "candidateSha256": verdict.report["candidateSha256"],
            "outcome": verdict.outcome,
            "runState": run_state,
            "reason": reason or verdict.reason,
            "revisionList": [r.to_dict() for r in verdict.revision_list],
        },
    )
