"""Receipts: the record of one model call, written once when the call ends, ok or not.

``CallTrace`` accumulates what happens during a call (attempts, raw replies, tokens, the model
id the server reported); ``write_receipt`` turns it into one ``model_calls`` row in its own
transaction, so a failed call is recorded even when the caller's transaction is rolled back.

Secrets: every string written is scrubbed of the provider's secret values (the API key) first.
Keys never enter prompts or replies on purpose; the scrub is the guarantee, not the hope. The
hashes in the receipt are computed on the values as they were, before scrubbing.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import Connection, Engine, Row, RowMapping, func, insert, select

from muse.agents.policy import FrozenPolicy
from muse.agents.providers.base import ChatReply, Price, Usage
from muse.agents.tables import model_calls
from muse.core.canonical import hash_value
from muse.core.clock import utc_now
from muse.core.ids import new_id
from muse.store.prepared import Prepared
from muse.store.rows import FromRow

REDACTED = "[已隐去]"
_MILLION = Decimal(1_000_000)
_MAX_INT = 2**31 - 1  # the receipt's integer columns (PostgreSQL integer)


@dataclass
class CallTrace:
    run_id: str | None
    role: str
    task: str
    provider: str
    model_requested: str
    task_input: dict[str, Any]
    input_sha256: str | None = None  # of task_input's canonical JSON, when dispatch has it
    id: str = field(default_factory=lambda: new_id("call"))
    started_at: datetime = field(default_factory=utc_now)
    started: float = field(default_factory=time.monotonic)
    base_url: str | None = None
    policy: FrozenPolicy | None = None
    output_mode: str | None = None
    prompt_templates: dict[str, Any] = field(default_factory=dict)
    messages: list[dict[str, Any]] = field(default_factory=list)
    messages_sha256: str | None = None
    request_params: dict[str, Any] = field(default_factory=dict)
    raw_outputs: list[dict[str, Any]] = field(default_factory=list)
    attempts: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    tokens_cached: int | None = None
    model_returned: str | None = None
    last_text: str = ""
    output: dict[str, Any] | None = None
    price: Price | None = None
    secrets: tuple[str, ...] = ()

    def record_reply(self, kind: str, reply: ChatReply) -> None:
        self._add_usage(reply.usage)
        self.model_returned = reply.model
        self.last_text = reply.text
        self.raw_outputs.append({"attempt": self.attempts, "kind": kind, "body": reply.raw})

    def record_failure(self, kind: str, error: Exception) -> None:
        self.raw_outputs.append(
            {"attempt": self.attempts, "kind": kind, "error": f"{type(error).__name__}: {error}"}
        )

    def _add_usage(self, usage: Usage) -> None:
        self.tokens_in += usage.prompt_tokens
        self.tokens_out += usage.completion_tokens
        if usage.cached_tokens is not None:
            self.tokens_cached = (self.tokens_cached or 0) + usage.cached_tokens

    def cost(self) -> tuple[Decimal | None, str | None]:
        """Estimated cost from the price list; cached prompt tokens at the cached rate."""
        if self.price is None:
            return None, None
        cached = self.tokens_cached or 0
        cached_rate = (
            self.price.cached_input if self.price.cached_input is not None else self.price.input
        )
        total = (
            Decimal(self.tokens_in - cached) * self.price.input
            + Decimal(cached) * cached_rate
            + Decimal(self.tokens_out) * self.price.output
        ) / _MILLION
        return total.quantize(Decimal("0.000001")), self.price.currency


def scrub(value: Any, secrets: tuple[str, ...]) -> Any:
    """``value`` with every secret replaced, recursively, and NUL characters made storable
    (PostgreSQL text and JSONB refuse U+0000; hashes are computed before this)."""
    return _scrubbed(value, tuple(s for s in secrets if s))  # the empty ones dropped once


def _scrubbed(value: Any, secrets: tuple[str, ...]) -> Any:
    if isinstance(value, str):
        for secret in secrets:
            value = value.replace(secret, REDACTED)
        return value.replace("\x00", "\ufffd")
    if isinstance(value, dict):
        return {_scrubbed(k, secrets): _scrubbed(v, secrets) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_scrubbed(v, secrets) for v in value]
    return value


def write_receipt(engine: Engine, trace: CallTrace, *, status: str, error: str | None) -> None:
    """Insert the call's receipt in its own transaction; if its full content cannot be stored,
    a minimal one (identity, status, error) — a failed call never goes unrecorded."""
    trace.tokens_in, trace.tokens_out = _bounded(trace.tokens_in), _bounded(trace.tokens_out)
    if trace.tokens_cached is not None:
        trace.tokens_cached = _bounded(trace.tokens_cached)
    cost, currency = trace.cost()
    row = {
        "id": trace.id,
        "run_id": trace.run_id,
        "role": trace.role[:32],
        "task": trace.task[:64],
        "provider": trace.provider[:64],
        "base_url": trace.base_url,
        "model_requested": trace.model_requested[:200],
        "model_returned": trace.model_returned[:200] if trace.model_returned is not None else None,
        "policy_name": trace.policy.name if trace.policy else None,
        "policy_version": trace.policy.version if trace.policy else None,
        "output_mode": trace.output_mode,
        "status": status,
        "error": error,
        "attempts": trace.attempts,
        "tokens_in": trace.tokens_in,
        "tokens_out": trace.tokens_out,
        "tokens_cached": trace.tokens_cached,
        "latency_ms": round((time.monotonic() - trace.started) * 1000),
        "cost_estimate": cost,
        "cost_currency": currency,
        # checked storable by dispatch, which hashed the same canonical bytes already
        "input_sha256": trace.input_sha256 or hash_value(trace.task_input),
        "messages_sha256": trace.messages_sha256,
        "output_sha256": _hash_or_none(trace.output) if trace.output is not None else None,
        "prompt_templates": trace.prompt_templates,
        "task_input": trace.task_input,
        "messages": trace.messages,
        "request_params": trace.request_params,
        "raw_outputs": trace.raw_outputs,
        "output": trace.output,
        "started_at": trace.started_at,
        "finished_at": utc_now(),
    }
    try:
        with engine.begin() as conn:
            _INSERT.run(conn, **_for_storage(row, trace.secrets))
    except Exception as err:  # noqa: BLE001 - the receipt of a failed call must still exist
        _write_minimal(engine, row, trace, err)


def _hash_or_none(value: Any) -> str | None:
    """The hash of a value; None if it cannot be canonicalised (a lone surrogate)."""
    try:
        return hash_value(value)
    except Exception:  # noqa: BLE001 - rfc8785 raises several types
        return None


def _bounded(count: int) -> int:
    return min(max(int(count), 0), _MAX_INT)


def _write_minimal(engine: Engine, row: dict[str, Any], trace: CallTrace, err: Exception) -> None:
    """A receipt whose full content cannot be stored: the identity, status and error, without
    the raw bodies (the hashes of the inputs are kept)."""
    note = f"完整回执无法存储（{type(err).__name__}）"
    minimal = {
        **row,
        "error": f"{row['error']}；{note}" if row["error"] else note,
        "prompt_templates": {},
        "task_input": {},
        "messages": [],
        "request_params": {},
        "raw_outputs": [],
        "output": None,
        "tokens_in": 0,
        "tokens_out": 0,
        "tokens_cached": None,
        "cost_estimate": None,
    }
    with engine.begin() as conn:
        _INSERT.run(conn, **_for_storage(minimal, trace.secrets))


# a receipt sets every column (the values as parameters, not inline: the statement's cache key
# is then the same few columns, not a walk over every value of the receipt on each call)
_INSERT = Prepared(insert(model_calls), keys=tuple(c.name for c in model_calls.c))


def _for_storage(row: dict[str, Any], secrets: tuple[str, ...]) -> dict[str, Any]:
    """``row`` as its insert binds it: scrubbed when the call had a secret to hide; else as it
    is. Without secrets a scrub only replaces NUL characters, and the engine does that and more
    to every bound string and JSON value (``store.engine``: NUL and lone surrogates replaced,
    registered secrets redacted), so the walk over a receipt's ~4,000 values (its messages,
    input and replies) would change nothing."""
    if any(secrets):
        scrubbed: dict[str, Any] = scrub(row, secrets)
        return scrubbed
    return row


@dataclass(frozen=True, slots=True)
class ReceiptRow(FromRow):
    """One model call's receipt (table ``model_calls``), as other packages read it."""

    id: str
    run_id: str | None
    role: str
    task: str
    provider: str
    base_url: str | None
    model_requested: str
    model_returned: str | None
    policy_name: str | None
    policy_version: str | None
    output_mode: str | None
    status: str  # ok, or the named failure
    error: str | None
    attempts: int
    tokens_in: int
    tokens_out: int
    tokens_cached: int | None
    latency_ms: int
    cost_estimate: Decimal | None
    cost_currency: str | None
    input_sha256: str
    messages_sha256: str | None
    output_sha256: str | None
    prompt_templates: Any
    task_input: Any
    messages: Any
    request_params: Any
    raw_outputs: Any
    output: Any
    started_at: datetime
    finished_at: datetime


