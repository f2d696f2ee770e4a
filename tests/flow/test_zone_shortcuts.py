"""The zone filter's two shortcuts give the answers of the long way (``muse.flow.zones``).

* A statement whose compiled-cache key names neither ``runs`` nor ``candidates`` is not walked:
  its answer must be the walk's, for every SELECT a production write issues and for the shapes
  that hide a table (joins, subqueries, EXISTS, UNIONs, correlation, a table only in WHERE).
* A plain SELECT's FROM list is taken from its compile state, not from ``get_final_froms()``
  (which compiles the statement to a string first): the same list.
"""

from __future__ import annotations

import pytest
from sqlalchemy import (
    Engine,
    bindparam,
    event,
    exists,
    func,
    literal,
    select,
    text,
    union,
    union_all,
)
from sqlalchemy.sql import Join

from muse.flow import zones
from muse.flow.production import write_chapter
from muse.flow.tables import candidates, runs
from muse.flow.zones import zone
from muse.works.tables import chapters, prose_blocks
from tests.support.marked_book import NEXT

from .test_zone import mixed  # noqa: F401 - the fixture

SHAPES = {
    "runs": lambda: select(runs.c.id).where(runs.c.work_id == 1),
    "count runs": lambda: select(func.count()).select_from(runs),
    "candidates": lambda: select(candidates.c.id, candidates.c.state),
    "join": lambda: select(candidates.c.id).join(runs, runs.c.id == candidates.c.run_id),
    "only in WHERE": lambda: select(literal(1)).where(runs.c.id == "x"),
    "subquery": lambda: select(func.count()).select_from(
        select(candidates.c.id).where(candidates.c.state == "PASSED").subquery()
    ),
    "scalar subquery": lambda: select(chapters.c.number).where(
        chapters.c.number == select(func.max(runs.c.target_chapter)).scalar_subquery()
    ),
    "in subquery": lambda: select(chapters.c.id).where(
        chapters.c.work_id.in_(select(candidates.c.work_id))
    ),
    "exists": lambda: select(func.count()).where(exists().where(runs.c.run_type == "evaluation")),
    "correlated exists": lambda: select(chapters.c.id).where(
        exists().where(runs.c.work_id == chapters.c.work_id)
    ),
    "alias": lambda: select(runs.alias("r").c.id),
    "cte": lambda: select(func.count()).select_from(select(runs.c.id).cte("c")),
    "union": lambda: union_all(select(runs.c.id), select(candidates.c.run_id)),
    "union in subquery": lambda: select(func.count()).select_from(
        union(select(chapters.c.title), select(runs.c.id)).subquery()
    ),
    "function from": lambda: select(runs.c.id).select_from(runs, func.json_each("[1]")),
    "text from": lambda: select(runs.c.id).select_from(runs, text("chapters")),
    "correlate": lambda: select(runs.c.id).correlate(runs),
    "chapters": lambda: select(chapters.c.number).where(chapters.c.work_id == 1),
    "chapters join": lambda: select(chapters.c.number, prose_blocks.c.text).join(
        prose_blocks, prose_blocks.c.chapter_id == chapters.c.id
    ),
    "literal": lambda: select(literal(1)),
}


@pytest.mark.parametrize("build", SHAPES.values(), ids=SHAPES.keys())
def test_the_key_scan_answers_as_the_walk(build):
    statement = build()
    walked = zones._walk(statement)
    named = zones._may_name_zone_table(statement._generate_cache_key().key)
    assert named == (walked[0] != zones._NOTHING)
    zones._by_key.clear()
    assert zones._shape(build()) == walked


def _same_froms(statement) -> bool:
    """``_final_froms`` is ``get_final_froms()``: the same objects, a JOIN (built anew by each
    compile state) by what it renders."""

    def comparable(froms):
        return [str(f) if isinstance(f, Join) else f for f in froms]

    return comparable(zones._final_froms(statement)) == comparable(statement.get_final_froms())


@pytest.mark.parametrize("build", SHAPES.values(), ids=SHAPES.keys())
def test_the_final_froms_are_the_compiled_ones(build):
    statement = build()
    if not hasattr(statement, "get_final_froms"):
        pytest.skip("a UNION has no FROM list of its own")
    assert _same_froms(statement)


