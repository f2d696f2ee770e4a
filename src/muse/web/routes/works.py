"""The works list and one work's overview: planning stages, chapters, queues, recent runs."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy import Connection

from muse.agents import ModelChoice, work_choices
from muse.flow import list_candidates, list_runs
from muse.knowledge import list_conflicts, list_drafts, list_fact_deltas
from muse.planning import FINE_OUTLINE, confirmed_section, plan_status
from muse.store.jobs import list_jobs
from muse.web.deps import read
from muse.web.render import page
from muse.works import list_chapters, list_works, work_info

router = APIRouter()


@router.get("/", response_class=HTMLResponse)
def home(request: Request) -> Response:
    with read(request) as conn:
        works = list_works(conn)
    if len(works) == 1:
        return RedirectResponse(f"/works/{works[0].id}", status_code=303)
    return page(request, "works.html", title="作品", works=works)


@router.get("/works", response_class=HTMLResponse)
def all_works(request: Request) -> Response:
    with read(request) as conn:
        works = list_works(conn)
    return page(request, "works.html", title="作品", works=works)


@router.get("/works/{work_id}", response_class=HTMLResponse)
def overview(request: Request, work_id: int, imported: str | None = None) -> Response:
    with read(request) as conn:
        info = work_info(conn, work_id)
        chapters = list_chapters(conn, work_id, last=20)  # the count is work_info's
        status = plan_status(conn, work_id)
        runs = list_runs(conn, work_id, limit=10)
        queues = _queues(conn, work_id)
        choices = work_choices(conn, work_id)
        next_chapter = (info.latest_chapter or 0) + 1
        outline = confirmed_section(conn, work_id, FINE_OUTLINE.number, next_chapter)
    return page(
        request,
        "work.html",
        title=info.title,
        work=info,
        chapters=chapters,
        plan=status,
        runs=runs,
        queues=queues,
        next_chapter=next_chapter,
        outline_ready=outline is not None,
        last_model=_writer_model(choices, runs),
        imported=imported,
    )


def _queues(conn: Connection, work_id: int) -> dict[str, int]:
    """What waits for the author, counted from the services' own lists."""
    waiting = [c for c in list_candidates(conn, work_id) if c["state"] == "PASSED"]
    jobs = list_jobs(conn, work_id=work_id, limit=1000)
    return {
        "candidates": len(waiting),
        "drafts": len(list_drafts(conn, work_id)),
        "conflicts": len(list_conflicts(conn, work_id, status="open")),
        "facts": len(list_fact_deltas(conn, work_id, status="proposed")),
        "jobs": sum(1 for j in jobs if j.status in ("queued", "running", "failed")),
    }


def _writer_model(choices: dict[str, ModelChoice], runs: list[dict[str, Any]]) -> tuple[str, str]:
    """The write form starts with the work's writer choice (``muse models use writer``), else the
    provider and model of the latest production run, else offline."""
    if "writer" in choices:
        return choices["writer"].provider, choices["writer"].model
    for run in runs:
        if run["runType"] == "production":
            return run["provider"], run["model"]
    return "offline", "offline-1"
