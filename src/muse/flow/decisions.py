"""Author decisions other than accept: 丢弃 (discard) and 修改后合并 (edit and merge).

The one decision path, shared with ``accept.py`` and ``revise.py``: a decision row records who,
when, what and the command id (:func:`insert_decision`); the candidate and its run are read by
:func:`load`; the same command id applied twice has one effect (the second call returns the first
outcome, marked ``repeated``) while a command id already used for another kind of decision or
another candidate is refused (:func:`decision_for_command`); a command on a candidate that is
already decided is refused with its state. Who decided follows one rule (:func:`decision_actor`):
the name given (``--actor``), else the OS user, else ``author``.

* **Discard** (spec 001 §4): canon unchanged, the candidate becomes DISCARDED (from DRAFT,
  CHECKING or PASSED) and stays queryable; a run waiting in ``shadow_ready`` ends ``discarded``.
  A run still working on the candidate (DRAFT/CHECKING) is left to its node: the node finds the
  candidate discarded and ends the run (``edit_recheck`` does; ``production`` inserts and checks
  its candidate in one transaction, so there is no window there).
* **Edit and merge** (spec 000 §9/§11, spec 001 §4): the author's text, against an expected
  canonical revision of the chapter (compare-and-set), becomes a NEW candidate version of the
  same run and is checked again before it can be accepted (``edit_recheck``). The previous
  version becomes ARCHIVED, not DISCARDED: DISCARDED means "the author threw this away" (an
  explicit 丢弃, spec 001 §3), while the previous version was superseded by the author's own
  revision of it — it passed, was not accepted, and is kept as history for the diff (PASSED →
  ARCHIVED is exactly that edge). A stale expected revision changes nothing and loses nothing:
  the decision row keeps the edited text verbatim.
"""

from __future__ import annotations

import getpass
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, Engine, select
from sqlalchemy.exc import IntegrityError

from muse.core.canonical import sha256_hex
from muse.core.clock import utc_now
from muse.core.errors import InvalidInput, NotFound, StaleTransition
from muse.core.ids import new_id
from muse.flow.rows import CandidateRow, DecisionRow, RunRow
from muse.flow.states import RUN_STATE_LABELS
from muse.flow.tables import candidates, decisions, runs
from muse.flow.transitions import move_candidate, move_run, record_event

CANDIDATE_STATE_LABELS = {
    "DRAFT": "草稿",
    "CHECKING": "检测中",
    "PASSED": "已通过检测",
    "REJECTED": "未通过检测",
    "ACCEPTED": "已采纳",
    "ARCHIVED": "已归档（被新版本取代）",
    "DISCARDED": "已丢弃",
}
DISCARDABLE = frozenset({"DRAFT", "CHECKING", "PASSED"})


@dataclass(frozen=True)
class DecisionOutcome:
    kind: str  # discard | edit_merge
    state: str  # DISCARDED | revision_conflict | the edited version's state (PASSED, REJECTED …)
    message: str
    candidate_id: str
    chapter: int
    decision_id: str
    new_candidate_id: str | None = None
    new_version: int | None = None
    run_state: str | None = None
    findings: list[dict[str, Any]] = field(default_factory=list)
    repeated: bool = False

    @property
    def ok(self) -> bool:
        return self.state in ("DISCARDED", "PASSED")


def decision_actor(actor: str | None) -> str:
    """Who made a decision: the name given, else the OS user, else ``author``."""
    if actor:
        return actor
    try:
        return getpass.getuser() or "author"
    except (KeyError, OSError):
        return "author"


def state_label(state: str) -> str:
    return f"{CANDIDATE_STATE_LABELS.get(state, state)}（{state}）"


def discard_candidate(
    engine: Engine,
    candidate_id: str,
    *,
    command_id: str | None = None,
    actor: str | None = None,
) -> DecisionOutcome:
    command_id = command_id or f"discard:{candidate_id}"
    actor = decision_actor(actor)
    previous = previous_outcome(engine, command_id, "discard", candidate_id)
    if previous:
        return previous
    try:
        with engine.begin() as conn:
            return _discard(conn, candidate_id, command_id, actor)
    except IntegrityError:  # the same command id committed by a concurrent call
        previous = previous_outcome(engine, command_id, "discard", candidate_id)
        if previous:
            return previous
        raise
    except StaleTransition:  # another decision moved the candidate first
        with engine.connect() as conn:
            cand, _ = load(conn, candidate_id)
        raise refuse(cand, "丢弃") from None


def _discard(conn: Connection, candidate_id: str, command_id: str, actor: str) -> DecisionOutcome:
    cand, run = load(conn, candidate_id)
    if cand.state not in DISCARDABLE:
        raise refuse(cand, "丢弃")
    move_candidate(
        conn,
        candidate_id,
        "DISCARDED",
        expected_state=cand.state,
        expected_version=cand.version,
        expected_revision=cand.revision,
    )
    run_state = run.state
    if run_state == "shadow_ready":
        move_run(
            conn,
            run.id,
            "discarded",
            reason=f"作者丢弃了候选 {candidate_id}（v{cand.version}）。",
            expected_state="shadow_ready",
            expected_revision=run.revision,
        )
        run_state = "discarded"
    message = (
        f"候选 {candidate_id}（第 {cand.chapter} 章 v{cand.version}）已丢弃；"
        "正式正文未改动，候选仍可在 muse candidates 中查看。"
    )
    decision_id = insert_decision(
        conn,
        command_id,
        cand,
        actor,
        kind="discard",
        outcome="DISCARDED",
        detail={
            "message": message,
            "chapter": cand.chapter,
            "version": cand.version,
            "sha256": cand.sha256,
            "previousState": cand.state,
            "runState": run_state,
        },
    )
    record_event(conn, run.id, run.attempt, "author_decision", "ok", 0, {"decisionId": decision_id})
    return DecisionOutcome(
        kind="discard",
        state="DISCARDED",
        message=message,
        candidate_id=candidate_id,
        chapter=cand.chapter,
        decision_id=decision_id,
        run_state=run_state,
    )


