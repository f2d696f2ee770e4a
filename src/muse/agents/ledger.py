"""The tool-read ledger: every read-only tool read, and the run's dependency list (spec 003).

Each read is written in its own transaction at the moment it happens, so the ledger is complete
even when the model call that asked for it fails later (a replay, which no model call waits
on, writes its reads together: :class:`LedgerBatch`). A read stores the hash of the canonical
JSON of its result, not the result: the result is reproducible from the frozen as-of view, and
the prompt that carried it is stored with the call's receipt.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from sqlalchemy import Connection, Engine, bindparam, select

from muse.agents.tables import tool_reads
from muse.core.canonical import hash_value
from muse.core.clock import utc_now
from muse.store.prepared import Prepared

ReadStatus = Literal["ok", "refused", "error"]


@dataclass(frozen=True)
class ToolRead:
    id: int
    run_id: str | None
    call_id: str | None
    tool: str
    arguments: dict[str, Any]
    status: ReadStatus
    result_sha256: str | None
    error: str | None
    created_at: datetime


# a ledger row's columns (``_row``), written one at a time or many in one statement
_INSERT_READS = Prepared(
    tool_reads.insert(),
    keys=(
        "run_id",
        "call_id",
        "tool",
        "arguments",
        "status",
        "result_sha256",
        "error",
        "created_at",
    ),
    many=True,
)


def _row(
    run_id: str | None,
    call_id: str | None,
    tool: str,
    arguments: dict[str, Any],
    status: ReadStatus,
    result: Any,
    error: str | None,
) -> dict[str, Any]:
    return {
        "run_id": run_id,
        "call_id": call_id,
        "tool": tool,
        "arguments": arguments,
        "status": status,
        "result_sha256": hash_value(result) if status == "ok" else None,
        "error": error,
        "created_at": utc_now(),
    }


class LedgerBatch:
    """Ledger rows kept as they happen and written together in one transaction by
    :meth:`flush`: for reads no model call waits on (a replay), which would otherwise pay one
    transaction each. The rows are the same, in the same order, each with its own time."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.rows: list[dict[str, Any]] = []

    def add(
        self,
        *,
        run_id: str | None,
        call_id: str | None,
        tool: str,
        arguments: dict[str, Any],
        status: ReadStatus,
        result: Any = None,
        error: str | None = None,
    ) -> None:
        self.rows.append(_row(run_id, call_id, tool, arguments, status, result, error))

    def flush(self) -> None:
        if self.rows:
            with self.engine.begin() as conn:
                _INSERT_READS.run_many(conn, self.rows)
            self.rows = []


def _reading(*conditions: Any) -> Prepared:
    return Prepared(select(tool_reads).where(*conditions).order_by(tool_reads.c.id))


_OF_RUN = _reading(tool_reads.c.run_id == bindparam("run_id"))
_OF_CALL = _reading(tool_reads.c.call_id == bindparam("call_id"))
_OK_OF_RUN = _reading(tool_reads.c.run_id == bindparam("run_id"), tool_reads.c.status == "ok")


def _reads(engine: Engine, query: Prepared, **params: Any) -> list[ToolRead]:
    with engine.connect() as conn:
        return [ToolRead(**row._mapping) for row in query.run(conn, **params)]


def tool_read_log(engine: Engine, run_id: str) -> list[ToolRead]:
    """Every ledger row of a run, refusals and errors included, in order."""
    return _reads(engine, _OF_RUN, run_id=run_id)


def call_tool_reads(engine: Engine, call_id: str) -> list[ToolRead]:
    """The ledger rows one model call produced."""
    return _reads(engine, _OF_CALL, call_id=call_id)


def dependency_list(engine: Engine, run_id: str) -> list[ToolRead]:
    """The run's dependency list: its successful reads, in the order they happened."""
    return _reads(engine, _OK_OF_RUN, run_id=run_id)


def tool_reads_of_run(conn: Connection, run_id: str) -> list[ToolRead]:
    """:func:`tool_read_log` on the caller's (read) connection, e.g. a workbench page."""
    query = select(tool_reads).where(tool_reads.c.run_id == run_id).order_by(tool_reads.c.id)
    return [ToolRead(**row._mapping) for row in conn.execute(query)]
