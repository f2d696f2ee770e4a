"""Start ``write N`` from the page and watch it live, node by node, then land on the candidate.

The run goes through :func:`muse.flow.production.write_chapter`, exactly as ``muse write`` does,
in a background thread (:class:`muse.web.tasks.TaskBoard`); the live page polls a fragment every
second with htmx. When the run has ended the fragment tells htmx to go to the candidate (or to
the run, when no candidate came out of it).
"""

from __future__ import annotations

from datetime import datetime

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from muse.core.errors import InvalidInput, MuseError
from muse.flow import RUN_STATE_LABELS, STEP_LABELS, show_run, write_chapter
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
        provider = form.required("provider", "模型提供方")
        model = form.required("model", "模型 ID")
        max_rewrites = form.integer("max_rewrites", "自动返修上限")
        if chapter is None:
            raise InvalidInput("请填写要写的章号。")
        with read(request) as conn:
            info = work_nav(conn, work_id)
        expected = (info.latest_chapter or 0) + 1
        if chapter != expected:
            raise InvalidInput(f"只能续写下一章（第 {expected} 章），不能直接写第 {chapter} 章。")
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

    def job(observer) -> TaskResult:
        summary = write_chapter(
            engine,
            work_id,
            chapter,
            provider=provider,
            model=model,
            observer=observer,
            max_rewrites=max_rewrites,
        )
        return summary_result(summary)

    task = request.app.state.tasks.start(
        "write", work_id, chapter, f"写第 {chapter} 章（{provider}/{model}）", job
    )
    return RedirectResponse(f"/tasks/{task.id}", status_code=303)


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


def _snapshot(request: Request, task_id: str) -> tuple[Task, list[dict]]:
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


def _row(node: str, status: str, attempt: int, ms: int) -> dict:
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
