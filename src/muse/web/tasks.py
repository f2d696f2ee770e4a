"""Writing runs started from the page: a background thread each, watched by htmx polling.

``muse write N``, ``改：…`` and the re-check of 修改后合并 take as long as the model takes. The page starts the run through
the same service the CLI calls (:func:`muse.flow.production.write_chapter`,
:func:`muse.flow.revise.revise_candidate`, :func:`muse.flow.edit_merge.edit_candidate`) in a
thread of its own. The live pages read what the service stores (the run, its events, the edit's
decision), never this board, so a restarted server shows the same progress; the board only
keeps what a thread ended with, for a start that failed before anything was stored. A run
whose thread died with the server is seen by its owner (``runs.owner``): the page says 已中断.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from muse.core.clock import utc_now
from muse.core.errors import MuseError, NotFound
from muse.core.ids import new_id
from muse.flow import NodeEvent, Observer

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TaskResult:
    run_id: str | None
    candidate_id: str | None  # where the page lands when the task ends (None: stay, show why)
    state: str
    reason: str | None = None
    lines: tuple[str, ...] = ()  # what the service said (an edit's outcome and findings)


@dataclass
class Task:
    id: str
    kind: str  # write | revise
    work_id: int
    chapter: int
    title: str
    run_id: str | None = None  # known up front for an edit: its stored events are shown live
    since: datetime = field(default_factory=utc_now)
    events: list[NodeEvent] = field(default_factory=list)
    result: TaskResult | None = None
    error: str | None = None

    @property
    def done(self) -> bool:
        return self.result is not None or self.error is not None


Job = Callable[[Observer], TaskResult]


_running: set[threading.Thread] = set()  # every board's threads still running, process-wide
_running_lock = threading.Lock()


def wait_for_tasks(timeout: float) -> bool:
    """Wait until every background task of the process has ended (or ``timeout`` seconds have
    passed); whether none is left. For a clean stop: a test's database is emptied only after
    the writes it started have stored their last row."""
    deadline = time.monotonic() + timeout
    while True:
        with _running_lock:
            left = list(_running)
        if not left:
            return True
        for thread in left:
            thread.join(max(0.0, deadline - time.monotonic()))
        if time.monotonic() >= deadline:
            with _running_lock:
                return not _running


class TaskBoard:
    def __init__(self) -> None:
        self._tasks: dict[str, Task] = {}
        self._lock = threading.Lock()

    def start(
        self, kind: str, work_id: int, chapter: int, title: str, job: Job, run_id: str | None = None
    ) -> Task:
        task = Task(new_id("task"), kind, work_id, chapter, title, run_id)
        with self._lock:
            self._tasks[task.id] = task
        thread = threading.Thread(target=self._run, args=(task, job), daemon=True, name=task.id)
        with _running_lock:
            _running.add(thread)
        thread.start()
        return task

    def get(self, task_id: str) -> Task:
        with self._lock:
            task = self._tasks.get(task_id)
        if task is None:
            raise NotFound(
                f"找不到任务 {task_id}（服务重启后实时视图不保留）。",
                hint="运行本身已落库：到作品首页的「运行」里查看。",
            )
        return task

    def snapshot(self, task_id: str) -> tuple[Task, list[NodeEvent]]:
        task = self.get(task_id)
        with self._lock:
            return task, list(task.events)

    def _run(self, task: Task, job: Job) -> None:
        def observe(event: NodeEvent) -> None:
            with self._lock:
                task.events.append(event)

        try:
            result = job(observe)
        except MuseError as err:
            task.error = err.message + (f"（{err.hint}）" if err.hint else "")
        except Exception as err:  # the thread must end with a message, never silently
            log.exception("background %s failed", task.kind)
            task.error = f"运行意外中止：{type(err).__name__}。已落库的记录不受影响。"
        else:
            task.result = result
        finally:
            with _running_lock:
                _running.discard(threading.current_thread())


def summary_result(summary: Any) -> TaskResult:
    """A :class:`RunSummary` as the board shows it."""
    return TaskResult(summary.run_id, summary.candidate_id, summary.state, summary.reason)
