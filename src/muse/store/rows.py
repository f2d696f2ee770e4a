"""Typed rows: a frozen dataclass per table, built from a ``select(<table>)`` mapping.

A package that hands its rows to other packages hands them typed (``flow/rows.py``,
``works/rows.py``, ``context/snapshots.py``): each column is named once, with its type, so a
misspelt column is an attribute error the type checker sees instead of a ``KeyError`` at run
time. The fields are the table's columns, in its order.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Self

from sqlalchemy import RowMapping


class FromRow:
    __slots__ = ()

    @classmethod
    def from_row(cls, row: RowMapping) -> Self:
        """The typed row of a ``.mappings()`` result of ``select(<table>)``."""
        return cls(**{f.name: row[f.name] for f in fields(cls)})  # type: ignore[arg-type]
