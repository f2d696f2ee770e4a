"""Start ``write N`` from the page and watch it live, node by node, then land on the candidate.

The run goes through :func:`muse.flow.production.write_chapter`, exactly as ``muse write`` does
(the writer model: the page's fields, prefilled with the work's ``muse models use writer``
choice), in a background thread (:class:`muse.web.tasks.TaskBoard`). The live page reads what is
stored, not the thread: the newest run of the chapter started since the page's request, its
finished nodes (``run_events``) and the node it is in (``runs.state``). So a restarted server,
or a second browser, or a ``muse write`` started in a terminal, shows the same progress; htmx
polls the fragment every second. When the run has ended the fragment tells htmx to go to the
candidate (or to the run, when no candidate came out of it). 改：… and the re-check of 修改后合并
still use the task pages (``/tasks/…``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from muse.agents import recorded_choice, resolve_offered
from muse.core.clock import iso, utc_now
from muse.core.errors import InvalidInput, MuseError
from muse.flow import (
    RUN_STATE_LABELS,
    STEP_LABELS,
    WORKING_NODES,
    Observer,
    newest_candidate_of_run,
    newest_run_since,
    show_run,
    write_chapter,
)
from muse.web.deps import engine_of, read, work_nav
from muse.web.forms import Form, read_form
from muse.web.render import page
from muse.web.tasks import Task, TaskResult, summary_result

router = APIRouter()


@router.post("/works/{work_id}/write", response_class=HTMLResponse)
def start_write(request: Request, work_id: int, form: Form = Depends(read_form)) -> Response:
    engine = engine_of(request)
    try:
        chapter = form.integer("chapter", "章号")
        max_rewrites = form.integer("max_rewrites", "自动返修上限")
        if chapter is None:
            raise InvalidInput("请填写要写的章号。")
        with read(request) as conn:
            info = work_nav(conn, work_id)
        expected = (info.latest_chapter or 0) + 1
        if chapter != expected:
            raise InvalidInput(f"只能续写下一章（第 {expected} 章），不能直接写第 {chapter} 章。")
        choice = resolve_offered(engine, work_id, "writer", form.get("provider"), form.get("model"))
    except MuseError as err:
        return page(
            request,
            "queue_outcome.html",
            status_code=400,
            title="没有开始写作",
            ok=False,
            lines=[err.message, *([err.hint] if err.hint else [])],
            work_id=work_id,
            back="",
        )

    def job(observer: Observer) -> TaskResult:
        with recorded_choice(choice):
            summary = write_chapter(
                engine,
                work_id,
                chapter,
                provider=choice.provider,
                model=choice.model,
                observer=observer,
                max_rewrites=max_rewrites,
            )
        return summary_result(summary)

    since = utc_now()
    task = request.app.state.tasks.start(
        "write", work_id, chapter, f"写第 {chapter} 章（{choice.provider}/{choice.model}）", job
    )
    return RedirectResponse(
        f"/works/{work_id}/writing/{chapter}?since={iso(since)}&task={task.id}", status_code=303
    )


@router.get("/works/{work_id}/writing/{chapter}", response_class=HTMLResponse)
def live_page(
    request: Request, work_id: int, chapter: int, since: str, task: str | None = None
) -> Response:
    live = _live(request, work_id, chapter, since, task)
    return page(request, "writing.html", title=f"写第 {chapter} 章", **live)


@router.get("/works/{work_id}/writing/{chapter}/progress", response_class=HTMLResponse)
def live_progress(
    request: Request, work_id: int, chapter: int, since: str, task: str | None = None
) -> Response:
    live = _live(request, work_id, chapter, since, task)
    response = page(request, "fragments/writing_progress.html", **live)
    if live["landing"] is not None:
        response.headers["HX-Redirect"] = live["landing"]
    elif live["ended"]:
        response.status_code = 286  # htmx: stop polling (nothing to land on; the page says why)
    return response


def _live(
    request: Request, work_id: int, chapter: int, since: str, task_id: str | None
) -> dict[str, Any]:
    """What the live page shows, from the stored run (the task only for a start that failed
    before the run was stored)."""
    try:
        started = datetime.fromisoformat(since)
    except ValueError:
        raise InvalidInput(f"时间「{since}」无法识别。") from None
    task = _task(request, task_id)
    with read(request) as conn:
        info = work_nav(conn, work_id)
        run_id = newest_run_since(conn, work_id, chapter, started)
        run = show_run(conn, run_id) if run_id else None
        candidate = newest_candidate_of_run(conn, run_id) if run_id else None
    out: dict[str, Any] = {
        "work": info,
        "chapter": chapter,
        "since": since,
        "task_id": task_id,
        "run": run,
        "rows": [],
        "current": None,
        "ended": False,
        "landing": None,
        "message": None,
    }
    if run is None:
        if task is None:
            out["ended"] = True
            out["message"] = (
                "没有找到这次写作的运行：服务在运行落库之前重启了，什么也没有写入。请回到作品首页重新开始。"
            )
        elif task.error:
            out["ended"] = True
            out["message"] = task.error
        return out
    out["rows"] = [  # finished nodes; the one in progress is the run's state
        _row(e["node"], e["status"], e["attempt"], e["durationMs"])
        for e in run["events"]
        if e["status"] != "started"
    ]
    if run["state"] in WORKING_NODES:
        out["current"] = RUN_STATE_LABELS.get(run["state"], run["state"])
        if task is None:
            out["message"] = (
                "工作台重启过：这里显示的是已落库的进度。若写作进程已中止，"
                "运行会在节点时限后被标记为超时（muse runs sweep）。"
            )
        return out
    out["ended"] = True
    out["landing"] = f"/candidates/{candidate}" if candidate else f"/runs/{run['id']}"
    return out


def _task(request: Request, task_id: str | None) -> Task | None:
    if task_id is None:
        return None
    try:
        return request.app.state.tasks.snapshot(task_id)[0]  # type: ignore[no-any-return]
    except MuseError:
        return None  # the server restarted: only what is stored is known


@router.get("/tasks/{task_id}", response_class=HTMLResponse)
def task_page(request: Request, task_id: str) -> Response:
    task, rows = _snapshot(request, task_id)
    return page(
        request, "task.html", title=task.title, task=task, rows=rows, landing=_landing(task)
    )


@router.get("/tasks/{task_id}/progress", response_class=HTMLResponse)
def task_progress(request: Request, task_id: str) -> Response:
    task, rows = _snapshot(request, task_id)
    response = page(
        request, "fragments/task_progress.html", task=task, rows=rows, landing=_landing(task)
    )
    landing = _landing(task)
    if landing is not None:
        response.headers["HX-Redirect"] = landing
    elif task.done:
        response.status_code = 286  # htmx: stop polling (the run ended without a page to open)
    return response


def _snapshot(request: Request, task_id: str) -> tuple[Task, list[dict[str, Any]]]:
    """The task and its steps so far: what the observer reported, else (an edit) the events the
    service stored for the run since the task started."""
    task, events = request.app.state.tasks.snapshot(task_id)
    if events or task.run_id is None:
        return task, [_row(e.node, e.status, e.attempt, e.elapsed_ms) for e in events]
    with read(request) as conn:
        stored = show_run(conn, task.run_id)["events"]
    rows = [
        _row(e["node"], e["status"], e["attempt"], e["durationMs"])
        for e in stored
        if e["at"] and datetime.fromisoformat(e["at"]) >= task.since
    ]
    return task, rows


def _row(node: str, status: str, attempt: int, ms: int) -> dict[str, Any]:
    label = STEP_LABELS.get(node, RUN_STATE_LABELS.get(node, node))
    return {"label": label, "node": node, "status": status, "attempt": attempt, "ms": ms}


def _landing(task: Task) -> str | None:
    if task.result is None:
        return None
    if task.result.candidate_id:
        return f"/candidates/{task.result.candidate_id}"
    if task.kind == "edit":
        return None  # no new version (a stale revision): stay and show why
    if task.result.run_id:
        return f"/runs/{task.result.run_id}"
    return None
