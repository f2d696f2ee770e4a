"""The evaluation zone, hidden from production reads at one engine-level point (spec 001 §7).

Evaluation arms write ordinary ``runs`` and ``candidates`` rows (``run_type = 'evaluation'``),
so that every production guard (triggers, eligibility, accept entry) applies to them too. What
keeps them out of production is this filter, not each query remembering a ``WHERE``: a
``before_execute`` listener on every Engine rewrites each SELECT that reads ``runs`` or
``candidates`` so that the table is replaced by the production rows only, wherever it appears
(top level, joins, subqueries, EXISTS, the SELECTs of a UNION). Writes are not rewritten (compare-and-set updates keep
working and the triggers see every row).

Code of the evaluation zone — the evaluation chain, ``muse invariants`` — reads the whole table
on a connection opened with ``zone(conn)`` (execution option ``muse_zone="all"``).

The listener is installed when this module is imported, and ``muse.flow.tables`` imports it, so
no process can reference these tables without the filter being in place.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from functools import cache
from typing import Any

from sqlalchemy import Connection, Engine, Table, event, select
from sqlalchemy.sql import CompoundSelect, Select, Subquery
from sqlalchemy.sql.cache_key import CacheKey
from sqlalchemy.sql.functions import FunctionElement
from sqlalchemy.sql.selectable import Exists, FromClause, SelectBase
from sqlalchemy.sql.util import ClauseAdapter
from sqlalchemy.sql.visitors import iterate

ZONE_OPTION = "muse_zone"
ALL = "all"

# What the listener costs (bench/zone_hook.py): walking every SELECT to find the two tables was
# the price of every query. Whether a statement reads them depends on its structure only, which
# its compiled-cache key identifies (SQLAlchemy computes that key once per statement object and
# reuses it to compile), so the answer is kept per cache key; a statement SQLAlchemy cannot key
# is walked as before. The rewrite itself is not kept: it carries the statement's own bound
# values (and its clones point back at the statement, so keeping it would keep every statement).
#
# A key first seen is not walked when it does not name either table: the key holds every table
# the statement renders, as the Table object itself (that is how SQLAlchemy tells a SELECT of
# one table from the same SELECT of another), wherever it sits — a column's table, a join, a
# subquery, an EXISTS, a UNION's SELECTs. Most statements of a write read neither table, and
# scanning the key's tuples costs a fraction of the walk. A key holding a container other than
# a tuple is walked, as a key SQLAlchemy could not build is.
#
# The rewrite of a statement whose every bound parameter takes its value at execution (a
# statement built once with ``bindparam(name)``, as the run's own reads are) carries no value:
# it is kept per key too, and such a read costs neither the rewrite nor its new cache key.
_MAX_KEYS = 4096
_by_key: dict[Any, tuple[int, bool]] = {}
_rewritten: dict[Any, Select[Any] | CompoundSelect[Any]] = {}
_lock = threading.Lock()


def zone(conn: Connection) -> Connection:
    """``conn`` with the evaluation zone visible (evaluation code and standing invariants)."""
    return conn.execution_options(**{ZONE_OPTION: ALL})


def _zone_tables() -> tuple[Table, Table]:
    from muse.flow.tables import candidates, runs

    return runs, candidates


@cache
def _visible() -> tuple[Subquery, Subquery]:
    """The production rows of ``runs`` and ``candidates``, as the subqueries that replace them.
    Built once: their column collections (what the rewrite looks columns up in) and their part
    of the cache key are computed on the first use and kept with them."""
    runs, candidates = _zone_tables()
    production = runs.c.run_type == "production"
    visible_runs = select(runs).where(production).subquery("runs")
    inner = select(runs.c.id).where(production)
    visible_candidates = (
        select(candidates).where(candidates.c.run_id.in_(inner)).subquery("candidates")
    )
    return visible_runs, visible_candidates


_NOTHING, _RUNS, _CANDIDATES, _BOTH = 0, 1, 2, 3  # which of the two tables a SELECT reads


def _shape(statement: Select[Any] | CompoundSelect[Any]) -> tuple[int, bool]:
    """Which zone tables ``statement`` reads anywhere in it, and whether it is a plain
    single-table SELECT of one of them: that table its only FROM, no join, subquery, alias,
    EXISTS or nested SELECT. Kept per cache key (the answer depends on the shape only)."""
    key = statement._generate_cache_key()
    if key is not None:
        found = _by_key.get(key.key)
        if found is None:
            found = _walk(statement) if _may_name_zone_table(key.key) else (_NOTHING, False)
            with _lock:
                if len(_by_key) >= _MAX_KEYS:
                    _by_key.clear()
                _by_key[key.key] = found
        return found
    return _walk(statement)


def _may_name_zone_table(key: tuple[Any, ...]) -> bool:
    """Whether a compiled-cache key names ``runs`` or ``candidates`` (or holds a container this
    scan does not open, and so might)."""
    runs, candidates = _zone_tables()
    stack = [key]
    while stack:
        for part in stack.pop():
            kind = type(part)
            if kind is tuple:
                stack.append(part)
            elif part is runs or part is candidates or kind in (list, dict, set, frozenset):
                return True
    return False


def _walk(statement: Select[Any] | CompoundSelect[Any]) -> tuple[int, bool]:
    """:func:`_shape`, found by walking every element of the statement."""
    runs, candidates = _zone_tables()
    reads, nested = _NOTHING, False
    for element in iterate(statement):
        if element is runs:
            reads |= _RUNS
        elif element is candidates:
            reads |= _CANDIDATES
        elif element is not statement and (
            isinstance(element, SelectBase | Exists)
            or (isinstance(element, FromClause) and not isinstance(element, FunctionElement))
        ):
            nested = True
    plain = False
    if not nested and reads in (_RUNS, _CANDIDATES) and isinstance(statement, Select):
        froms = _final_froms(statement)
        plain = len(froms) == 1 and froms[0] is (runs if reads == _RUNS else candidates)
    return reads, plain


def _final_froms(statement: Select[Any]) -> Sequence[FromClause]:
    """``statement.get_final_froms()`` without its price: that method compiles the whole
    statement to a string to hand the compiler to the compile state, which a Core SELECT's state
    (``SelectState``) never uses; the FROM list is the state's alone."""
    if statement._propagate_attrs.get("compile_state_plugin", "default") != "default":
        return statement.get_final_froms()  # an ORM statement's state does use the compiler
    try:  # SQLAlchemy's own internals (2.0, 2.1): another release may name them otherwise
        state = statement._compile_state_factory(statement, None)  # type: ignore[arg-type]
        return state._get_display_froms()
    except (AttributeError, TypeError):
        return statement.get_final_froms()


