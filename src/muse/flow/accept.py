"""采纳: accept preflight (spec 000 §9) and the canonical commit in ONE transaction.

Preflight is checked live at accept time. A failure ends the run in its own state
(revision_conflict, authorization_stale, source_stale, quality_stale) with a message and the way
forward. The commit writes the prose revision (compare-and-set), the fact deltas the author
approves with the accept (spec 001 §6, see :mod:`muse.flow.candidate_facts`), the decision, the
candidate and run moves and the extraction job together; any failure rolls all of it back.

The decision path is the one of :mod:`muse.flow.decisions` (load, the command-id rule, the
decision row, the actor rule): the same command id applied twice has one effect — the second call
returns the first outcome — and a command id already used for another decision (a discard, an
edit, another candidate) is refused, never reported as a repeated accept.

The commit carries named fault-injection points (:data:`FAULT_POINTS`, see
:mod:`muse.core.faults`): with ``MUSE_FAULT_POINT`` set to one of them the process is killed by
SIGKILL right there, which is how tests prove that a crash inside the commit leaves all or nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import Connection, Engine, select
from sqlalchemy.exc import IntegrityError

from muse.context import QUALITY_POLICY_VERSION, index_chapter, snapshot_payload, snapshot_revisions
from muse.core.errors import AuthorizationError, InvalidInput, RevisionConflict
from muse.core.faults import fault_point
from muse.core.ids import new_id
from muse.flow.candidate_facts import approve_candidate_facts
from muse.flow.decisions import decision_actor, decision_for_command, insert_decision, load
from muse.flow.rows import CandidateRow, RunRow
from muse.flow.tables import runs
from muse.flow.transitions import move_candidate, move_run
from muse.quality import verify_binding
from muse.store.jobs import enqueue
from muse.works import add_chapter, chapter_revisions, get_work_row, revalidate, write_revision

NEXT_STEP = "请重新写第 {chapter} 章，生成新的候选（命令行 muse write {chapter}，或工作台作品页的「开始写」）。"

# Where a crash test may kill the accept commit, in the order the commit reaches them; the last
# one is after the transaction committed (everything must then be there).
FAULT_POINTS = (
    "accept.after_preflight",
    "accept.after_prose",
    "accept.after_index",
    "accept.after_facts",
    "accept.after_candidate",
    "accept.after_job",
    "accept.before_commit",
    "accept.after_commit",
)


@dataclass(frozen=True)
class AcceptOutcome:
    state: str  # extraction_queued | revision_conflict | authorization_stale | source_stale | quality_stale
    message: str
    candidate_id: str
    chapter: int
    revision: int | None = None
    job_id: str | None = None
    repeated: bool = False
    approved_facts: tuple[str, ...] = ()  # fact delta ids approved into the ledger with it

    @property
    def accepted(self) -> bool:
        return self.state == "extraction_queued"


class PreflightFailed(Exception):
    def __init__(self, state: str, message: str) -> None:
        self.state, self.message = state, message


def accept_candidate(
    engine: Engine,
    candidate_id: str,
    *,
    command_id: str | None = None,
    actor: str | None = None,
    approve_facts: Sequence[str] = (),
    approve_all_facts: bool = False,
) -> AcceptOutcome:
    """Accept ``candidate_id``; with ``approve_facts`` / ``approve_all_facts``, approve its fact
    deltas into the ledger in the same transaction (a refused one aborts everything:
    :class:`muse.flow.candidate_facts.FactApprovalRefused`, nothing written)."""
    facts = FactChoice(tuple(approve_facts), approve_all_facts)
    command_id = command_id or f"accept:{candidate_id}"
    actor = decision_actor(actor)
    with engine.connect() as conn:
        previous = _previous(conn, command_id, candidate_id)
        if previous:
            return previous
        cand, run = load(conn, candidate_id, lock=False)  # a precheck: waits on no decision
    _refuse_ineligible(cand, run)
    try:
        with engine.begin() as conn:
            cand, run = load(conn, candidate_id)  # run, then candidate: one lock order
            previous = _previous(
                conn, command_id, candidate_id
            )  # the same command won the race meanwhile
            if previous:
                return previous
            _refuse_ineligible(cand, run)  # another decision won it
            _preflight(conn, cand, run)
            outcome = _commit(conn, cand, run, command_id, actor, facts)
        fault_point("accept.after_commit")
        return outcome
    except PreflightFailed as failed:
        return _record_failure(engine, cand, run, command_id, actor, failed)
    except RevisionConflict as err:
        return _record_failure(
            engine, cand, run, command_id, actor, PreflightFailed("revision_conflict", str(err))
        )
    except IntegrityError:
        previous = _previous_after_race(engine, command_id, candidate_id)
        if previous:
            return previous
        return _record_failure(
            engine,
            cand,
            run,
            command_id,
            actor,
            PreflightFailed("revision_conflict", f"第 {cand.chapter} 章刚被另一个候选写入。"),
        )


def _previous(conn: Connection, command_id: str, candidate_id: str) -> AcceptOutcome | None:
    row = decision_for_command(conn, command_id, "accept", candidate_id)
    if row is None:
        return None
    d = row.detail
    return AcceptOutcome(
        state=row.outcome,
        message=d.get("message", ""),
        candidate_id=row.candidate_id,
        chapter=d.get("chapter", 0),
        revision=d.get("revision"),
        job_id=d.get("jobId"),
        repeated=True,
        approved_facts=tuple(d.get("approvedFacts", ())),
    )


def _previous_after_race(
    engine: Engine, command_id: str, candidate_id: str
) -> AcceptOutcome | None:
    with engine.connect() as conn:
        return _previous(conn, command_id, candidate_id)


def _refuse_ineligible(cand: CandidateRow, run: RunRow) -> None:
    """Refusals that are not run outcomes: the author asked for something impossible."""
    if run.run_type != "production" or run.mode != "production" or not cand.acceptance_eligible:
        raise InvalidInput("评测或诊断候选永远不能成为正式正文。")
    if cand.state != "PASSED":
        raise InvalidInput(f"候选状态是 {cand.state}，只有通过检测（PASSED）的候选可以采纳。")
    if run.state != "shadow_ready":
        raise InvalidInput(f"该运行当前处于 {run.state}，不在候选待审状态，不能采纳。")


def _preflight(conn: Connection, cand: CandidateRow, run: RunRow) -> None:
    chapter = cand.chapter
    report = cand.report or {}
    if (
        report.get("candidateSha256") != cand.sha256
        or report.get("candidateVersion") != cand.version
        or report.get("qualityPolicyVersion") != run.quality_policy_version
        or run.quality_policy_version != QUALITY_POLICY_VERSION
        or (report.get("semantic") or {}).get("status") != "passed"
        or not verify_binding(report["semantic"], body=cand.body, version=cand.version)
    ):
        raise PreflightFailed(
            "quality_stale",
            "检测报告与当前候选或质量策略版本不一致，" + NEXT_STEP.format(chapter=chapter),
        )
    work = get_work_row(conn, cand.work_id)
    if work.source_status != "active":
        raise PreflightFailed(
            "source_stale", f"作品来源状态已变为 {work.source_status}，不能采纳。"
        )
    if run.authorization_snapshot_id is None:  # a run past validating_context always has one
        raise PreflightFailed("authorization_stale", "该运行没有冻结的授权快照，不能采纳。")
    try:
        revalidate(conn, run.authorization_snapshot_id)
    except AuthorizationError as err:
        raise PreflightFailed("authorization_stale", str(err)) from None
    revisions = chapter_revisions(conn, cand.work_id)  # one light read for both checks
    _check_context_sources(conn, cand, revisions)
    current = revisions.get(chapter, 0)
    if current != run.base_revision:
        raise PreflightFailed(
            "revision_conflict",
            f"第 {chapter} 章在本次运行开始后已被改动"
            f"（修订版 {run.base_revision} → {current}）。" + NEXT_STEP.format(chapter=chapter),
        )


def _check_context_sources(conn: Connection, cand: CandidateRow, revisions: dict[int, int]) -> None:
    read = snapshot_revisions(conn, cand.context_snapshot_id)
    changed = sorted(int(n) for n, rev in read.items() if revisions.get(int(n)) != rev)
    if changed:
        raise PreflightFailed(
            "source_stale",
            "写作时读取的第 "
            + "、".join(map(str, changed))
            + " 章已被修改，上下文失效。"
            + NEXT_STEP.format(chapter=cand.chapter),
        )


@dataclass(frozen=True)
class FactChoice:
    ids: tuple[str, ...] = ()
    every: bool = False


def _commit(
    conn: Connection,
    cand: CandidateRow,
    run: RunRow,
    command_id: str,
    actor: str,
    facts: FactChoice,
) -> AcceptOutcome:
    chapter, work_id = cand.chapter, cand.work_id
    decision_id = new_id("dec")
    attribution = {"runId": run.id, "candidateId": cand.id, "decisionId": decision_id}
    move_run(conn, run.id, "accept_preflight")
    fault_point("accept.after_preflight")
    if run.base_revision == 0:
        add_chapter(
            conn,
            work_id,
            chapter,
            _title(conn, cand),
            cand.body,
            origin="accept",
            attribution=attribution,
        )
        revision = 1
    else:
        revision = write_revision(
            conn,
            work_id,
            chapter,
            cand.body,
            expected_revision=run.base_revision,
            origin="accept",
            attribution=attribution,
        )
    fault_point("accept.after_prose")
    # The new canonical text is searchable in the same transaction (issue 4: incremental index).
    index_chapter(conn, work_id, chapter)
    fault_point("accept.after_index")
    # spec 001 §6: approved deltas enter the ledger with the prose, checked against it
    approved = approve_candidate_facts(conn, cand, facts.ids, approve_all=facts.every, actor=actor)
    fault_point("accept.after_facts")
    move_run(conn, run.id, "accepted")
    move_candidate(conn, cand.id, "ACCEPTED")
    move_run(conn, run.id, "canonical_committed")
    fault_point("accept.after_candidate")
    job_id = enqueue(
        conn,
        "extract_chapter",
        {"workId": work_id, "chapter": chapter, "revision": revision, "runId": run.id},
        work_id=work_id,
        dedupe_key=f"extract:{work_id}:{chapter}:{revision}",
    )
    fault_point("accept.after_job")
    move_run(conn, run.id, "extraction_queued", reason="已采纳；章后抽取已排队。")
    entered = f"{len(approved)} 条事实增量已入台账，" if approved else ""
    message = f"第 {chapter} 章已成为正式正文（修订版 {revision}），{entered}章后抽取已排队。"
    insert_decision(
        conn,
        command_id,
        cand,
        actor,
        kind="accept",
        outcome="extraction_queued",
        decision_id=decision_id,
        detail={
            "message": message,
            "chapter": chapter,
            "revision": revision,
            "jobId": job_id,
            "approvedFacts": approved,
        },
    )
    fault_point("accept.before_commit")
    return AcceptOutcome(
        "extraction_queued",
        message,
        cand.id,
        chapter,
        revision,
        job_id,
        approved_facts=tuple(approved),
    )


def _title(conn: Connection, cand: CandidateRow) -> str:
    """The chapter title from the fine outline the candidate was written from."""
    payload = snapshot_payload(conn, cand.context_snapshot_id)
    title: str = payload["fineOutline"].get("title", "")
    return title


def _record_failure(
    engine: Engine,
    cand: CandidateRow,
    run: RunRow,
    command_id: str,
    actor: str,
    failed: PreflightFailed,
) -> AcceptOutcome:
    with engine.begin() as conn:
        current = conn.execute(select(runs.c.state).where(runs.c.id == run.id)).scalar()
        if current == "shadow_ready":
            move_run(conn, run.id, "accept_preflight")
        if current in ("shadow_ready", "accept_preflight"):
            move_run(conn, run.id, failed.state, reason=failed.message)
        insert_decision(
            conn,
            command_id,
            cand,
            actor,
            kind="accept",
            outcome=failed.state,
            detail={"message": failed.message, "chapter": cand.chapter},
        )
    return AcceptOutcome(failed.state, failed.message, cand.id, cand.chapter)