def get_receipt(engine: Engine, call_id: str) -> ReceiptRow | None:
    with engine.connect() as conn:
        return receipt_of(conn, call_id)


def run_receipts(engine: Engine, run_id: str) -> list[dict[str, Any]]:
    """Receipts of a run, oldest first."""
    query = (
        select(model_calls)
        .where(model_calls.c.run_id == run_id)
        .order_by(model_calls.c.started_at, model_calls.c.id)
    )
    with engine.connect() as conn:
        return [dict(row._mapping) for row in conn.execute(query)]


# The columns that hold a call's full input and output: long, shown on demand only.
HEAVY_COLUMNS = (
    "prompt_templates",
    "task_input",
    "messages",
    "request_params",
    "raw_outputs",
    "output",
)


def receipt_summaries(conn: Connection, run_id: str) -> list[dict[str, Any]]:
    """The receipts of a run without their heavy columns, oldest first, on the caller's (read)
    connection (a workbench page: the prompt and raw output open on demand)."""
    light = [c for c in model_calls.columns if c.name not in HEAVY_COLUMNS]
    query = (
        select(*light)
        .where(model_calls.c.run_id == run_id)
        .order_by(model_calls.c.started_at, model_calls.c.id)
    )
    return [dict(row._mapping) for row in conn.execute(query)]


