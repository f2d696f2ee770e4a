"""A table's (number, revision) pairs as one string built by the database.

``refresh_index`` asks, twice per write, whether the search index holds every chapter at its
canonical revision. Reading both sides as 2,000-row dictionaries cost ~4 ms; each side's pairs
joined into one string by the database (``group_concat`` / ``string_agg``) is one row. The order
of the pairs does not matter for the question: the strings are equal only when the two multisets
of ``number:revision`` pairs are (numbers are unique per work), and only unequal strings send the
caller to the row-by-row comparison, so a different order costs time, never a wrong answer.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, Connection, String, cast, func, literal, select

from muse.store.prepared import Prepared


def pairs_digest(
    conn: Connection, number: ColumnElement[Any], revision: ColumnElement[Any], where: Any
) -> str:
    """``"n:r,n:r,…"`` of the rows matching ``where`` ("" for none)."""
    query = select(_joined(number, revision, conn.dialect.name)).where(where)
    return str(conn.execute(query).scalar() or "")


class PairsDigest:
    """:func:`pairs_digest` of a fixed query whose ``where`` names its parameters
    (``bindparam``): prepared for both backends (``store.prepared``), called with the values."""

    def __init__(self, number: ColumnElement[Any], revision: ColumnElement[Any], where: Any):
        self._forms = {
            dialect: Prepared(select(_joined(number, revision, dialect)).where(where))
            for dialect in ("sqlite", "postgresql")
        }

    def __call__(self, conn: Connection, **params: Any) -> str:
        form = self._forms["postgresql" if conn.dialect.name == "postgresql" else "sqlite"]
        return str(form.run(conn, **params).scalar() or "")


def _joined(number: ColumnElement[Any], revision: ColumnElement[Any], dialect: str) -> Any:
    pair = cast(number, String) + literal(":") + cast(revision, String)
    if dialect == "postgresql":
        return func.string_agg(pair, literal(","))
    return func.group_concat(pair, literal(","))
