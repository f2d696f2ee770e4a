"""改：… — the author asks for another round (spec 001 §2.3, §4).

A revision is a decision on a candidate that starts a NEW production run for the same chapter;
nothing becomes canon. The new round's input keeps the fixed order of spec 001 §2.3: items 1–6
(facts of the work and as_of, the confirmed fine outline, the previous canonical chapters, style
and bound patterns, prevention constraints, method checks) are rebuilt exactly as in round 1,
and item 7 carries only the author's latest words, verbatim (``context.round_order``). The round
number is the revised candidate's round + 1 (read from its frozen context).

The revised candidate is left as it was: a PASSED candidate stays in the shadow view, so the
author can still compare it with the new round's candidate and accept either (the first accept
wins; the other then ends ``revision_conflict`` at its preflight). 丢弃 remains its own command.

The decision row (kind ``revise``) is written before the new run starts, under its command id:
the same command id twice starts one run (the second call returns the first's outcome); the row
is completed with the new run's id and final state when the run ends.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Engine, select, update
from sqlalchemy.exc import IntegrityError

from muse.agents import recorded_choice, resolve_model
from muse.context import snapshot_row
from muse.core.canonical import sha256_hex
from muse.core.errors import InvalidInput, MuseError
from muse.core.text import normalize_text
from muse.flow.decisions import (
    decision_actor,
    decision_for_command,
    insert_decision,
    load,
    refuse,
)
from muse.flow.production import Progress, RunSummary, write_chapter
from muse.flow.run_steps import Observer
from muse.flow.tables import decisions

REVISABLE = frozenset({"PASSED", "REJECTED", "DISCARDED"})


@dataclass(frozen=True)
class ReviseOutcome:
    decision_id: str
    candidate_id: str
    chapter: int
    round_number: int
    words: str
    summary: RunSummary | None  # None when the command was already applied
    new_run_id: str | None
    state: str  # the new run's final state ("started" if a repeated command's run never ended)
    repeated: bool = False


def revise_candidate(
    engine: Engine,
    candidate_id: str,
    words: str,
    *,
    provider: str | None = None,
    model: str | None = None,
    command_id: str | None = None,
    actor: str | None = None,
    max_rewrites: int | None = None,
    progress: Progress | None = None,
    observer: Observer | None = None,
) -> ReviseOutcome:
    text = normalize_text(words).strip()
    if not text:
        raise InvalidInput(
            "改写指令不能为空。", hint='例如：muse revise 候选ID "改：把结尾的钩子改成悬念"'
        )
    command_id = command_id or f"revise:{candidate_id}:{sha256_hex(text)[:16]}"
    actor = decision_actor(actor)
    previous = _previous(engine, command_id, candidate_id)
    if previous is not None:
        return previous
    try:
        with engine.begin() as conn:
            cand, run = load(conn, candidate_id)
            if cand.state not in REVISABLE:
                raise refuse(cand, "改写")
            round_number = _round_of(conn, cand.context_snapshot_id) + 1
            decision_id = insert_decision(
                conn,
                command_id,
                cand,
                actor,
                kind="revise",
                outcome="started",
                detail={
                    "words": text,
                    "round": round_number,
                    "chapter": cand.chapter,
                    "version": cand.version,
                    "message": f"第 {cand.chapter} 章第 {round_number} 轮：{text}",
                },
            )
    except IntegrityError:  # the same command id committed by a concurrent call
        previous = _previous(engine, command_id, candidate_id)
        if previous is not None:
            return previous
        raise
    try:
        # a flag wins, then the work's choice for the writer, then the original run's model
        choice = resolve_model(
            engine, cand.work_id, "writer", provider, model, (run.provider, run.model)
        )
        with recorded_choice(choice):
            summary = write_chapter(
                engine,
                cand.work_id,
                cand.chapter,
                provider=choice.provider,
                model=choice.model,
                progress=progress,
                observer=observer,
                max_rewrites=max_rewrites,
                author_words=text,
                round_number=round_number,
            )
    except MuseError as err:  # refused before any run existed (e.g. the chapter is now canon)
        _complete(engine, decision_id, "refused", {"error": str(err)})
        raise
    _complete(
        engine,
        decision_id,
        summary.state,
        {
            "newRunId": summary.run_id,
            "newCandidateId": summary.candidate_id,
            "runState": summary.state,
        },
    )
    return ReviseOutcome(
        decision_id,
        candidate_id,
        cand.chapter,
        round_number,
        text,
        summary,
        summary.run_id,
        summary.state,
    )


def _complete(engine: Engine, decision_id: str, outcome: str, extra: dict[str, Any]) -> None:
    with engine.begin() as conn:
        detail = {**_detail(conn, decision_id), **extra}
        conn.execute(
            update(decisions)
            .where(decisions.c.id == decision_id)
            .values(outcome=outcome, detail=detail)
        )


def _round_of(conn: Connection, snapshot_id: str | None) -> int:
    """The round the candidate was written in (1 when its context has no item 7)."""
    if snapshot_id is None:
        return 1
    row = snapshot_row(conn, snapshot_id)
    payload = row.payload if row is not None else None
    instruction = (payload or {}).get("authorInstruction") or {}
    return int(instruction.get("round") or 1)


def _detail(conn: Connection, decision_id: str) -> dict[str, Any]:
    return dict(
        conn.execute(select(decisions.c.detail).where(decisions.c.id == decision_id)).scalar() or {}
    )


def _previous(engine: Engine, command_id: str, candidate_id: str) -> ReviseOutcome | None:
    with engine.connect() as conn:
        row = decision_for_command(conn, command_id, "revise", candidate_id)
    if row is None:
        return None
    d = row.detail
    return ReviseOutcome(
        row.id,
        candidate_id,
        d.get("chapter", 0),
        d.get("round", 0),
        d.get("words", ""),
        None,
        d.get("newRunId"),
        row.outcome,
        repeated=True,
    )
