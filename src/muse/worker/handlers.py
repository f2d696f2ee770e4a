"""Job handlers by kind.

A handler is called with the claimed job and the worker's context, outside any transaction: it
does the slow part (a model call) there, then returns an :data:`Apply` step. The worker runs that
step in the transaction that marks the job done; the dict it returns is stored as the job's
result. If the job was reclaimed meanwhile (lease lost) the transaction rolls back, so the
effects of a job are committed at most once.

A handler ends a job without effects by returning :func:`skipped` (e.g. the chapter has a newer
revision than the one the job was queued for): the job is done, its result says why. A handler
raises :class:`PermanentJobError` for failures a retry cannot fix; any other exception is
retried with backoff until the job's attempts run out.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Engine

from muse.core.errors import MuseError
from muse.store.jobs import ClaimedJob

Apply = Callable[[Connection], dict[str, Any]]


@dataclass(frozen=True)
class JobContext:
    """What a handler may use: the engine, the worker's id and the author's explicit options."""

    engine: Engine
    worker_id: str
    now: datetime
    provider: str | None = None  # model overrides for model-calling handlers (muse worker -p/-m)
    model: str | None = None
    options: dict[str, Any] = field(default_factory=dict)


Handler = Callable[[ClaimedJob, JobContext], Apply]


class PermanentJobError(MuseError):
    """A failure no retry can fix (unknown kind, malformed payload, missing configuration)."""


_handlers: dict[str, Handler] = {}
_labels: dict[str, str] = {}


def register_handler(kind: str, handler: Handler, *, label: str | None = None) -> None:
    """Handle jobs of ``kind`` with ``handler``; a later registration replaces an earlier one."""
    _handlers[kind] = handler
    if label:
        _labels[kind] = label


def unregister_handler(kind: str) -> None:
    _handlers.pop(kind, None)
    _labels.pop(kind, None)


def _load_builtin() -> None:
    importlib.import_module("muse.worker.builtin")  # registers the built-in kinds


def handler_for(kind: str) -> Handler:
    _load_builtin()
    handler = _handlers.get(kind)
    if handler is None:
        known = "、".join(sorted(_handlers)) or "（无）"
        raise PermanentJobError(
            f"未知的任务类型「{kind}」，没有处理程序可以执行它。",
            hint=f"已知类型：{known}。该任务可能来自更新版本的 Muse。",
        )
    return handler


def kind_label(kind: str) -> str:
    _load_builtin()
    return _labels.get(kind, kind)


def skipped(reason: str, **extra: Any) -> Apply:
    """A step that ends the job done-as-skipped with ``reason``; it writes nothing."""
    return lambda _conn: {"skipped": True, "reason": reason, **extra}


def payload_int(job: ClaimedJob, *keys: str) -> int:
    """An integer from the payload under the first of ``keys`` present, or a permanent failure."""
    for key in keys:
        value = job.payload.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    raise PermanentJobError(f"任务 {job.id} 的参数缺少「{keys[0]}」，无法执行。")
