"""Evaluation rows are invisible to production reads by default, at one engine-level point
(muse.flow.zones; spec 001 §7), and ``run_type`` never changes after insert."""

from __future__ import annotations

import pytest
from sqlalchemy import exists, func, select, text, union, union_all, update
from sqlalchemy.exc import IntegrityError

from muse.flow.queries import list_candidates, list_runs
from muse.flow.tables import candidates, runs
from muse.flow.zones import zone

from .test_state_machine import candidate_in_state, new_work


@pytest.fixture
def mixed(engine):
    """One production and one evaluation run of the same work, each with a PASSED candidate."""
    work_id = new_work(engine)
    seen = engine.execution_options(muse_zone="all")
    prod = candidate_in_state(seen, work_id, "PASSED")
    evaluation = candidate_in_state(seen, work_id, "PASSED", run_type="evaluation")
    return work_id, prod, evaluation


def test_production_queries_never_see_evaluation_rows(engine, mixed):
    work_id, (prod_run, prod_cand), (eval_run, eval_cand) = mixed
    with engine.connect() as conn:
        assert [r["id"] for r in list_runs(conn, work_id)] == [prod_run]
        assert [c["id"] for c in list_candidates(conn, work_id)] == [prod_cand]


@pytest.mark.parametrize(
    "build",
    [
        lambda: select(func.count()).select_from(runs),
        lambda: select(func.count()).select_from(candidates),
        lambda: select(candidates.c.id).join(runs, runs.c.id == candidates.c.run_id),
        lambda: select(func.count()).select_from(
            select(candidates.c.id).where(candidates.c.state == "PASSED").subquery()
        ),
        lambda: select(func.count()).where(exists().where(runs.c.run_type == "evaluation")),
        lambda: union_all(select(runs.c.id), select(candidates.c.run_id)),
        lambda: select(func.count()).select_from(
            union(select(runs.c.id), select(candidates.c.run_id)).subquery()
        ),
    ],
    ids=["runs", "candidates", "join", "subquery", "exists", "union", "union-subquery"],
)
def test_every_shape_of_select_is_filtered(engine, mixed, build):
    with engine.connect() as conn:
        hidden = conn.execute(build()).all()
        visible = zone(conn).execute(build()).all()
    assert hidden != visible  # the evaluation rows make the difference


def test_evaluation_zone_sees_everything(engine, mixed):
    work_id, _, (eval_run, eval_cand) = mixed
    with engine.connect() as conn:
        ids = {r["id"] for r in list_runs(zone(conn), work_id)}
    assert eval_run in ids


def test_writes_are_not_filtered(engine, mixed):
    """A compare-and-set update on an evaluation row still changes exactly one row."""
    _, _, (eval_run, _) = mixed
    with engine.begin() as conn:
        result = conn.execute(update(runs).where(runs.c.id == eval_run).values(reason="评测备注"))
    assert result.rowcount == 1


@pytest.mark.parametrize("new_type", ["production", "evaluation"])
def test_run_type_cannot_change_after_insert(engine, mixed, new_type):
    _, (prod_run, _), (eval_run, _) = mixed
    target = eval_run if new_type == "production" else prod_run
    with pytest.raises(IntegrityError, match="identity"), engine.begin() as conn:
        conn.execute(
            text("UPDATE runs SET run_type = :t WHERE id = :id"), {"t": new_type, "id": target}
        )


def test_the_cached_decision_follows_the_statements_shape_not_its_values(engine, mixed):
    """The listener keeps, per compiled-cache key, whether a SELECT reads runs or candidates.
    Same shape with other values, a shape first seen inside the zone, and a shape that differs
    only in its table must each still be filtered exactly as without the cache."""
    from muse.flow import zones as zone_module
    from muse.works.tables import chapters

    work_id, (prod_run, _), (eval_run, _) = mixed
    zone_module._by_key.clear()

    def ids_of(conn, run_type):
        return conn.execute(select(runs.c.id).where(runs.c.run_type == run_type)).scalars().all()

    with engine.connect() as conn:  # zone() marks the connection itself: one of its own
        assert ids_of(zone(conn), "evaluation") == [eval_run]  # first seen inside the zone
    with engine.connect() as conn:
        assert ids_of(conn, "evaluation") == []  # same key, production: still filtered
        assert ids_of(conn, "production") == [prod_run]  # other value, same key
        assert ids_of(conn, "evaluation") == []
        # a statement of another table with the same shape is not mistaken for it, and back
        conn.execute(select(func.count()).select_from(chapters)).scalar_one()
        assert conn.execute(select(func.count()).select_from(runs)).scalar_one() == 1
        assert zone(conn).execute(select(func.count()).select_from(runs)).scalar_one() == 2
    assert len(zone_module._by_key) >= 3
    zone_module._by_key.clear()
    with engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(runs)).scalar_one() == 1
