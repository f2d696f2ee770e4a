"""``muse write N``: one production run from the confirmed fine outline to a shadow candidate.

Each node commits its own transaction, so every step (and where a run stopped) is stored and
visible; a node's state change and its side-effect rows share one transaction. Every working node
has a deadline (``flow.deadlines``): a result that arrives after its node timed out is discarded
(``guard_result``), never applied. Every move names the state it expects, so a stale actor can
never move a run that someone else already moved. The automatic rewrite loop is not built yet: it
is recorded as a ``not_built`` event and a rejected candidate goes to the author.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from sqlalchemy import Connection, Engine, select

from muse.agents import offline_writer  # noqa: F401  (the offline provider's writer)
from muse.agents.dispatch import dispatch
from muse.context.output_contracts import WriterDraft, WriterOutput
from muse.context.writer_context import QUALITY_POLICY_VERSION, FrozenContext, freeze_context
from muse.context.writer_output import build_output
from muse.core.clock import utc_now
from muse.core.errors import AuthorizationError, InvalidInput, MuseError
from muse.core.ids import new_id
from muse.core.text import count_han
from muse.flow.deadlines import guard_result, remaining_s, start_node
from muse.flow.states import WORKING_NODES
from muse.flow.tables import candidates, runs
from muse.flow.transitions import move_candidate, move_run, record_event
from muse.planning.fine_outlines import load_confirmed
from muse.quality import mechanical
from muse.quality.semantic import SemanticReport, run_semantic_detector
from muse.works import authorization, catalog
from muse.works.tables import chapters

Progress = Callable[[str, str], None]  # (node, status)
ATTEMPT = 1  # the rewrite loop (attempt + 1) is not built yet


@dataclass
class RunSummary:
    run_id: str
    state: str
    reason: str | None = None
    candidate_id: str | None = None
    findings: list[dict] = field(default_factory=list)
    han_count: int | None = None
    context_snapshot_id: str | None = None
    semantic_status: str | None = None


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
        auth = _validate(engine, run_id, work_id, notify)
        frozen = _retrieve(engine, run_id, work_id, outline, section_id, latest, auth, notify)
        summary.context_snapshot_id = frozen.snapshot_id
        draft, receipt = _write(engine, run_id, frozen, provider, model, notify)
        _detect(engine, run_id, frozen, draft, receipt, provider, model, summary, notify)
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
            attempt=ATTEMPT,
            revision=0,
            provider=provider,
            model=model,
            as_of=as_of,
            base_revision=base,
            created_at=now,
            updated_at=now,
        )
    )
    start_node(conn, run_id, "validating_context")
    return run_id


def _advance(conn: Connection, run_id: str, node: str, next_state: str, **values) -> None:
    """Apply ``node``'s result: refuse it if late, else move on and start the next deadline."""
    if not guard_result(conn, run_id, ATTEMPT, node):
        raise _Late(node)
    move_run(conn, run_id, next_state, expected_state=node, expected_attempt=ATTEMPT, **values)
    if next_state in WORKING_NODES:
        start_node(conn, run_id, next_state)


class _Late(Exception):
    def __init__(self, node: str) -> None:
        self.node = node


def _current_state(engine: Engine, run_id: str) -> tuple[str, str | None]:
    with engine.connect() as conn:
        row = conn.execute(select(runs.c.state, runs.c.reason).where(runs.c.id == run_id)).one()
    return row.state, row.reason


def _commit_node(
    engine: Engine, run_id: str, node: str, work: Callable[[Connection], None]
) -> None:
    """Run ``work`` (which calls ``_advance``) in one transaction; a late result is discarded."""
    late = False
    with engine.begin() as conn:
        try:
            work(conn)
        except _Late:
            late = True  # the late-discarded event and any timeout are committed
    if late:
        state, reason = _current_state(engine, run_id)
        raise _Stopped(state, reason or f"{node} 的结果迟到，已丢弃。")