def receipt_of(conn: Connection, call_id: str) -> ReceiptRow | None:
    """:func:`get_receipt` on the caller's (read) connection."""
    row = conn.execute(select(model_calls).where(model_calls.c.id == call_id)).mappings().first()
    return ReceiptRow.from_row(row) if row else None


# Reads of the receipts for other packages (they never import the ``model_calls`` table).


def run_token_sums(conn: Connection, run_ids: list[str]) -> Sequence[Row[Any, Any, Any]]:
    """Per run: (run_id, input tokens, cached input tokens or None when no call reported one)."""
    return conn.execute(
        select(
            model_calls.c.run_id,
            func.coalesce(func.sum(model_calls.c.tokens_in), 0),
            func.sum(model_calls.c.tokens_cached),  # NULL when no call reported one
        )
        .where(model_calls.c.run_id.in_(run_ids))
        .group_by(model_calls.c.run_id)
    ).all()


def run_call_rows(conn: Connection, run_id: str, names: Sequence[str]) -> Sequence[RowMapping]:
    """The named columns of a run's receipts, oldest first."""
    c = model_calls.c
    return (
        conn.execute(
            select(*(c[name] for name in names)).where(c.run_id == run_id).order_by(c.started_at)
        )
        .mappings()
        .all()
    )


def ok_calls(conn: Connection, run_id: str, role: str) -> Sequence[Row[Any, Any, Any]]:
    """(id, task_input, output) of the run's successful calls of ``role``."""
    return conn.execute(
        select(model_calls.c.id, model_calls.c.task_input, model_calls.c.output).where(
            model_calls.c.run_id == run_id,
            model_calls.c.role == role,
            model_calls.c.status == "ok",
        )
    ).all()


def last_ok_call(conn: Connection, run_id: str, role: str, task: str) -> Row[Any, Any, Any] | None:
    """(id, output, tokens_out) of the run's last successful ``role/task`` call, or None."""
    return conn.execute(
        select(model_calls.c.id, model_calls.c.output, model_calls.c.tokens_out)
        .where(
            model_calls.c.run_id == run_id,
            model_calls.c.role == role,
            model_calls.c.task == task,
            model_calls.c.status == "ok",
        )
        .order_by(model_calls.c.finished_at.desc())
    ).first()


def usage_by_model(
    conn: Connection, run_ids: list[str]
) -> Sequence[Row[Any, Any, Any, Any, Any, Any, Any, Any]]:
    """Per (provider, model requested, role) over the runs: calls, input and output tokens, cost
    and currency, in that order."""
    return conn.execute(
        select(
            model_calls.c.provider,
            model_calls.c.model_requested,
            model_calls.c.role,
            func.count(),
            func.sum(model_calls.c.tokens_in),
            func.sum(model_calls.c.tokens_out),
            func.sum(model_calls.c.cost_estimate),
            func.max(model_calls.c.cost_currency),
        )
        .where(model_calls.c.run_id.in_(run_ids))
        .group_by(model_calls.c.provider, model_calls.c.model_requested, model_calls.c.role)
        .order_by(model_calls.c.provider, model_calls.c.model_requested, model_calls.c.role)
    ).all()
