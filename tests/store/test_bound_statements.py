"""Statements whose values are bound parameters store what the inline form stored.

A write's inserts (run events, runs, candidates, context snapshots, receipts) pass their values
as execute parameters and compare-and-set reuses one UPDATE per shape, instead of building a
statement with the values inline on every call. Both forms must write the same bytes: for every
column type of those tables (JSON, UTC datetimes, decimals, booleans, long Chinese text,
NULLs) the row each form stores is read back raw and compared, on the backend under test.
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest
from sqlalchemy import JSON, Boolean, Column, DateTime, Integer, MetaData, Numeric, Table, text
from sqlalchemy.types import TypeDecorator

from muse.agents.tables import model_calls
from muse.context.tables import context_snapshots
from muse.core.errors import StaleTransition
from muse.flow.tables import candidates, run_events, runs
from muse.store import cas
from muse.store.cas import compare_and_set
from muse.works.catalog import create_work
from muse.works.tables import works

from ..flow.test_state_machine import insert_run, new_work, row

TABLES = [run_events, runs, candidates, context_snapshots, model_calls]
WHEN = datetime(2026, 3, 4, 5, 6, 7, 891011, tzinfo=UTC)


def _value(column: Column[Any], filled: bool) -> Any:
    kind = column.type.impl if isinstance(column.type, TypeDecorator) else column.type
    if not filled and column.nullable:
        return None
    if isinstance(kind, JSON):
        return {"名": "林远", "列": [1, 2.5, None, True, "\u3000\u3000正文"], "空": {}}
    if isinstance(kind, DateTime):
        return WHEN
    if isinstance(kind, Numeric):
        return Decimal("0.001234")
    if isinstance(kind, Boolean):
        return True
    if isinstance(kind, Integer):
        return 2001
    return ("林远与苏晴在山门前争执。\n" * 40)[: getattr(kind, "length", None) or 480]


@pytest.mark.parametrize("table", TABLES, ids=lambda t: t.name)
@pytest.mark.parametrize("filled", [True, False], ids=["filled", "nulls"])
def test_parameters_store_what_inline_values_stored(engine, table, filled):
    scratch = Table(
        f"scratch_{table.name}",
        MetaData(),
        Column("scratch_key", Integer, primary_key=True),
        *(Column(c.name, c.type, nullable=c.nullable) for c in table.columns),
        prefixes=["TEMPORARY"],
    )
    values = {c.name: _value(c, filled) for c in table.columns}
    with engine.begin() as conn:
        scratch.create(conn)
        conn.execute(scratch.insert().values(scratch_key=1, **values))
        conn.execute(scratch.insert(), {"scratch_key": 2, **values})
        inline, bound = conn.execute(
            text(f"SELECT * FROM {scratch.name} ORDER BY scratch_key")
        ).all()
        scratch.drop(conn)
    assert inline[1:] == bound[1:]
    if filled:
        assert any(isinstance(v, str) and "林远" in v for v in bound[1:]) or table is run_events


def test_compare_and_set_reuses_one_statement_per_shape():
    first = cas._conditional_update(runs, ("id", "state"), ("state", "revision"))
    assert cas._conditional_update(runs, ("id", "state"), ("state", "revision")) is first
    assert cas._conditional_update(runs, ("id",), ("state", "revision")) is not first


def test_a_bound_move_writes_what_an_inline_one_wrote(engine):
    work_id = new_work(engine)
    with engine.begin() as conn:
        inline_id, bound_id = insert_run(conn, work_id), insert_run(conn, work_id)
        moved = {
            "state": "retrieving",
            "revision": 1,
            "updated_at": WHEN,
            "deadline_at": None,
            "deadline_node": None,
            "reason": "林远\x00之后",  # made storable the same way in both forms
        }
        where = {"state": "validating_context", "revision": 0, "attempt": 1}
        condition = (runs.c.id == inline_id) & (runs.c.state == "validating_context")
        condition &= (runs.c.revision == 0) & (runs.c.attempt == 1)
        conn.execute(runs.update().where(condition).values(**moved))
        compare_and_set(conn, runs, where={"id": bound_id, **where}, values=moved)
        with pytest.raises(StaleTransition):  # the same move again: nothing matches any more
            compare_and_set(conn, runs, where={"id": bound_id, **where}, values=moved)
    inline, bound = dict(row(engine, runs, inline_id)), dict(row(engine, runs, bound_id))
    for key in ("id", "created_at"):  # the two inserts' own
        assert inline.pop(key) != bound.pop(key)
    assert inline == bound and bound["state"] == "retrieving"


def test_a_none_condition_still_means_is_null(engine):
    """``deadline_at = NULL`` is never true; the move must still find the row (inline form)."""
    work_id = new_work(engine)
    with engine.begin() as conn:
        run_id = insert_run(conn, work_id)
        compare_and_set(
            conn, runs, where={"id": run_id, "deadline_at": None}, values={"reason": "无截止"}
        )
        with pytest.raises(StaleTransition):
            compare_and_set(
                conn, runs, where={"id": run_id, "reason": None}, values={"reason": "再改"}
            )
    assert row(engine, runs, run_id)["reason"] == "无截止"


def test_an_expression_among_the_values_is_kept(engine):
    with engine.begin() as conn:
        work_id = create_work(conn, "书")
        compare_and_set(
            conn,
            works,
            where={"id": work_id, "title": "书"},
            values={"title": works.c.title + "二"},
        )
        assert conn.execute(works.select().where(works.c.id == work_id)).one().title == "书二"