def _stop(engine: Engine, run_id: str, state: str, reason: str, node: str, ms: int) -> _Stopped:
    def work(conn: Connection) -> None:
        _advance(conn, run_id, node, state, reason=reason)
        status = "blocked" if state == "blocked_user_action" else "failed"
        record_event(conn, run_id, ATTEMPT, node, status, ms, {"reason": reason})

    _commit_node(engine, run_id, node, work)
    return _Stopped(state, reason)


def _validate(engine: Engine, run_id: str, work_id: int, notify: Progress):
    node = "validating_context"
    notify(node, "running")
    started = time.perf_counter()
    holder = {}

    def work(conn: Connection) -> None:
        snapshot = authorization.take_snapshot(conn, work_id, "production")
        holder["snapshot"] = snapshot
        _advance(conn, run_id, node, "retrieving", authorization_snapshot_id=snapshot.id)
        record_event(
            conn,
            run_id,
            ATTEMPT,
            node,
            "ok",
            _ms(started),
            {"authorizationSnapshotId": snapshot.id, "purpose": "production"},
        )

    try:
        _commit_node(engine, run_id, node, work)
    except AuthorizationError as err:
        notify(node, "failed")
        raise _stop(engine, run_id, "authorization_stale", str(err), node, _ms(started)) from None
    notify(node, "ok")
    return holder["snapshot"]


def _retrieve(engine, run_id, work_id, outline, section_id, as_of, auth, notify) -> FrozenContext:
    node = "retrieving"
    notify(node, "running")
    started = time.perf_counter()
    holder = {}

    def work(conn: Connection) -> None:
        frozen = freeze_context(
            conn,
            work_id=work_id,
            outline=outline,
            outline_section_id=section_id,
            run_id=run_id,
            attempt=ATTEMPT,
            as_of=as_of,
            authorization=auth,
        )
        holder["frozen"] = frozen
        if frozen.blocking:
            return  # the context is stored; the run stops below, in its own transaction
        ctx = frozen.context
        _advance(conn, run_id, node, "writing")
        record_event(
            conn,
            run_id,
            ATTEMPT,
            node,
            "ok",
            _ms(started),
            {
                "contextSnapshotId": frozen.snapshot_id,
                "planId": ctx.manifest.plan_id,
                "manifestId": ctx.manifest.manifest_id,
                "sha256": ctx.context_snapshot.sha256,
                "sources": len(ctx.manifest.sources),
                "omitted": len(ctx.omitted_sources),
                "cardHits": len(ctx.manifest.card_hits),
            },
        )

    _commit_node(engine, run_id, node, work)
    frozen = holder["frozen"]
    if frozen.blocking:
        notify(node, "blocked")
        reason = "覆盖门阻断：" + "；".join(r.note for r in frozen.blocking)
        raise _stop(engine, run_id, "blocked_user_action", reason, node, _ms(started))
    notify(node, "ok")
    return frozen


def _deadline_left(engine: Engine, run_id: str) -> float | None:
    with engine.connect() as conn:
        deadline = conn.execute(select(runs.c.deadline_at).where(runs.c.id == run_id)).scalar()
    return remaining_s(deadline) if deadline is not None else None


def _write(engine, run_id, frozen: FrozenContext, provider, model, notify):
    node = "writing"
    notify(node, "running")
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
            timeout_s=_deadline_left(engine, run_id),
        )
    except MuseError as err:
        notify(node, "failed")
        raise _stop(engine, run_id, "failed", f"写手调用失败：{err}", node, _ms(started)) from None

    def work(conn: Connection) -> None:
        _advance(conn, run_id, node, "detecting")
        record_event(
            conn,
            run_id,
            ATTEMPT,
            node,
            "ok",
            _ms(started),
            {
                "receiptId": result.receipt_id,
                "modelReturned": result.model_returned,
                "toolsSent": False,
            },
        )

    _commit_node(engine, run_id, node, work)
    notify(node, "ok")
    return result.output, result.receipt_id


