"""修改后合并: the author's edit becomes a new candidate version, checked again (spec 000 §9).

Three transactions, each a node of the run (spec 000 §9: shadow_ready → edited_candidate →
detecting → shadow_ready | blocked_user_action | failed):

1. **edit** — the decision (compare-and-set on the chapter's canonical revision), the new
   candidate row (DRAFT, version + 1, same run, eligibility from the run type), the previous
   version PASSED → ARCHIVED, the run → ``edited_candidate`` with its deadline.
2. **to detecting** — run → ``detecting``, new version DRAFT → CHECKING.
3. **verdict** — after the checks (``edit_recheck``), PASSED and back to ``shadow_ready``, or
   REJECTED with findings and the run stops for the author. An edited version is never accepted
   unchecked: until step 3 it is DRAFT/CHECKING and ``muse accept`` refuses it, and its report
   is bound to its own sha256 and version, which accept preflight re-verifies.

A rejected author edit does not enter the automatic rewrite loop: the automatic layer never
rewrites the author's text (spec 001 §2.1). Each step checks it is still current (``guard_result``
and ``expected_*``): a crash or a timeout between steps leaves the run to its deadline, which
rejects the unfinished version (fail closed).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, Engine
from sqlalchemy.exc import IntegrityError

from muse.context import WriterContext, WriterOutput
from muse.core.canonical import sha256_hex
from muse.core.errors import InvalidInput, StaleTransition
from muse.core.ids import new_id
from muse.flow import decisions as dec
from muse.flow.author_edit import (
    ATTRIBUTION,
    AuthorOutput,
    build_author_output,
    load_context,
    normalize_edit,
)
from muse.flow.deadlines import guard_result, lock_run, start_node
from muse.flow.edit_recheck import apply_verdict, recheck
from muse.flow.eligibility import acceptance_eligible, insert_candidate
from muse.flow.rows import CandidateRow, RunRow
from muse.flow.transitions import move_candidate, move_run, record_event
from muse.quality import Verdict
from muse.works import current_revision

NODE_EDIT, NODE_DETECT = "edited_candidate", "detecting"


def edit_candidate(
    engine: Engine,
    candidate_id: str,
    text: str,
    *,
    expected_revision: int | None = None,
    command_id: str | None = None,
    actor: str | None = None,
) -> dec.DecisionOutcome:
    """Turn ``text`` into a new version of ``candidate_id`` and check it again.

    ``expected_revision``: the chapter's canonical revision the author edited against (default:
    the revision the run started from; 0 when the chapter is new).
    """
    body = normalize_edit(text)
    actor = dec.decision_actor(actor)
    command_id = command_id or dec.edit_command_id(candidate_id, body, expected_revision)
    previous = dec.previous_outcome(engine, command_id, "edit_merge", candidate_id)
    if previous:
        return previous
    try:
        with engine.begin() as conn:
            started = _start(conn, candidate_id, body, expected_revision, command_id, actor)
    except IntegrityError:  # the same command id committed by a concurrent call
        previous = dec.previous_outcome(engine, command_id, "edit_merge", candidate_id)
        if previous:
            return previous
        raise
    except StaleTransition:  # another decision moved the candidate or the run first
        with engine.connect() as conn:
            cand, _ = dec.load(conn, candidate_id)
        raise dec.refuse(cand, "修改") from None
    if isinstance(started, dec.DecisionOutcome):
        return started  # revision conflict, recorded
    return _check_new_version(engine, started)


@dataclass(frozen=True)
class _Started:
    """What step 1 hands to steps 2 and 3 (run and candidate ids, the output, the decision)."""

    run: RunRow
    chapter: int
    candidate_id: str
    new_candidate: str
    version: int
    built: AuthorOutput
    context: WriterContext
    decision_id: str
    message: str


def _start(
    conn: Connection,
    candidate_id: str,
    body: str,
    expected_revision: int | None,
    command_id: str,
    actor: str,
) -> _Started | dec.DecisionOutcome:
    cand, run = dec.load(conn, candidate_id)
    lock_run(conn, run.id)  # PostgreSQL: serialise with other decisions on this run
    if cand.state != "PASSED":
        raise dec.refuse(cand, "修改")
    if run.state != "shadow_ready":
        raise InvalidInput(
            f"该运行当前处于「{dec.run_label(run.state)}」，不在候选待审状态，不能修改。"
        )
    if body == cand.body:
        raise InvalidInput(
            f"修改后的正文与 v{cand.version} 完全相同。", hint="原样采纳请用 muse accept。"
        )
    conflict = _revision_conflict(conn, cand, run, expected_revision)
    if conflict:
        return _record_conflict(
            conn, cand, run, body, expected_revision, command_id, actor, conflict
        )
    context = load_context(conn, cand.context_snapshot_id)
    version = cand.version + 1
    built = build_author_output(
        WriterOutput.model_validate(cand.writer_output),
        body,
        version=version,
        attempt=run.attempt,
        acceptance_eligible=acceptance_eligible(run.run_type, run.mode)
        and context.mode == "production",
    )
    new_candidate = _insert_version(conn, cand, built)
    move_candidate(
        conn,
        candidate_id,
        "ARCHIVED",
        expected_state="PASSED",
        expected_version=cand.version,
        expected_revision=cand.revision,
    )
    move_run(
        conn,
        run.id,
        NODE_EDIT,
        reason=None,
        expected_state="shadow_ready",
        expected_revision=run.revision,
    )
    start_node(conn, run.id, NODE_EDIT)
    message = (
        f"第 {cand.chapter} 章候选 v{cand.version} 已按作者修改生成 v{version}"
        f"（{new_candidate}），旧版本已归档，新版本重新检测。"
    )
    detail = {
        "message": message,
        "chapter": cand.chapter,
        "attribution": ATTRIBUTION,
        "previousVersion": cand.version,
        "newCandidateId": new_candidate,
        "newVersion": version,
        "sha256": built.output.candidate_sha256,
        "expectedRevision": _expected(run, expected_revision),
        "droppedClaims": list(built.dropped_claims),
    }
    decision_id = dec.insert_decision(
        conn, command_id, cand, actor, kind="edit_merge", outcome=NODE_EDIT, detail=detail
    )
    record_event(
        conn,
        run.id,
        run.attempt,
        NODE_EDIT,
        "ok",
        0,
        {
            "decisionId": decision_id,
            "candidateId": new_candidate,
            "version": version,
            "sha256": built.output.candidate_sha256,
            "attribution": ATTRIBUTION,
        },
    )
    return _Started(
        run=run,
        chapter=cand.chapter,
        candidate_id=candidate_id,
        new_candidate=new_candidate,
        version=version,
        built=built,
        context=context,
        decision_id=decision_id,
        message=message,
    )


def _expected(run: RunRow, expected_revision: int | None) -> int:
    return run.base_revision if expected_revision is None else expected_revision


def _revision_conflict(
    conn: Connection, cand: CandidateRow, run: RunRow, expected: int | None
) -> str | None:
    """Why the edit is against a stale canon, or None (spec 000 §11: expectedRevision)."""
    current = current_revision(conn, cand.work_id, cand.chapter) or 0
    chapter = cand.chapter
    if expected is not None and expected != current:
        return (
            f"第 {chapter} 章正式正文当前是修订版 {current}，不是你修改时依据的修订版 {expected}。"
        )
    if current != run.base_revision:
        return (
            f"第 {chapter} 章在本次运行开始后已被改动（修订版 {run.base_revision} → {current}），"
            "本运行的候选已不能合并。"
        )
    return None


def _record_conflict(
    conn: Connection,
    cand: CandidateRow,
    run: RunRow,
    body: str,
    expected: int | None,
    command_id: str,
    actor: str,
    why: str,
) -> dec.DecisionOutcome:
    message = why + "你的修改已原样保存在决定记录中，没有丢失；请基于最新正文重新运行。"
    decision_id = dec.insert_decision(
        conn,
        command_id,
        cand,
        actor,
        kind="edit_merge",
        outcome="revision_conflict",
        detail={
            "message": message,
            "chapter": cand.chapter,
            "attribution": ATTRIBUTION,
            "expectedRevision": _expected(run, expected),
            "editedBody": body,
            "editedSha256": sha256_hex(body),
            "runState": run.state,
        },
    )
    return dec.DecisionOutcome(
        kind="edit_merge",
        state="revision_conflict",
        message=message,
        candidate_id=cand.id,
        chapter=cand.chapter,
        decision_id=decision_id,
        run_state=run.state,
    )


def _insert_version(conn: Connection, cand: CandidateRow, built: AuthorOutput) -> str:
    new_candidate = new_id("cand")
    insert_candidate(
        conn,
        new_candidate,
        run_id=cand.run_id,
        work_id=cand.work_id,
        chapter=cand.chapter,
        context_snapshot_id=cand.context_snapshot_id,
        output=built.output,
    )
    return new_candidate


def _check_new_version(engine: Engine, s: _Started) -> dec.DecisionOutcome:
    run, new_candidate = s.run, s.new_candidate
    with engine.begin() as conn:
        if not guard_result(conn, run.id, run.attempt, NODE_EDIT):
            return _outcome(engine, s, None)
        move_run(conn, run.id, NODE_DETECT, expected_state=NODE_EDIT, expected_attempt=run.attempt)
        start_node(conn, run.id, NODE_DETECT)
        move_candidate(
            conn, new_candidate, "CHECKING", expected_state="DRAFT", expected_version=s.version
        )
    verdict = recheck(engine, run, s.context, s.built, new_candidate)
    applied = apply_verdict(engine, run, new_candidate, verdict)
    return _outcome(engine, s, verdict if applied else None)


def _outcome(engine: Engine, s: _Started, verdict: Verdict | None) -> dec.DecisionOutcome:
    with engine.connect() as conn:
        state, run_state = dec.current_states(conn, s.new_candidate)
    message = s.message
    if state == "PASSED":
        message += f"v{s.version} 复检通过，回到候选待审；采纳：muse accept {s.new_candidate}"
    else:
        message += f"v{s.version} 复检未通过（{dec.state_label(state)}），不能采纳。"
        if verdict is not None and verdict.reason:
            message += f"原因：{verdict.reason}"
    return dec.DecisionOutcome(
        kind="edit_merge",
        state=state,
        message=message,
        candidate_id=s.candidate_id,
        chapter=s.chapter,
        decision_id=s.decision_id,
        new_candidate_id=s.new_candidate,
        new_version=s.version,
        run_state=run_state,
        findings=[f.to_dict() for f in verdict.findings] if verdict else [],
    )
