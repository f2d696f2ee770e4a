"""The evaluation zone, hidden from production reads at one engine-level point (spec 001 §7).

Evaluation arms write ordinary ``runs`` and ``candidates`` rows (``run_type = 'evaluation'``),
so that every production guard (triggers, eligibility, accept entry) applies to them too. What
keeps them out of production is this filter, not each query remembering a ``WHERE``: a
``before_execute`` listener on every Engine rewrites each SELECT that reads ``runs`` or
``candidates`` so that the table is replaced by the production rows only, wherever it appears
(top level, joins, subqueries, EXISTS). Writes are not rewritten (compare-and-set updates keep
working and the triggers see every row).

Code of the evaluation zone — the evaluation chain, ``muse invariants`` — reads the whole table
on a connection opened with ``zone(conn)`` (execution option ``muse_zone="all"``).

The listener is installed when this module is imported, and ``muse.flow.tables`` imports it, so
no process can reference these tables without the filter being in place.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, Engine, event, select
from sqlalchemy.sql import Select
from sqlalchemy.sql.util import ClauseAdapter
from sqlalchemy.sql.visitors import iterate

ZONE_OPTION = "muse_zone"
ALL = "all"


def zone(conn: Connection) -> Connection:
    """``conn`` with the evaluation zone visible (evaluation code and standing invariants)."""
    return conn.execution_options(**{ZONE_OPTION: ALL})


def _production_only(statement: Select) -> Select:
    from muse.flow.tables import candidates, runs

    tables = {t for t in iterate(statement) if t is runs or t is candidates}
    if not tables:
        return statement
    if runs in tables:
        visible_runs = select(runs).where(runs.c.run_type == "production").subquery("runs")
        statement = ClauseAdapter(visible_runs).traverse(statement)
    if candidates in tables:
        inner = select(runs.c.id).where(runs.c.run_type == "production")
        visible_candidates = (
            select(candidates).where(candidates.c.run_id.in_(inner)).subquery("candidates")
        )
        statement = ClauseAdapter(visible_candidates).traverse(statement)
    return statement


def _before_execute(
    conn: Connection, clauseelement: Any, multiparams: Any, params: Any, execution_options: Any
):
    if (
        isinstance(clauseelement, Select)
        and execution_options.get(ZONE_OPTION) != ALL
        and conn.get_execution_options().get(ZONE_OPTION) != ALL
    ):
        clauseelement = _production_only(clauseelement)
    return clauseelement, multiparams, params


if not event.contains(Engine, "before_execute", _before_execute):
    event.listen(Engine, "before_execute", _before_execute, retval=True)