def _semantic(engine, run_id, frozen, output: WriterOutput, provider, model) -> SemanticReport:
    try:
        return run_semantic_detector(
            engine,
            context=frozen.context,
            output=output,
            run_id=run_id,
            provider=provider,
            model=model,
            timeout_s=_deadline_left(engine, run_id),
        )
    except MuseError as err:
        raise _stop(
            engine, run_id, "failed", f"语义检测员调用失败：{err}", "detecting", 0
        ) from None


def _outcome(blocking: list, semantic: SemanticReport | None) -> tuple[str, str, str | None]:
    """(run state, candidate state, reason) from the two checks (spec 000 §9)."""
    if blocking:
        return "blocked_user_action", "REJECTED", f"机械门发现 {len(blocking)} 个阻断问题。"
    assert semantic is not None
    if semantic.status == "passed":
        return "shadow_ready", "PASSED", None
    if semantic.status == "forged":
        return "failed", "REJECTED", "detector_forgery：检测报告未通过防造假校验，已拒收。"
    if semantic.status == "needs_evidence":
        return "blocked_user_action", "REJECTED", "needs_evidence：语义检测缺少证据，交作者决定。"
    return "blocked_user_action", "REJECTED", f"语义检测发现 {len(semantic.blocking)} 个阻断问题。"


def _detect(engine, run_id, frozen, draft, receipt, provider, model, summary, notify):
    node = "detecting"
    notify(node, "running")
    started = time.perf_counter()
    output, unlocated = build_output(frozen.context, frozen.snapshot_id, draft, candidate_version=1)
    findings = mechanical.check(frozen.context, output, unlocated)
    blocking = [f for f in findings if f.severity == "high"]
    semantic = None if blocking else _semantic(engine, run_id, frozen, output, provider, model)
    run_state, candidate_state, reason = _outcome(blocking, semantic)
    report = {
        "candidateSha256": output.candidate_sha256,
        "candidateVersion": 1,
        "qualityPolicyVersion": frozen.context.quality_policy_version,
        "mechanical": {
            "status": "failed" if blocking else "passed",
            "findings": [f.to_dict() for f in findings],
        },
        "semantic": semantic.wire()
        if semantic
        else {"status": "skipped", "note": "机械门已阻断，未运行语义检测。"},
    }
    candidate_id = new_id("cand")

    def work(conn: Connection) -> None:
        _insert_candidate(conn, candidate_id, run_id, frozen, output)
        move_candidate(conn, candidate_id, "CHECKING")
        move_candidate(conn, candidate_id, candidate_state, report=report)
        _advance(conn, run_id, node, run_state, reason=reason)
        record_event(
            conn,
            run_id,
            ATTEMPT,
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
        if semantic is not None:
            record_event(
                conn,
                run_id,
                ATTEMPT,
                "semantic_detector",
                "ok" if semantic.passed else "failed",
                0,
                {
                    "status": semantic.status,
                    "receiptId": semantic.receipt_id,
                    "findings": len(semantic.findings),
                    "gaps": len(semantic.gaps),
                },
            )
        if run_state == "blocked_user_action":
            record_event(
                conn,
                run_id,
                ATTEMPT,
                "rewriting",
                "not_built",
                0,
                {"note": "自动返修尚未建成（生产链议题）；候选交作者决定。"},
            )

    _commit_node(engine, run_id, node, work)
    notify(node, "ok" if run_state == "shadow_ready" else "failed")
    summary.state, summary.reason, summary.candidate_id = run_state, reason, candidate_id
    summary.findings = [f.to_dict() for f in findings]
    if semantic is not None:
        summary.findings += [f.to_dict() for f in semantic.findings]
        summary.semantic_status = semantic.status
    summary.han_count = count_han(output.candidate_body)


def _insert_candidate(conn, candidate_id, run_id, frozen: FrozenContext, output: WriterOutput):
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


def _ms(started: float) -> int:
    return int((time.perf_counter() - started) * 1000)
