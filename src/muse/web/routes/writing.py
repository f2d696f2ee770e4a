"""Start ``write N`` from the page and watch it live, node by node, then land on the candidate.

The run goes through :func:`muse.flow.production.write_chapter`, exactly as ``muse write`` does
(the writer model: the page's fields, prefilled with the work's ``muse models use writer``
choice), in a background thread (:class:`muse.web.tasks.TaskBoard`). The live page reads what is
stored, not the thread: the newest run of the chapter started since the page's request, its
finished nodes (``run_events``) and the node it is in (``runs.state``). So a restarted server,
or a second browser, or a ``muse write`` started in a terminal, shows the same progress; htmx
polls the fragment every second. When the run has ended the fragment tells htmx to go to the
candidate (or to the run, when no candidate came out of it). 改：… is a new run of the chapter
and is watched on the same page. The re-check of 修改后合并 has its own live page, read from the
edit's stored decision (by its command id) and its run. A run in a working node whose owner
process is dead (``flow.orphaned_runs``) is shown 已中断, with a button that runs the sweep of
``muse runs sweep``.
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
    load,
    newest_candidate_of_run,
    newest_run_since,
    orphaned_runs,
    previous_outcome,
    show_run,
    show_run_detail,
    sweep,
    write_chapter,
)
from muse.web.deps import engine_of, read, work_nav, zoned_for
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
    request: Request,
    work_id: int,
    chapter: int,
    since: str,
    task: str | None = None,
    what: str | None = None,
) -> Response:
    live = _live(request, work_id, chapter, since, task, what)
    title = f"改写第 {chapter} 章（新一轮）" if what == "revise" else f"写第 {chapter} 章"
    return page(request, "writing.html", title=title, **live)


@router.get("/works/{work_id}/writing/{chapter}/progress", response_class=HTMLResponse)
def live_progress(
    request: Request,
    work_id: int,
    chapter: int,
    since: str,
    task: str | None = None,
    what: str | None = None,
) -> Response:
    live = _live(request, work_id, chapter, since, task, what)
    response = page(request, "fragments/writing_progress.html", **live)
    if live["landing"] is not None:
        response.headers["HX-Redirect"] = live["landing"]
    elif live["ended"]:
        response.status_code = 286  # htmx: stop polling (nothing to land on; the page says why)
    return response


def _live(
    request: Request,
    work_id: int,
    chapter: int,
    since: str,
    task_id: str | None,
    what: str | None = None,
) -> dict[str, Any]:
    """What the live page shows, from the stored run (the task only for a start that failed
    before the run was stored)."""
    started = _since(since)
    task = _task(request, task_id)
    with read(request) as conn:
        info = work_nav(conn, work_id)
        run_id = newest_run_since(conn, work_id, chapter, started)
        run = show_run(conn, run_id) if run_id else None
        candidate = newest_candidate_of_run(conn, run_id) if run_id else None
        interrupted = bool(orphaned_runs(conn, [run_id])) if run_id else False
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
        "interrupted": False,
        "what": what,
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
        elif task.result is not None:  # a repeated 改：… started no run: where the first went
            out["ended"] = True
            result = task.result
            out["landing"] = (
                f"/candidates/{result.candidate_id}"
                if result.candidate_id
                else (f"/runs/{result.run_id}" if result.run_id else None)
            )
        return out
    out["rows"] = [  # finished nodes; the one in progress is the run's state
        _row(e["node"], e["status"], e["attempt"], e["durationMs"])
        for e in run["events"]
        if e["status"] != "started"
    ]
    if run["state"] in WORKING_NODES:
        out["current"] = RUN_STATE_LABELS.get(run["state"], run["state"])
        if interrupted:  # its process is gone: nobody will finish it (the page offers the sweep)
            out["interrupted"] = out["ended"] = True
        elif task is None:
            out["message"] = (
                "工作台重启过，或这次写作由别的进程运行：这里显示的是已落库的进度。运行它的进程"
                "若在本机中止，这里会显示「已中断」；在另一台机器上中止的，运行会在节点时限后"
                "被标记为超时（muse runs sweep）。"
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


@router.get("/candidates/{candidate_id}/editing", response_class=HTMLResponse)
def edit_page(
    request: Request, candidate_id: str, since: str, command: str, task: str | None = None
) -> Response:
    live = _edit_live(request, candidate_id, since, command, task)
    return page(request, "editing.html", title=f"修改后合并 · 第 {live['chapter']} 章", **live)


@router.get("/candidates/{candidate_id}/editing/progress", response_class=HTMLResponse)
def edit_progress(
    request: Request, candidate_id: str, since: str, command: str, task: str | None = None
) -> Response:
    live = _edit_live(request, candidate_id, since, command, task)
    response = page(request, "fragments/editing_progress.html", **live)
    if live["landing"] is not None:
        response.headers["HX-Redirect"] = live["landing"]
    elif live["ended"]:
        response.status_code = 286
    return response


def _edit_live(
    request: Request, candidate_id: str, since: str, command_id: str, task_id: str | None
) -> dict[str, Any]:
    """The re-check of 修改后合并, from what is stored: the edit's decision (by its command id:
    the new version, or the revision conflict it recorded), the run's node and the events it
    stored since the page's request. The task only says a start failed before anything was
    stored."""
    started = _since(since)
    task = _task(request, task_id)
    with read(request) as conn:
        cand, _ = load(conn, candidate_id)
        info = work_nav(conn, cand.work_id)
        run = show_run(conn, cand.run_id)
        interrupted = bool(orphaned_runs(conn, [cand.run_id]))
    decision = previous_outcome(engine_of(request), command_id, "edit_merge", candidate_id)
    out: dict[str, Any] = {
        "work": info,
        "chapter": cand.chapter,
        "version": cand.version,
        "candidate_id": candidate_id,
        "since": since,
        "command": command_id,
        "task_id": task_id,
        "run": run,
        "rows": _stored_rows(run, started),
        "current": None,
        "ended": False,
        "landing": None,
        "message": None,
        "interrupted": False,
        "decision": decision,
    }
    if decision is None:  # the edit has not been stored (yet)
        if task is None or task.error:
            out["ended"] = True
            out["message"] = (
                task.error
                if task is not None and task.error
                else "没有找到这次修改的记录：服务在修改落库之前重启了，什么也没有改。请重新修改。"
            )
        return out
    if decision.new_candidate_id is None:  # refused and recorded (a revision conflict)
        out["ended"] = True
        out["message"] = decision.message
        return out
    if run["state"] in WORKING_NODES:
        out["current"] = RUN_STATE_LABELS.get(run["state"], run["state"])
        out["interrupted"] = interrupted
        out["ended"] = interrupted
        return out
    out["ended"] = True
    out["landing"] = f"/candidates/{decision.new_candidate_id}"
    return out


def _since(since: str) -> datetime:
    try:
        return datetime.fromisoformat(since)
    except ValueError:
        raise InvalidInput(f"时间「{since}」无法识别。") from None


def _stored_rows(run: dict[str, Any], since: datetime) -> list[dict[str, Any]]:
    """The run's finished nodes stored at or after ``since`` (the node in progress is its state)."""
    return [
        _row(e["node"], e["status"], e["attempt"], e["durationMs"])
        for e in run["events"]
        if e["status"] != "started" and e["at"] and datetime.fromisoformat(e["at"]) >= since
    ]


@router.post("/runs/{run_id}/sweep", response_class=HTMLResponse)
def sweep_runs(request: Request, run_id: str) -> Response:
    """已中断 → end it: the same sweep as ``muse runs sweep`` (every run a dead process, a passed
    deadline or a long silence left behind), then back to the run."""
    report = sweep(engine_of(request))
    with read(request) as conn:
        data = show_run_detail(zoned_for(conn, "runs", run_id), run_id)
    lines = [
        f"运行 {t.run_id}：{RUN_STATE_LABELS.get(t.state, t.state)}。{t.reason}"
        for t in report.moved
    ] or ["没有需要清理的运行（它可能已经结束，或仍有进程在运行它）。"]
    return page(
        request,
        "queue_outcome.html",
        title="清理中断的运行",
        ok=bool(report.moved),
        lines=[*lines, f"共结束 {len(report.moved)} 个运行。"],
        work_id=data["workId"],
        back=f"../../runs/{run_id}",
    )


def _row(node: str, status: str, attempt: int, ms: int) -> dict[str, Any]:
    label = STEP_LABELS.get(node, RUN_STATE_LABELS.get(node, node))
    return {"label": label, "node": node, "status": status, "attempt": attempt, "ms": ms}