def _production_only(
    statement: Select[Any] | CompoundSelect[Any],
) -> Select[Any] | CompoundSelect[Any]:
    reads, plain = _shape(statement)
    if reads == _NOTHING:
        return statement
    key = statement._generate_cache_key()  # memoized: computed once by _shape
    if key is None or not _value_free(key):
        return _rewrite(statement, reads, plain)
    found = _rewritten.get(key.key)
    if found is None:
        found = _rewrite(statement, reads, plain)
        with _lock:
            if len(_rewritten) >= _MAX_KEYS:
                _rewritten.clear()
            _rewritten[key.key] = found
    return found


def _value_free(key: CacheKey) -> bool:
    """Whether every bound parameter of the keyed statement takes its value at execution (a
    ``bindparam(name)`` without a value): then any statement with this key rewrites to the same
    statement, parameters and all, and the rewrite can be kept."""
    return all(b.value is None and b.callable is None for b in key.bindparams)


def _rewrite(
    statement: Select[Any] | CompoundSelect[Any], reads: int, plain: bool
) -> Select[Any] | CompoundSelect[Any]:
    runs, candidates = _zone_tables()
    if plain and isinstance(statement, Select):
        # One table and nothing nested: filtering it in WHERE reads exactly the rows the
        # replacement subquery would (WHERE applies before grouping, windows and LIMIT), and
        # costs a ``where()`` instead of cloning the whole statement.
        production = runs.c.run_type == "production"
        if reads == _RUNS:
            return statement.where(production)
        return statement.where(candidates.c.run_id.in_(select(runs.c.id).where(production)))
    visible_runs, visible_candidates = _visible()
    rewritten = statement
    if reads & _RUNS:
        rewritten = ClauseAdapter(visible_runs).traverse(rewritten)
    if reads & _CANDIDATES:
        rewritten = ClauseAdapter(visible_candidates).traverse(rewritten)
    return rewritten


def production_form(statement: Any) -> Any:
    """``statement`` as a production connection executes it: a SELECT or UNION with the
    evaluation zone's rows of ``runs`` and ``candidates`` filtered out, anything else as it is."""
    if isinstance(statement, Select | CompoundSelect):
        return _production_only(statement)
    return statement


def _before_execute(
    conn: Connection, clauseelement: Any, multiparams: Any, params: Any, execution_options: Any
) -> tuple[Any, Any, Any]:
    if (
        isinstance(clauseelement, Select | CompoundSelect)  # a UNION of the two tables too
        and execution_options.get(ZONE_OPTION) != ALL
        and conn.get_execution_options().get(ZONE_OPTION) != ALL
    ):
        clauseelement = _production_only(clauseelement)
    return clauseelement, multiparams, params


if not event.contains(Engine, "before_execute", _before_execute):
    event.listen(Engine, "before_execute", _before_execute, retval=True)
