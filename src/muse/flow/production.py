"""``muse write N``: one production run from the confirmed fine outline to a shadow candidate.

Each node commits its own transaction, so every step (and where a run stopped) is stored and
visible; a node's state change and its side-effect rows share one transaction. The nodes that
later issues build (semantic detector, rewrite loop) are recorded as ``not_built`` events, never
as a pretend pass.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from sqlalchemy import Engine, select

from muse.agents import offline_writer  # noqa: F401  (the offline provider's writer)
from muse.agents.dispatch import dispatch
from muse.context.output_contracts import WriterDraft
from muse.context.writer_context import QUALITY_POLICY_VERSION, FrozenContext, freeze_context
from muse.context.writer_output import build_output
from muse.core.clock import utc_now
from muse.core.errors import AuthorizationError, InvalidInput, MuseError
from muse.core.ids import new_id
from muse.core.text import count_han
from muse.flow.tables import candidates, runs
from muse.flow.transitions import move_candidate, move_run, record_event
from muse.planning.fine_outlines import load_confirmed
from muse.quality import mechanical
from muse.works import authorization, catalog
from muse.works.tables import chapters

Progress = Callable[[str, str], None]  # (node, status)


@dataclass
class RunSummary:
    run_id: str
    state: str
    reason: str | None = None
    candidate_id: str | None = None
    findings: list[dict] = field(default_factory=list)
    han_count: int | None = None
    context_snapshot_id: str | None = None


class _Stopped(Exception):
    def __init__(self, state: str, reason: str) -> None:
        self.state, self.reason = state, reason


def write_chapter(
    engine: Engine,
    work_id: int,
    chapter: int,
    *,
    provider: str,
    model: str,
    progress: Progress | None = None,
) -> RunSummary:
    """Run the production chain for ``chapter``; the run always ends in a named state."""
    notify = progress or (lambda node, status: None)
    with engine.begin() as conn:
        latest = catalog.latest_chapter_number(conn, work_id) or 0
        if chapter != latest + 1:
            raise InvalidInput(f"只能续写下一章（第 {latest + 1} 章），不能直接写第 {chapter} 章。")
        section_id, outline = load_confirmed(conn, work_id, chapter)
        run_id = _insert_run(conn, work_id, chapter, latest, provider, model)
    summary = RunSummary(run_id=run_id, state="validating_context")
    try:
        auth = _node(
            engine,
            run_id,
            "validating_context",
            notify,
            lambda conn: authorization.take_snapshot(conn, work_id, "production"),
        )
        frozen = _retrieve(engine, run_id, work_id, outline, section_id, latest, auth, notify)
        summary.context_snapshot_id = frozen.snapshot_id
        draft, receipt = _write(engine, run_id, frozen, provider, model, notify)
        _detect(engine, run_id, frozen, draft, receipt, summary, notify)
    except _Stopped as stop:
        summary.state, summary.reason = stop.state, stop.reason
    return summary


def _insert_run(conn, work_id: int, chapter: int, as_of: int, provider: str, model: str) -> str:
    base = (
        conn.execute(
            select(chapters.c.current_revision).where(
                chapters.c.work_id == work_id, chapters.c.number == chapter
            )
        ).scalar()
        or 0
    )
    run_id, now = new_id("run"), utc_now()
    conn.execute(
        runs.insert().values(
            id=run_id,
            work_id=work_id,
            target_chapter=chapter,
            run_type="production",
            mode="production",
            quality_policy_version=QUALITY_POLICY_VERSION,
            state="validating_context",
            attempt=1,
            revision=0,
            provider=provider,
            model=model,
            as_of=as_of,
            base_revision=base,
            created_at=now,
            updated_at=now,
        )
    )
    return run_id


def _stop(engine: Engine, run_id: str, state: str, reason: str, node: str, ms: int) -> _Stopped:
    with engine.begin() as conn:
        move_run(conn, run_id, state, reason=reason)
        record_event(
            conn,
            run_id,
            1,
            node,
            "failed" if state != "blocked_user_action" else "blocked",
            ms,
            {"reason": reason},
        )
    return _Stopped(state, reason)


def _node(engine: Engine, run_id: str, node: str, notify: Progress, work):
    """Run the validating node: freeze the authorization, then move on to retrieving."""
    notify(node, "running")
    started = time.perf_counter()
    try:
        with engine.begin() as conn:
            snapshot = work(conn)
            move_run(conn, run_id, "retrieving", authorization_snapshot_id=snapshot.id)
            record_event(
                conn,
                run_id,
                1,
                node,
                "ok",
                _ms(started),
                {"authorizationSnapshotId": snapshot.id, "purpose": "production"},
            )
    except AuthorizationError as err:
        notify(node, "failed")
        raise _stop(engine, run_id, "authorization_stale", str(err), node, _ms(started)) from None
    notify(node, "ok")
    return snapshot


def _retrieve(engine, run_id, work_id, outline, section_id, as_of, auth, notify) -> FrozenContext:
    notify("retrieving", "running")
    started = time.perf_counter()
    with engine.begin() as conn:
        frozen = freeze_context(
            conn,
            work_id=work_id,
            outline=outline,
            outline_section_id=section_id,
            run_id=run_id,
            attempt=1,
            as_of=as_of,
            authorization=auth,
        )
        ctx = frozen.context
        detail = {
            "contextSnapshotId": frozen.snapshot_id,
            "planId": ctx.manifest.plan_id,
            "manifestId": ctx.manifest.manifest_id,
            "sha256": ctx.context_snapshot.sha256,
            "sources": len(ctx.manifest.sources),
            "omitted": len(ctx.omitted_sources),
        }
        if not frozen.blocking:
            move_run(conn, run_id, "writing")
            record_event(conn, run_id, 1, "retrieving", "ok", _ms(started), detail)
    if frozen.blocking:
        notify("retrieving", "blocked")
        reason = "覆盖门阻断：" + "；".join(r.note for r in frozen.blocking)
        raise _stop(engine, run_id, "blocked_user_action", reason, "retrieving", _ms(started))
    notify("retrieving", "ok")
    return frozen


def _write(engine, run_id, frozen: FrozenContext, provider, model, notify):
    notify("writing", "running")
    started = time.perf_counter()
    try:
        result = dispatch(
            engine,
            role="writer",
            task="generate",
            provider=provider,
            model=model,
            task_input=frozen.context.wire(),
            output_model=WriterDraft,
            run_id=run_id,
        )
    except MuseError as err:
        notify("writing", "failed")
        raise _stop(
            engine, run_id, "failed", f"写手调用失败：{err}", "writing", _ms(started)
        ) from None
    with engine.begin() as conn:
        move_run(conn, run_id, "detecting")
        record_event(
            conn,
            run_id,
            1,
            "writing",
            "ok",
            _ms(started),
            {
                "receiptId": result.receipt_id,
                "modelReturned": result.model_returned,
                "toolsSent": False,
            },
        )
    notify("writing", "ok")
    return result.output, result.receipt_id


def _detect(engine, run_id, frozen: FrozenContext, draft, receipt, summary: RunSummary, notify):
    notify("detecting", "running")
    started = time.perf_counter()
    output, unlocated = build_output(frozen.context, frozen.snapshot_id, draft, candidate_version=1)
    findings = mechanical.check(frozen.context, output, unlocated)
    blocking = [f for f in findings if f.severity == "high"]
    report = {
        "candidateSha256": output.candidate_sha256,
        "candidateVersion": 1,
        "qualityPolicyVersion": frozen.context.quality_policy_version,
        "mechanical": {
            "status": "failed" if blocking else "passed",
            "findings": [f.to_dict() for f in findings],
        },
        "semantic": {
            "status": "not_built",
            "note": "语义检测员尚未建成（生产链议题）；本报告只含机械门结果。",
        },
    }
    candidate_id = new_id("cand")
    with engine.begin() as conn:
        now = utc_now()
        conn.execute(
            candidates.insert().values(
                id=candidate_id,
                run_id=run_id,
                work_id=frozen.context.work_id,
                chapter=frozen.context.target_chapter,
                version=1,
                state="DRAFT",
                revision=0,
                acceptance_eligible=output.acceptance_eligible,
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
        move_candidate(conn, candidate_id, "CHECKING")
        move_candidate(conn, candidate_id, "REJECTED" if blocking else "PASSED", report=report)
        record_event(
            conn,
            run_id,
            1,
            "mechanical_gate",
            "failed" if blocking else "ok",
            _ms(started),
            {
                "candidateId": candidate_id,
                "findings": len(findings),
                "blocking": len(blocking),
                "writerReceiptId": receipt,
            },
        )
        record_event(
            conn,
            run_id,
            1,
            "semantic_detector",
            "not_built",
            0,
            {"note": report["semantic"]["note"]},
        )
        if blocking:
            record_event(
                conn,
                run_id,
                1,
                "rewriting",
                "not_built",
                0,
                {"note": "自动返修尚未建成（生产链议题）；候选交作者决定。"},
            )
            move_run(
                conn,
                run_id,
                "blocked_user_action",
                reason=f"机械门发现 {len(blocking)} 个阻断问题。",
            )
        else:
            move_run(conn, run_id, "shadow_ready")
    notify("detecting", "failed" if blocking else "ok")
    summary.state = "blocked_user_action" if blocking else "shadow_ready"
    summary.candidate_id = candidate_id
    summary.findings = [f.to_dict() for f in findings]
    summary.han_count = count_han(output.candidate_body)


def _ms(started: float) -> int:
    return int((time.perf_counter() - started) * 1000)