def test_sqlalchemy_internals_named_otherwise_fall_back_to_the_public_method(monkeypatch):
    """Another SQLAlchemy release may change the compile state's internals: the FROM list then
    comes from ``get_final_froms()``, never an error."""
    statement = SHAPES["join"]()
    original = type(statement)._compile_state_factory

    def changed(cls_or_self, statement_, compiler, **kw):
        if compiler is None:
            raise TypeError("a compiler is required")
        return original(statement_, compiler, **kw)

    monkeypatch.setattr(type(statement), "_compile_state_factory", classmethod(changed))
    assert _same_froms(statement)


def test_a_statement_of_other_tables_is_not_walked(engine, monkeypatch):
    def no_walk(statement):
        raise AssertionError("walked")

    zones._by_key.clear()
    monkeypatch.setattr(zones, "iterate", no_walk)
    with engine.connect() as conn:
        conn.execute(select(chapters.c.number).where(chapters.c.work_id == 1)).all()
        with pytest.raises(AssertionError, match="walked"):
            conn.execute(select(runs.c.id)).all()
    zones._by_key.clear()


def test_a_plain_select_is_not_compiled_to_find_its_from(engine, monkeypatch):
    from sqlalchemy.sql import Select

    def no_compile(self):
        raise AssertionError("compiled for its FROM list")

    zones._by_key.clear()
    monkeypatch.setattr(Select, "get_final_froms", no_compile)
    with engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(runs)).scalar_one() == 0
    zones._by_key.clear()


def test_every_select_of_a_write_gets_the_walks_answer(engine: Engine, book):
    seen: list = []

    def keep(conn, clauseelement, multiparams, params, execution_options):
        if isinstance(clauseelement, zones.Select | zones.CompoundSelect):
            seen.append(clauseelement)

    event.listen(engine, "before_execute", keep)
    try:
        summary = write_chapter(engine, book, NEXT, provider="offline", model="offline-1")
    finally:
        event.remove(engine, "before_execute", keep)
    assert summary.state == "shadow_ready", summary.reason
    assert len(seen) > 30
    answers = set()
    for statement in seen:
        walked = zones._walk(statement)
        zones._by_key.clear()
        assert zones._shape(statement) == walked
        answers.add(walked)
        if isinstance(statement, zones.Select):
            assert _same_froms(statement)
    assert (zones._NOTHING, False) in answers and len(answers) > 1  # both kinds were checked


def test_a_value_free_reads_rewrite_is_kept_and_filters_as_before(engine, mixed):  # noqa: F811
    work_id, (prod_run, _), (eval_run, _) = mixed
    zones._rewritten.clear()

    def by_id():  # built anew each time, as a caller may: the same key, no value in it
        return select(runs.c.id, runs.c.run_type).where(runs.c.id == bindparam("rid"))

    with engine.connect() as conn:
        assert conn.execute(by_id(), {"rid": prod_run}).all() == [(prod_run, "production")]
        assert conn.execute(by_id(), {"rid": eval_run}).all() == []  # hidden, from the kept one
        assert zone(conn).execute(by_id(), {"rid": eval_run}).all() == [(eval_run, "evaluation")]
    assert len(zones._rewritten) == 1
    assert zones._production_only(by_id()) is zones._production_only(by_id())


def test_a_read_with_values_in_it_is_rewritten_for_its_own_values(engine, mixed):  # noqa: F811
    """Kept rewrites would carry the first statement's values: one with literal values is
    rewritten each time, and each answers for its own value."""
    work_id, (prod_run, prod_cand), (eval_run, _) = mixed
    zones._rewritten.clear()
    with engine.connect() as conn:
        for run_id, expected in [(prod_run, [prod_run]), (eval_run, []), (prod_run, [prod_run])]:
            assert conn.execute(select(runs.c.id).where(runs.c.id == run_id)).scalars().all() == (
                expected
            )
            got = conn.execute(select(candidates.c.id).where(candidates.c.run_id == run_id))
            assert got.scalars().all() == ([prod_cand] if expected else [])
    assert zones._rewritten == {}
