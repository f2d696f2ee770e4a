"""A process warmed with its engine compiles none of the prepared statements on its first write."""

from __future__ import annotations

import pytest
from sqlalchemy import bindparam, insert, select
from sqlalchemy.sql import compiler

from muse.flow import warm_up
from muse.flow.zones import production_form
from muse.store.engine import make_engine
from muse.store.prepared import Prepared, precompile, registered
from muse.works.tables import chapters, works
from tests.support.fakes import write_offline
from tests.support.marked_book import NEXT


@pytest.fixture
def compiled(monkeypatch):
    """The statements compiled from now on (the outermost compile of each)."""
    seen: list = []
    depth = [0]
    original = compiler.SQLCompiler.__init__

    def init(self, dialect, statement, *args, **kwargs):
        depth[0] += 1
        try:
            original(self, dialect, statement, *args, **kwargs)
        finally:
            depth[0] -= 1
        if depth[0] == 0:
            seen.append(statement)

    monkeypatch.setattr(compiler.SQLCompiler, "__init__", init)
    return seen


def test_a_warmed_engine_compiles_no_prepared_statement_in_a_write(engine, book, compiled):
    done = warm_up(engine)
    forms = {id(production_form(p.statement)) for p in registered()}
    assert done.statements == len(registered()) >= 10
    compiled.clear()
    summary = write_offline(engine, book, NEXT)
    assert summary.state == "shadow_ready", summary
    recompiled = [s for s in compiled if id(s) in forms]
    assert recompiled == [], [str(s) for s in recompiled]
    assert compiled, "the write compiles its other statements (the hook sees compiles)"


def test_without_the_warm_up_the_write_compiles_them(engine, book, compiled):
    summary = write_offline(engine, book, NEXT)
    assert summary.state == "shadow_ready", summary
    forms = {id(production_form(p.statement)) for p in registered()}
    assert any(id(s) in forms for s in compiled)


@pytest.fixture
def own_registry(monkeypatch):
    """Statements made by a test stay out of the process's registry."""
    from muse.store import prepared

    monkeypatch.setattr(prepared, "_REGISTRY", [])


def test_the_keys_of_a_statement_are_its_placeholders_without_a_value(own_registry):
    prepared = Prepared(
        select(works.c.id).where(
            works.c.id == bindparam("work_id"),
            works.c.title != "x",  # a literal: bound, but not a parameter of the execution
            works.c.source_kind.in_(bindparam("kinds", expanding=True)),
        )
    )
    assert prepared.keys == ("kinds", "work_id")
    assert Prepared(insert(chapters), keys=("work_id", "number")).keys == ("number", "work_id")


def test_precompile_fills_the_engine_cache_an_execution_reads(db_url, own_registry):
    engine = make_engine(db_url)  # never connected: its dialect has not met the server yet
    assert engine.dialect.server_version_info is None
    prepared = Prepared(select(works.c.title).where(works.c.id == bindparam("work_id")))
    assert precompile(engine) == 1
    assert engine.dialect.server_version_info is not None  # compiled for the server it knows
    before = len(engine._compiled_cache)
    with engine.connect() as conn:
        assert prepared.run(conn, work_id=-1).first() is None
    assert len(engine._compiled_cache) == before  # a hit: nothing added
    engine.dispose()
