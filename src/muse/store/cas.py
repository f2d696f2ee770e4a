"""Compare-and-set: the one way state moves (ARCHITECTURE.md §5).

A transition is a single conditional ``UPDATE … WHERE <identity> AND <expected state>`` that must
change exactly one row. Zero rows means someone else moved first (or the caller's view is stale):
the caller gets :class:`StaleTransition` (or the subclass it names) and must re-read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import Connection, Table, and_

from muse.core.errors import StaleTransition


def compare_and_set(
    conn: Connection,
    table: Table,
    *,
    where: Mapping[str, Any],
    values: Mapping[str, Any],
    error: type[StaleTransition] = StaleTransition,
    message: str = "状态已被其他操作改变，请刷新后重试。",
) -> None:
    """Update exactly one row of ``table`` matching every ``where`` column, or raise ``error``."""
    condition = and_(*(table.c[name] == value for name, value in where.items()))
    result = conn.execute(table.update().where(condition).values(**values))
    if result.rowcount != 1:
        raise error(message)
