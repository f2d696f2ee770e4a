"""Typed rows of the production tables: a run, a candidate, a decision (``flow/tables.py``).

Flow reads these rows in many places (the decision path, the nodes of a run, the readers of the
CLI and the workbench); a typed row names each column once, with its type, so a misspelt column
is an attribute error the type checker sees instead of a ``KeyError`` at run time. Each is built
from the SQLAlchemy row of ``select(<table>)`` (all columns) by :meth:`from_row`
(``store/rows.py``); the fields are the table's columns, in its order.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from muse.store.rows import FromRow


@dataclass(frozen=True, slots=True)
class RunRow(FromRow):
    id: str
    work_id: int
    target_chapter: int
    run_type: str  # production | evaluation
    mode: str  # production | diagnostic_only
    quality_policy_version: str
    state: str
    attempt: int
    revision: int  # compare-and-set counter
    provider: str
    model: str
    as_of: int
    base_revision: int  # 0: the chapter had no canonical text yet
    authorization_snapshot_id: str | None
    reason: str | None
    created_at: datetime
    updated_at: datetime
    deadline_at: datetime | None
    deadline_node: str | None
    owner: str | None  # the process that last moved it (host|boot|pid|start); None: before 0025


@dataclass(frozen=True, slots=True)
class CandidateRow(FromRow):
    id: str
    run_id: str
    work_id: int
    chapter: int
    version: int
    state: str  # DRAFT | CHECKING | PASSED | REJECTED | ACCEPTED | ARCHIVED | DISCARDED
    revision: int  # compare-and-set counter
    acceptance_eligible: bool
    body: str
    sha256: str
    han_count: int
    context_snapshot_id: str
    writer_output: dict[str, Any]  # WriterOutput v1, wire form
    report: dict[str, Any] | None  # None: not checked yet
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class DecisionRow(FromRow):
    id: str
    command_id: str
    candidate_id: str
    kind: str  # accept | edit_merge | revise | discard
    actor: str
    outcome: str
    detail: dict[str, Any]
    created_at: datetime
