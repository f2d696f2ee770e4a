"""writer-eval-v1: compare-and-set moves and the same table enforced by database triggers."""

from __future__ import annotations

import pytest
from sqlalchemy import select, text
from sqlalchemy.exc import DBAPIError

from muse.core.errors import StaleTransition
from muse.evaluation.preregistration import parse_set, preregister
from muse.evaluation.sample_state import eval_row, move_eval, zone_engine
from muse.evaluation.states import EVAL_TERMINAL, EVAL_TRANSITIONS
from muse.evaluation.tables import eval_runs

from .conftest import BOOKS
from .harness import set_yaml

PATHS = {
    "preregistered": [],
    "generating": ["generating"],
    "detecting": ["generating", "detecting"],
    "judging_pair": ["generating", "detecting", "judging_pair"],
    "adjudicating": ["generating", "detecting", "judging_pair", "adjudicating"],
}
ALL_STATES = sorted(set(EVAL_TRANSITIONS) | EVAL_TERMINAL)


@pytest.fixture
def fresh(engine, books):
    """A function giving a new evaluation run id in ``preregistered``."""
    counter = iter(range(1000))

    def make() -> str:
        version = f"sm-{next(counter)}"
        set_id = preregister(engine, parse_set(set_yaml(version, {BOOKS[0]: 1}))).set_id
        with zone_engine(engine).connect() as conn:
            return conn.execute(
                select(eval_runs.c.id).where(eval_runs.c.set_id == set_id)
            ).scalar_one()

    return make


def _walk(engine, run_id: str, path: list[str]) -> None:
    with engine.begin() as conn:
        state = "preregistered"
        for step in path:
            move_eval(conn, run_id, step, expected_state=state)
            state = step


CASES = [(old, new) for old in PATHS for new in ALL_STATES]


@pytest.mark.parametrize(("old", "new"), CASES, ids=[f"{o}>{n}" for o, n in CASES])
def test_every_move_follows_the_table(engine, fresh, old, new):
    run_id = fresh()
    _walk(engine, run_id, PATHS[old])
    allowed = new in EVAL_TRANSITIONS[old]
    if allowed:
        with engine.begin() as conn:
            move_eval(conn, run_id, new, expected_state=old)
        with engine.connect() as conn:
            assert eval_row(conn, run_id)["state"] == new
        return
    with pytest.raises(StaleTransition), engine.begin() as conn:
        move_eval(conn, run_id, new, expected_state=old)
    # the database refuses the same move when code is skipped
    with pytest.raises(DBAPIError, match="muse: eval_runs"), engine.begin() as conn:
        conn.execute(
            text("UPDATE eval_runs SET state = :s, revision = revision + 1 WHERE id = :id"),
            {"s": new, "id": run_id},
        )


def test_a_stale_expectation_is_refused(engine, fresh):
    run_id = fresh()
    _walk(engine, run_id, ["generating"])
    with pytest.raises(StaleTransition, match="预期 preregistered"), engine.begin() as conn:
        move_eval(conn, run_id, "generating", expected_state="preregistered")


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        ("UPDATE eval_runs SET state = 'generating' WHERE id = :id", "revision"),
        ("UPDATE eval_runs SET revision = revision + 1 WHERE id = :id", "revision"),
        ("UPDATE eval_runs SET target_chapter = 7 WHERE id = :id", "identity"),
        ("UPDATE eval_runs SET quality_policy_version = 'x' WHERE id = :id", "identity"),
    ],
)
def test_triggers_refuse_raw_writes(engine, fresh, sql, message):
    run_id = fresh()
    with pytest.raises(DBAPIError, match=message), engine.begin() as conn:
        conn.execute(text(sql), {"id": run_id})


def test_terminal_states_never_move(engine, fresh):
    run_id = fresh()
    _walk(engine, run_id, ["failed_freeze"])
    with pytest.raises(DBAPIError, match="terminal"), engine.begin() as conn:
        conn.execute(
            text(
                "UPDATE eval_runs SET state = 'generating', revision = revision + 1 WHERE id = :id"
            ),
            {"id": run_id},
        )


def test_insert_must_be_preregistered(engine, fresh):
    run_id = fresh()
    with pytest.raises(DBAPIError, match="preregistered"), engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO eval_runs (id, set_id, sample_key, work_id, target_chapter, as_of,"
                " scene_class, quality_policy_version, labels, state, revision, created_at,"
                " updated_at) SELECT 'evr_x', set_id, 'other', work_id, 6, 5, 'battle',"
                " 'writer-eval-v1', labels, 'stable_report', 0, created_at, updated_at"
                " FROM eval_runs WHERE id = :id"
            ),
            {"id": run_id},
        )
