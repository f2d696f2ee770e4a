"""``muse write N``: one production run from the confirmed fine outline to a shadow candidate.

Each node commits its own transaction, so every step (and where a run stopped) is stored and
visible; a node's state change and its side-effect rows share one transaction. Every working node
has a deadline (``flow.deadlines``): a result that arrives after its node timed out, or after the
run moved on to a later attempt, is discarded (``guard_result``), never applied. Every move names
the state and attempt it expects, so a stale actor can never move a run someone else moved.

The chain: validating_context → retrieving → writing → detecting, then the check's verdict
(``flow.checking``): shadow_ready, or — for verified, located problems — ``rewriting`` with
attempt + 1 and a revision list, a new candidate version and ``detecting`` again, up to the
rewrite policy (``flow.rewrite``), then ``blocked_user_action``; evidence gaps end in
``authorization_required`` (or pass as new-setting candidates); a forged report ends ``failed``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from sqlalchemy import Connection, Engine, bindparam, func, select

from muse.agents import dispatch
from muse.context import (
    QUALITY_POLICY_VERSION,
    FrozenContext,
    UnlocatedClaim,
    WriterDraft,
    WriterOutput,
    build_output,
    freeze_context,
)
from muse.core.errors import AuthorizationError, InvalidInput, MuseError
from muse.core.ids import new_id
from muse.core.text import count_han
from muse.flow.checking import Lexicons, check_candidate, check_lexicons, located, with_attempt
from muse.flow.deadlines import start_node
from muse.flow.eligibility import insert_candidate, insert_run
from muse.flow.rewrite import Decision, RewritePolicy, rewrite_loop, writer_input
from muse.flow.run_steps import NodeEvent, Observer, RunCtx, Stopped
from muse.flow.tables import candidates, runs
from muse.flow.transitions import move_candidate, move_run, record_event
from muse.flow.verdicts import commit_verdict
from muse.flow.writer_phases import EvidenceLedger, answer_requests, explore_and_replay
from muse.planning import FineOutline, load_confirmed
from muse.quality import Verdict
from muse.store.prepared import Prepared
from muse.works import AuthorizationSnapshot, latest_chapter_number, take_snapshot

Progress = Callable[[str, str], None]  # (node, status): the simple form, kept for the demo

__all__ = ["NodeEvent", "Progress", "RunSummary", "write_chapter"]


@dataclass
class AttemptSummary:
    attempt: int
    candidate_id: str
    version: int
    outcome: str
    candidate_state: str
    han_count: int
    findings: list[dict[str, Any]] = field(default_factory=list)
    revision_list: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class RunSummary:
    run_id: str
    state: str
    reason: str | None = None
    candidate_id: str | None = None
    findings: list[dict[str, Any]] = field(default_factory=list)
    han_count: int | None = None
    context_snapshot_id: str | None = None
    semantic_status: str | None = None
    attempt: int = 1
    max_rewrites: int = 0
    attempts: list[AttemptSummary] = field(default_factory=list)
    evidence_gaps: list[dict[str, Any]] = field(default_factory=list)
    new_setting_candidates: list[dict[str, Any]] = field(default_factory=list)
    evidence_requests: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class _Written:
    output: WriterOutput
    unlocated: list[UnlocatedClaim]
    candidate_id: str
    receipt_id: str


def write_chapter(
    engine: Engine,
    work_id: int,
    chapter: int,
    *,
    provider: str,
    model: str,
    progress: Progress | None = None,
    observer: Observer | None = None,
    max_rewrites: int | None = None,
    author_words: str | None = None,
    round_number: int = 1,
) -> RunSummary:
    """Run the production chain for ``chapter``; the run always ends in a named state.

    ``max_rewrites``: automatic rewrites allowed after a rejected check (None: the policy,
    ``MUSE_MAX_REWRITES`` or 2). ``progress`` gets (node, status); ``observer`` gets every
    :class:`NodeEvent` (node, status, attempt, elapsed ms, detail) for a live display.
    ``author_words``/``round_number``: item 7 of the round (spec 001 §2.3; round 2 and later are
    the author's 「改：…」, see ``flow.revise``)."""
    policy = RewritePolicy.resolve(max_rewrites)
    with engine.begin() as conn:
        latest = latest_chapter_number(conn, work_id) or 0
        if chapter != latest + 1:
            raise InvalidInput(f"只能续写下一章（第 {latest + 1} 章），不能直接写第 {chapter} 章。")
        section_id, outline = load_confirmed(conn, work_id, chapter)
        run_id = _insert_run(conn, work_id, chapter, latest, provider, model)
    run = RunCtx(engine, run_id, provider, model, progress, observer)
    summary = RunSummary(
        run_id=run_id, state="validating_context", max_rewrites=policy.max_rewrites
    )
    try:
        auth = _validate(run, work_id, policy)
        frozen = _retrieve(
            run, work_id, outline, section_id, latest, auth, (author_words, round_number)
        )
        summary.context_snapshot_id = frozen.snapshot_id
        _loop(run, frozen, policy, summary)
    except Stopped as stop:
        summary.state, summary.reason = stop.state, stop.reason
    except Exception as err:  # noqa: BLE001 - principle 7: the run ends explicitly, at once
        summary.state, summary.reason = end_crashed(run, err)
    return summary


_CRASHABLE = ("validating_context", "retrieving", "writing", "detecting", "rewriting")


def end_crashed(run: RunCtx, err: Exception) -> tuple[str, str]:
    """A failure no node expected (a database refusing a value, a bug): the run moves from the
    node it is in to ``failed`` at once, with a reason naming the cause — never left in a
    working state for the sweep to find."""
    cause = f"{type(err).__name__}：{str(err).splitlines()[0][:300] if str(err) else ''}"
    with run.engine.begin() as conn:
        row = conn.execute(
            select(runs.c.state, runs.c.attempt, runs.c.reason).where(runs.c.id == run.run_id)
        ).one()
        if row.state not in _CRASHABLE:
            return row.state, row.reason or cause
        reason = f"运行在「{row.state}」节点内部出错，已终止：{cause}"
        move_run(
            conn,
            run.run_id,
            "failed",
            reason=reason,
            expected_state=row.state,
            expected_attempt=row.attempt,
        )
        record_event(conn, run.run_id, row.attempt, row.state, "failed", 0, {"reason": reason})
    run.emit(NodeEvent(row.state, "failed", row.attempt))
    return "failed", reason


def _loop(run: RunCtx, frozen: FrozenContext, policy: RewritePolicy, summary: RunSummary) -> None:
    """writing → detecting, then rewriting → detecting while the verdict and policy allow
    (``flow.rewrite.rewrite_loop``, the loop the evaluation's production arm runs too)."""
    ledger = EvidenceLedger()
    lexicons = check_lexicons(run.engine, frozen.context)  # one freeze point for every attempt
    started: dict[int, float] = {}

    def write(attempt: int, revision: dict[str, Any] | None) -> _Written:
        nonlocal frozen  # an attempt may freeze a new context (answered evidence requests)
        frozen, written = _generate(run, frozen, attempt, revision, ledger)
        summary.context_snapshot_id = frozen.snapshot_id
        summary.evidence_requests = {"answered": ledger.answered, "gaps": ledger.gaps}
        return written

    def check(written: _Written, attempt: int) -> Verdict:
        started[attempt] = run.begin("detecting", attempt, {"candidateId": written.candidate_id})
        return _check(run, frozen, written, attempt, lexicons)

    def commit(written: _Written, attempt: int, verdict: Verdict, decision: Decision) -> None:
        _commit(run, written, attempt, verdict, decision, started[attempt], summary)

    rewrite_loop(policy, write=write, check=check, commit=commit)


def _insert_run(
    conn: Connection, work_id: int, chapter: int, as_of: int, provider: str, model: str
) -> str:
    run_id = insert_run(
        conn,
        work_id=work_id,
        chapter=chapter,
        run_type="production",
        mode="production",
        quality_policy_version=QUALITY_POLICY_VERSION,
        as_of=as_of,
        provider=provider,
        model=model,
    )
    start_node(conn, run_id, "validating_context")
    return run_id


def _validate(run: RunCtx, work_id: int, policy: RewritePolicy) -> AuthorizationSnapshot:
    node = "validating_context"
    started = run.begin(node, 1)

    def work(conn: Connection) -> AuthorizationSnapshot:
        snapshot = take_snapshot(conn, work_id, "production")
        run.advance(conn, node, 1, "retrieving", authorization_snapshot_id=snapshot.id)
        detail = {
            "authorizationSnapshotId": snapshot.id,
            "purpose": "production",
            "maxRewrites": policy.max_rewrites,
        }
        record_event(conn, run.run_id, 1, node, "ok", run.ms(started), detail)
        return snapshot

    try:
        snapshot = run.commit_node(node, work)
    except AuthorizationError as err:
        run.end(node, 1, "failed", started)
        raise run.stop("authorization_stale", str(err), node, 1, started) from None
    run.end(node, 1, "ok", started, {"authorizationSnapshotId": snapshot.id})
    return snapshot


def _retrieve(
    run: RunCtx,
    work_id: int,
    outline: FineOutline,
    section_id: str,
    as_of: int,
    auth: AuthorizationSnapshot,
    item7: tuple[str | None, int],
) -> FrozenContext:
    """Explore (the writer with read-only tools), replay without a model, freeze."""
    node = "retrieving"
    started = run.begin(node, 1)
    try:
        explored = explore_and_replay(run, work_id=work_id, as_of=as_of, outline=outline)
    except MuseError as err:
        run.end(node, 1, "failed", started)
        raise run.stop("failed", f"写手探索阶段失败：{err}", node, 1, started) from None
    run.emit(NodeEvent("exploring", "ok", 1, run.ms(started), explored.detail()))

    def work(conn: Connection) -> tuple[FrozenContext, dict[str, Any]]:
        frozen = freeze_context(
            conn,
            work_id=work_id,
            outline=outline,
            outline_section_id=section_id,
            run_id=run.run_id,
            attempt=1,
            as_of=as_of,
            authorization=auth,
            exploration=explored.manifest,
            replayed=explored.replayed,
            author_words=item7[0],
            round_number=item7[1],
        )
        if frozen.blocking:
            return frozen, {}  # the context is stored; the run stops below, in its own transaction
        ctx = frozen.context
        run.advance(conn, node, 1, "writing")
        detail = {
            "contextSnapshotId": frozen.snapshot_id,
            "planId": ctx.manifest.plan_id,
            "manifestId": ctx.manifest.manifest_id,
            "sha256": ctx.context_snapshot.sha256,
            "sources": len(ctx.manifest.sources),
            "omitted": len(ctx.omitted_sources),
            "cardHits": len(ctx.manifest.card_hits),
            "exploration": explored.detail(),
            "round": item7[1],
        }
        record_event(conn, run.run_id, 1, node, "ok", run.ms(started), detail)
        return frozen, detail

    frozen, detail = run.commit_node(node, work)
    if frozen.blocking:
        run.end(node, 1, "blocked", started)
        reason = "覆盖门阻断：" + "；".join(r.note for r in frozen.blocking)
        raise run.stop("blocked_user_action", reason, node, 1, started)
    run.end(node, 1, "ok", started, detail)
    return frozen


def _generate(
    run: RunCtx,
    frozen: FrozenContext,
    attempt: int,
    revision: dict[str, Any] | None,
    ledger: EvidenceLedger,
) -> tuple[FrozenContext, _Written]:
    """The writer's tool-less call (``writing`` for attempt 1, ``rewriting`` after), again
    after its evidence requests are answered, and the new candidate version, inserted DRAFT and
    moved to CHECKING with the move to ``detecting``."""
    node = "writing" if attempt == 1 else "rewriting"
    started = run.begin(node, attempt, {"revisionItems": len(revision["items"]) if revision else 0})
    while True:
        try:
            result = dispatch(
                run.engine,
                role="writer",
                task="generate",
                provider=run.provider,
                model=run.model,
                task_input=writer_input(frozen.context, revision),
                output_model=WriterDraft,
                run_id=run.run_id,
                timeout_s=run.deadline_left(),
            )
            extended = answer_requests(run, frozen, _draft(result.output), ledger, attempt)
        except MuseError as err:
            run.end(node, attempt, "failed", started)
            raise run.stop("failed", f"写手调用失败：{err}", node, attempt, started) from None
        if extended is None:
            break
        frozen = extended
        run.emit(NodeEvent("evidence_requests", "ok", attempt, run.ms(started)))

    def work(conn: Connection) -> tuple[_Written, dict[str, Any]]:
        version = _next_version(conn, run.run_id)
        output, unlocated = with_attempt(
            *build_output(frozen.context, frozen.snapshot_id, _draft(result.output), version),
            attempt,
        )
        run.advance(conn, node, attempt, "detecting")
        candidate_id = new_id("cand")
        insert_candidate(
            conn,
            candidate_id,
            run_id=run.run_id,
            work_id=frozen.context.work_id,
            chapter=frozen.context.target_chapter,
            context_snapshot_id=frozen.snapshot_id,
            output=output,
        )
        move_candidate(conn, candidate_id, "CHECKING", expected_state="DRAFT")
        written = _Written(output, unlocated, candidate_id, result.receipt_id)
        detail = {
            "receiptId": result.receipt_id,
            "modelReturned": result.model_returned,
            "toolsSent": False,
            "candidateId": candidate_id,
            "candidateVersion": version,
            "candidateSha256": output.candidate_sha256,
            "revisionItems": len(revision["items"]) if revision else 0,
        }
        record_event(conn, run.run_id, attempt, node, "ok", run.ms(started), detail)
        return written, detail

    written, detail = run.commit_node(node, work)
    run.end(node, attempt, "ok", started, detail)
    return frozen, written


def _check(
    run: RunCtx, frozen: FrozenContext, written: _Written, attempt: int, lexicons: Lexicons
) -> Verdict:
    return check_candidate(
        run.engine,
        run_id=run.run_id,
        attempt=attempt,
        frozen_or_context=frozen,
        output=written.output,
        provider=run.provider,
        model=run.model,
        timeout_s=run.deadline_left(),
        unlocated=written.unlocated,
        observe=lambda step, status, ms: run.emit(NodeEvent(step, status, attempt, ms)),
        lexicons=lexicons,
    )


def _commit(
    run: RunCtx,
    written: _Written,
    attempt: int,
    verdict: Verdict,
    decision: Decision,
    started: float,
    summary: RunSummary,
) -> None:
    node = "detecting"
    state, reason = decision.run_state, decision.reason

    def work(conn: Connection) -> None:
        if not commit_verdict(
            conn,
            run_id=run.run_id,
            attempt=attempt,
            candidate_id=written.candidate_id,
            verdict=verdict,
            run_state=state,
            reason=reason,
            detail={"writerReceiptId": written.receipt_id},
        ):
            raise run.late(node)

    run.commit_node(node, work)
    status = {"shadow_ready": "ok", "rewriting": "failed", "failed": "failed"}.get(state, "blocked")
    run.end(node, attempt, status, started, {"outcome": verdict.outcome, "runState": state})
    _summarise(summary, verdict, written, attempt, state, reason)


def _summarise(
    summary: RunSummary,
    verdict: Verdict,
    written: _Written,
    attempt: int,
    state: str,
    reason: str | None,
) -> None:
    body = written.output.candidate_body
    han_count = count_han(body)
    findings = [
        {**f.to_dict(), "location": located(body, f.start, f.end)} for f in verdict.findings
    ]
    summary.attempts.append(
        AttemptSummary(
            attempt=attempt,
            candidate_id=written.candidate_id,
            version=written.output.candidate_version,
            outcome=verdict.outcome,
            candidate_state=verdict.candidate_state,
            han_count=han_count,
            findings=findings,
            revision_list=[r.to_dict() for r in verdict.revision_list],
        )
    )
    summary.state, summary.reason, summary.attempt = state, reason, attempt
    summary.candidate_id, summary.findings, summary.han_count = (
        written.candidate_id,
        findings,
        han_count,
    )
    summary.semantic_status = verdict.semantic.status if verdict.semantic else None
    summary.evidence_gaps = [g.to_dict() for g in verdict.gaps]
    summary.new_setting_candidates = list(
        verdict.semantic.new_setting_candidates if verdict.semantic else ()
    )


def _draft(output: object) -> WriterDraft:
    assert isinstance(output, WriterDraft)  # dispatch validated it against output_model
    return output


_LATEST_VERSION = Prepared(
    select(func.max(candidates.c.version)).where(candidates.c.run_id == bindparam("run_id"))
)


def _next_version(conn: Connection, run_id: str) -> int:
    latest = _LATEST_VERSION.run(conn, run_id=run_id).scalar()
    return (latest or 0) + 1
