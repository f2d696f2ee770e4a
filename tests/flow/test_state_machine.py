"""The run and candidate state machines, enforced by the code AND by the database (issue #6).

Table-driven: every allowed transition succeeds through ``move_run`` / ``move_candidate``; a
sample of forbidden ones is refused by the code and, when the code is bypassed with a raw
``UPDATE``, by the database triggers. The helpers at the top are shared with the race and
deadline tests.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import pytest
from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError

from muse.core.clock import utc_now
from muse.core.errors import StaleTransition
from muse.core.ids import new_id
from muse.flow import states, triggers
from muse.flow.tables import candidates, runs
from muse.flow.transitions import move_candidate, move_run
from muse.works.catalog import create_work

# -- helpers (also used by test_races.py and test_deadlines.py) ------------------------------------


def new_work(engine) -> int:
    with engine.begin() as conn:
        return create_work(conn, f"状态机之书{new_id('w')}")


def insert_run(
    conn, work_id: int, *, run_type: str = "production", mode: str = "production", **over
) -> str:
    now = utc_now()
    values = {
        "id": new_id("run"),
        "work_id": work_id,
        "target_chapter": 1,
        "run_type": run_type,
        "mode": mode,
        "quality_policy_version": "writer-production-v1",
        "state": "validating_context",
        "attempt": 1,
        "revision": 0,
        "provider": "offline",
        "model": "offline-1",
        "as_of": 0,
        "base_revision": 0,
        "created_at": now,
        "updated_at": now,
        **over,
    }
    conn.execute(runs.insert().values(**values))
    return values["id"]


def insert_candidate(conn, run_id: str, work_id: int, *, eligible: bool = True, **over) -> str:
    now = utc_now()
    values = {
        "id": new_id("cand"),
        "run_id": run_id,
        "work_id": work_id,
        "chapter": 1,
        "version": 1,
        "state": "DRAFT",
        "revision": 0,
        "acceptance_eligible": eligible,
        "body": "正文。",
        "sha256": "0" * 64,
        "han_count": 2,
        "context_snapshot_id": "ctx_test",
        "writer_output": {},
        "report": None,
        "created_at": now,
        "updated_at": now,
        **over,
    }
    conn.execute(candidates.insert().values(**values))
    return values["id"]


def _paths(table: dict[str, frozenset[str]], start: str) -> dict[str, list[str]]:
    """Shortest path of moves from ``start`` to every reachable state (deterministic order)."""
    paths, queue = {start: []}, deque([start])
    while queue:
        state = queue.popleft()
        for target in sorted(table.get(state, ())):
            if target not in paths:
                paths[target] = [*paths[state], target]
                queue.append(target)
    return paths


RUN_PATHS = _paths(states.RUN_TRANSITIONS, "validating_context")
CANDIDATE_PATHS = _paths(states.CANDIDATE_TRANSITIONS, "DRAFT")


def run_in_state(engine, work_id: int, state: str, **over) -> str:
    """A new run moved (through move_run) along the shortest path to ``state``."""
    with engine.begin() as conn:
        run_id = insert_run(conn, work_id, **over)
        for step in RUN_PATHS[state]:
            move_run(conn, run_id, step)
    return run_id


def candidate_in_state(engine, work_id: int, state: str, **run_over) -> tuple[str, str]:
    run_id = run_in_state(engine, work_id, "detecting", **run_over)
    with engine.begin() as conn:
        eligible = run_over.get("run_type", "production") == "production"
        cand_id = insert_candidate(conn, run_id, work_id, eligible=eligible)
        for step in CANDIDATE_PATHS[state]:
            move_candidate(conn, cand_id, step)
    return run_id, cand_id


def row(engine, table, row_id: str):
    with engine.connect() as conn:
        return conn.execute(select(table).where(table.c.id == row_id)).mappings().one()


def raw_update(engine, table, row_id: str, **values) -> None:
    with engine.begin() as conn:
        conn.execute(update(table).where(table.c.id == row_id).values(**values))


# -- the table itself --------------------------------------------------------------------------------


def test_the_table_is_closed_and_consistent():
    for table, terminal in (
        (states.RUN_TRANSITIONS, states.RUN_TERMINAL),
        (states.CANDIDATE_TRANSITIONS, states.CANDIDATE_TERMINAL),
    ):
        assert not terminal & set(table), "a terminal state has outgoing moves"
        for source, targets in table.items():
            assert source not in targets
            for target in targets:
                assert target in table or target in terminal, f"{source}>{target} leads nowhere"
    assert set(RUN_PATHS) == states.run_states(), "every run state is reachable from the start"
    assert set(CANDIDATE_PATHS) == states.candidate_states()
    assert set(states.RUN_STATE_LABELS) == states.run_states()


def test_every_working_node_can_time_out_into_a_terminal_state():
    for node in states.WORKING_NODES:
        timeout = states.timeout_state(node)
        assert timeout == f"{node}_timeout"
        assert states.run_move_allowed(node, timeout)
        assert timeout in states.RUN_TERMINAL
    assert states.timeout_state("shadow_ready") is None  # waits for the author, no deadline


def test_installed_triggers_match_the_table(engine, monkeypatch):
    with engine.connect() as conn:
        assert triggers.installed_matches(conn)
    # A table edited without a migration that re-installs the triggers is noticed.
    changed = {
        **states.RUN_TRANSITIONS,
        "writing": states.RUN_TRANSITIONS["writing"] | {"shadow_ready"},
    }
    monkeypatch.setattr(states, "RUN_TRANSITIONS", changed)
    with engine.connect() as conn:
        assert not triggers.installed_matches(conn)


# -- every allowed move succeeds ---------------------------------------------------------------------


@dataclass(frozen=True)
class Move:
    source: str
    target: str


RUN_MOVES = [Move(s, t) for s, targets in states.RUN_TRANSITIONS.items() for t in sorted(targets)]
CANDIDATE_MOVES = [
    Move(s, t) for s, targets in states.CANDIDATE_TRANSITIONS.items() for t in sorted(targets)
]


def test_every_allowed_run_move_succeeds(engine):
    work_id = new_work(engine)
    for move in RUN_MOVES:
        run_id = run_in_state(engine, work_id, move.source)
        with engine.begin() as conn:
            move_run(conn, run_id, move.target, reason="测试")
        got = row(engine, runs, run_id)
        assert (got["state"], got["revision"]) == (move.target, len(RUN_PATHS[move.source]) + 1), (
            move
        )


def test_every_allowed_candidate_move_succeeds(engine):
    work_id = new_work(engine)
    for move in CANDIDATE_MOVES:
        _, cand_id = candidate_in_state(engine, work_id, move.source)
        with engine.begin() as conn:
            move_candidate(conn, cand_id, move.target)
        got = row(engine, candidates, cand_id)
        assert (got["state"], got["revision"]) == (
            move.target,
            len(CANDIDATE_PATHS[move.source]) + 1,
        ), move


# -- forbidden moves: refused by the code and by the database ---------------------------------------

FORBIDDEN_RUN_MOVES = [
    Move("validating_context", "writing"),  # skips retrieving
    Move("retrieving", "shadow_ready"),
    Move("writing", "shadow_ready"),  # skips the detector
    Move("detecting", "accepted"),
    Move("shadow_ready", "accepted"),  # skips accept preflight
    Move("shadow_ready", "shadow_ready_timeout"),  # not a state at all
    Move("accept_preflight", "canonical_committed"),
    Move("edited_candidate", "shadow_ready"),  # an edit is re-detected first
    Move("writing", "detecting_timeout"),  # a node times out into its own timeout only
    *(Move(t, "retrieving") for t in sorted(states.RUN_TERMINAL)),  # terminal never moves
    Move("failed", "validating_context"),
    Move("writing_timeout", "detecting"),  # a late result cannot revive a timed-out run
    Move("extraction_queued", "accepted"),
]
FORBIDDEN_CANDIDATE_MOVES = [
    Move("DRAFT", "PASSED"),  # unchecked
    Move("DRAFT", "ACCEPTED"),
    Move("CHECKING", "ACCEPTED"),
    Move("CHECKING", "ARCHIVED"),
    Move("PASSED", "REJECTED"),
    Move("PASSED", "CHECKING"),
    *(Move(t, "PASSED") for t in sorted(states.CANDIDATE_TERMINAL)),
    Move("REJECTED", "DRAFT"),
    Move("ACCEPTED", "DISCARDED"),
]


def test_forbidden_run_moves_are_refused_by_code_and_database(engine):
    work_id = new_work(engine)
    for move in FORBIDDEN_RUN_MOVES:
        run_id = run_in_state(engine, work_id, move.source)
        with pytest.raises(StaleTransition), engine.begin() as conn:
            move_run(conn, run_id, move.target)
        revision = row(engine, runs, run_id)["revision"]
        with pytest.raises(IntegrityError, match="muse: runs: "):
            raw_update(engine, runs, run_id, state=move.target, revision=revision + 1)
        assert row(engine, runs, run_id)["state"] == move.source, move


def test_forbidden_candidate_moves_are_refused_by_code_and_database(engine):
    work_id = new_work(engine)
    for move in FORBIDDEN_CANDIDATE_MOVES:
        _, cand_id = candidate_in_state(engine, work_id, move.source)
        with pytest.raises(StaleTransition), engine.begin() as conn:
            move_candidate(conn, cand_id, move.target)
        revision = row(engine, candidates, cand_id)["revision"]
        with pytest.raises(IntegrityError, match="muse: candidates: "):
            raw_update(engine, candidates, cand_id, state=move.target, revision=revision + 1)
        assert row(engine, candidates, cand_id)["state"] == move.source, move


def test_terminal_refusal_names_the_rule(engine):
    run_id = run_in_state(engine, new_work(engine), "failed")
    with pytest.raises(IntegrityError, match="terminal state never moves"):
        raw_update(engine, runs, run_id, state="retrieving", revision=3)


# -- identity, revision, attempt -------------------------------------------------------------------

RUN_IDENTITY_CHANGES = {
    "id": "run_other",
    "target_chapter": 99,
    "run_type": "evaluation",
    "mode": "diagnostic_only",
    "quality_policy_version": "writer-eval-v1",
}
CANDIDATE_IDENTITY_CHANGES = {
    "run_id": "other",
    "chapter": 99,
    "version": 2,
    "sha256": "f" * 64,
    "body": "偷换的正文。",
    "acceptance_eligible": False,
}


def test_identity_columns_are_immutable(engine):
    work_id = new_work(engine)
    other_work = new_work(engine)
    run_id, cand_id = candidate_in_state(engine, work_id, "CHECKING")
    for column, value in {**RUN_IDENTITY_CHANGES, "work_id": other_work}.items():
        with pytest.raises(IntegrityError, match="identity columns are immutable"):
            raw_update(engine, runs, run_id, **{column: value})
    for column, value in {**CANDIDATE_IDENTITY_CHANGES, "work_id": other_work}.items():
        with pytest.raises(IntegrityError, match="identity columns are immutable"):
            raw_update(engine, candidates, cand_id, **{column: value})
    assert row(engine, candidates, cand_id)["body"] == "正文。"


@pytest.mark.parametrize("step", [0, 2, -1])
def test_revision_must_step_by_exactly_one(engine, step):
    run_id = run_in_state(engine, new_work(engine), "retrieving")
    with pytest.raises(IntegrityError, match="revision must increase by exactly 1"):
        raw_update(engine, runs, run_id, state="writing", revision=1 + step)


def test_revision_cannot_change_without_a_state_change(engine):
    work_id = new_work(engine)
    run_id, cand_id = candidate_in_state(engine, work_id, "CHECKING")
    with pytest.raises(IntegrityError, match="revision"):
        raw_update(engine, runs, run_id, revision=99)
    with pytest.raises(IntegrityError, match="revision"):
        raw_update(engine, candidates, cand_id, revision=99)
    raw_update(engine, runs, run_id, reason="非状态字段可以改")  # other columns stay writable
    assert row(engine, runs, run_id)["reason"] == "非状态字段可以改"


def test_attempt_never_decreases(engine):
    run_id = run_in_state(engine, new_work(engine), "detecting")
    with engine.begin() as conn:
        move_run(conn, run_id, "rewriting", attempt=2)
    with pytest.raises(IntegrityError, match="attempt never decreases"):
        raw_update(engine, runs, run_id, attempt=1)


def test_rows_are_inserted_in_an_initial_state(engine):
    work_id = new_work(engine)
    with pytest.raises(IntegrityError, match="initial state"), engine.begin() as conn:
        insert_run(conn, work_id, state="shadow_ready")
    with pytest.raises(IntegrityError, match="initial state"), engine.begin() as conn:
        insert_run(conn, work_id, revision=3)
    run_id = run_in_state(engine, work_id, "detecting")
    with pytest.raises(IntegrityError, match="initial state"), engine.begin() as conn:
        insert_candidate(conn, run_id, work_id, state="PASSED")


# -- an evaluation candidate can never be accepted --------------------------------------------------


@pytest.fixture
def zone_engine(engine):
    """Evaluation rows are hidden from production reads (muse.flow.zones); these tests read them."""
    return engine.execution_options(muse_zone="all")


def test_evaluation_candidate_cannot_be_eligible(zone_engine):
    engine = zone_engine
    work_id = new_work(engine)
    run_id = run_in_state(engine, work_id, "detecting", run_type="evaluation")
    with pytest.raises(IntegrityError, match="acceptance eligible"), engine.begin() as conn:
        insert_candidate(conn, run_id, work_id, eligible=True)
    diagnostic = run_in_state(engine, work_id, "detecting", mode="diagnostic_only")
    with pytest.raises(IntegrityError, match="acceptance eligible"), engine.begin() as conn:
        insert_candidate(conn, diagnostic, work_id, eligible=True)


def test_evaluation_candidate_cannot_be_accepted(zone_engine):
    engine = zone_engine
    work_id = new_work(engine)
    _, cand_id = candidate_in_state(engine, work_id, "PASSED", run_type="evaluation")
    assert row(engine, candidates, cand_id)["acceptance_eligible"] is False
    # The code's table allows PASSED → ACCEPTED; the database refuses it for this candidate.
    with pytest.raises(StaleTransition, match="数据库拒绝"), engine.begin() as conn:
        move_candidate(conn, cand_id, "ACCEPTED")
    with pytest.raises(IntegrityError, match="can be ACCEPTED"):
        raw_update(engine, candidates, cand_id, state="ACCEPTED", revision=3)
    assert row(engine, candidates, cand_id)["state"] == "PASSED"
    with engine.begin() as conn:  # archiving it is fine
        move_candidate(conn, cand_id, "ARCHIVED")


def test_production_candidate_can_be_accepted(engine):
    _, cand_id = candidate_in_state(engine, new_work(engine), "PASSED")
    with engine.begin() as conn:
        move_candidate(conn, cand_id, "ACCEPTED")
    assert row(engine, candidates, cand_id)["state"] == "ACCEPTED"


# -- compare-and-set expectations -------------------------------------------------------------------


def test_a_move_from_a_stale_view_is_refused(engine):
    work_id = new_work(engine)
    run_id = run_in_state(engine, work_id, "detecting")
    with engine.begin() as conn:
        move_run(conn, run_id, "rewriting", attempt=2)
        move_run(conn, run_id, "detecting")
    # A result of attempt 1 arrives: same state name, older attempt — stale.
    with pytest.raises(StaleTransition, match="attempt"), engine.begin() as conn:
        move_run(conn, run_id, "shadow_ready", expected_state="detecting", expected_attempt=1)
    _, cand_id = candidate_in_state(engine, work_id, "CHECKING")
    with pytest.raises(StaleTransition, match="version"), engine.begin() as conn:
        move_candidate(conn, cand_id, "PASSED", expected_version=2)
    assert row(engine, runs, run_id)["state"] == "detecting"
    assert row(engine, candidates, cand_id)["state"] == "CHECKING"


def test_a_move_clears_the_node_deadline(engine):
    run_id = run_in_state(engine, new_work(engine), "writing")
    raw_update(engine, runs, run_id, deadline_at=utc_now(), deadline_node="writing")
    with engine.begin() as conn:
        move_run(conn, run_id, "detecting")
    got = row(engine, runs, run_id)
    assert got["deadline_at"] is None and got["deadline_node"] is None
