"""The worker: runs the queued jobs (post-chapter extraction, index refresh) — ``muse worker``.

    store.jobs      the queue: enqueue, claim (SKIP LOCKED / BEGIN IMMEDIATE), finish, backoff
    handlers        the registry of job kinds: a handler prepares outside any transaction (a
                    model call) and returns the step that writes its effects; that step runs in
                    the same transaction that marks the job done, so effects commit once
    builtin         the built-in kinds: ``extract_chapter`` and ``search_index.refresh``
    loop            :class:`Worker`: ``run_once`` (every due job, then return) and ``run_forever``

Several workers (threads or processes, on one or several machines) may run at once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from muse.core.faces import lazy_face

if TYPE_CHECKING:
    from muse.worker.handlers import kind_label
    from muse.worker.loop import JobRun, Worker

__all__ = ["JobRun", "Worker", "kind_label"]

_FACE: dict[str, tuple[str, ...]] = {
    "handlers": ("kind_label",),
    "loop": ("JobRun", "Worker"),
}

__getattr__, __dir__ = lazy_face(globals(), _FACE)