def load(conn: Connection, candidate_id: str, *, lock: bool = True) -> tuple[CandidateRow, RunRow]:
    """The candidate and its run, locked in THE lock order of every decision (accept, discard,
    edit and merge, revise) and of the production nodes (``deadlines.guard_result``): the run
    row first, then the candidate row (``SELECT … FOR UPDATE`` on PostgreSQL; SQLite's
    ``BEGIN IMMEDIATE`` serialises writers). Two decisions on one candidate therefore queue
    instead of deadlocking, and the second reads what the first committed. ``lock=False`` is a
    plain read (a precheck before the decision's transaction, which must not wait on another
    decision's locks)."""
    run_id = conn.execute(
        select(candidates.c.run_id).where(candidates.c.id == candidate_id)
    ).scalar()
    if run_id is None:
        raise NotFound(f"候选 {candidate_id} 不存在。", hint="用 muse candidates 查看候选。")
    run_query = select(runs).where(runs.c.id == run_id)
    cand_query = select(candidates).where(candidates.c.id == candidate_id)
    if lock:
        run_query, cand_query = run_query.with_for_update(), cand_query.with_for_update()
    run = RunRow.from_row(conn.execute(run_query).mappings().one())
    cand = CandidateRow.from_row(conn.execute(cand_query).mappings().one())
    return cand, run


def refuse(cand: CandidateRow, what: str) -> InvalidInput:
    """The error for a command on a candidate whose state does not allow it."""
    newer = ""
    if cand.state == "ARCHIVED":
        newer = "它已被作者修改后的新版本取代，请对最新版本操作。"
    return InvalidInput(
        f"候选 {cand.id}（v{cand.version}）当前状态是{state_label(cand.state)}，"
        f"不能{what}。{newer}",
        hint="用 muse candidates 查看各候选的状态。",
    )


def insert_decision(
    conn: Connection,
    command_id: str,
    cand: CandidateRow,
    actor: str,
    *,
    kind: str,
    outcome: str,
    detail: dict[str, Any],
    decision_id: str | None = None,
) -> str:
    """Store one decision row (``decision_id``: when the caller needed the id beforehand)."""
    decision_id = decision_id or new_id("dec")
    conn.execute(
        decisions.insert().values(
            id=decision_id,
            command_id=command_id,
            candidate_id=cand.id,
            kind=kind,
            actor=actor,
            outcome=outcome,
            detail=detail,
            created_at=utc_now(),
        )
    )
    return decision_id


def previous_outcome(
    engine: Engine, command_id: str, kind: str, candidate_id: str
) -> DecisionOutcome | None:
    """The outcome of ``command_id`` if it was already applied (marked ``repeated``)."""
    with engine.connect() as conn:
        row = decision_for_command(conn, command_id, kind, candidate_id)
        if row is None:
            return None
        detail = row.detail
        new_id_ = detail.get("newCandidateId")
        state = row.outcome
        run_state = detail.get("runState")
        if new_id_:  # an edit: report where its new version stands now
            state, run_state = current_states(conn, new_id_)
    return DecisionOutcome(
        kind=kind,
        state=state,
        message=detail.get("message", ""),
        candidate_id=candidate_id,
        chapter=detail.get("chapter", 0),
        decision_id=row.id,
        new_candidate_id=new_id_,
        new_version=detail.get("newVersion"),
        run_state=run_state,
        repeated=True,
    )


def decision_for_command(
    conn: Connection, command_id: str, kind: str, candidate_id: str
) -> DecisionRow | None:
    """The decision row already stored under ``command_id``; refused if it was another decision."""
    found = (
        conn.execute(select(decisions).where(decisions.c.command_id == command_id))
        .mappings()
        .first()
    )
    row = DecisionRow.from_row(found) if found is not None else None
    if row is not None and (row.kind != kind or row.candidate_id != candidate_id):
        raise InvalidInput(
            f"命令 ID {command_id} 已用于另一个决定（{row.kind}，候选 {row.candidate_id}）。",
            hint="每个决定请使用新的 --command-id。",
        )
    return row


def current_states(conn: Connection, candidate_id: str) -> tuple[str, str]:
    row = conn.execute(
        select(candidates.c.state, runs.c.state.label("run_state"))
        .join(runs, runs.c.id == candidates.c.run_id)
        .where(candidates.c.id == candidate_id)
    ).one()
    return row.state, row.run_state


def edit_command_id(candidate_id: str, body: str, expected_revision: int | None) -> str:
    """The default idempotency key of an edit: the same text on the same version and revision."""
    rev = "base" if expected_revision is None else str(expected_revision)
    return f"edit:{candidate_id}:{rev}:{sha256_hex(body)[:16]}"


def run_label(state: str | None) -> str:
    return RUN_STATE_LABELS.get(state or "", state or "")
