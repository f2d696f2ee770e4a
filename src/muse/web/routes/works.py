"""The works list and one work's overview: planning stages, chapters, queues, recent runs."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from muse.flow import list_candidates, list_runs
from muse.knowledge import list_conflicts, list_drafts, list_fact_deltas
from muse.planning import plan_status
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


@router.get("/works/{work_id}", response_class=HTMLResponse)
def overview(request: Request, work_id: int) -> Response:
    with read(request) as conn:
        info = work_info(conn, work_id)
        chapters = list_chapters(conn, work_id)
        status = plan_status(conn, work_id)
        runs = list_runs(conn, work_id, limit=10)
        queues = _queues(conn, work_id)
    return page(
        request,
        "work.html",
        title=info.title,
        work=info,
        chapters=chapters,
        plan=status,
        runs=runs,
        queues=queues,
        next_chapter=(info.latest_chapter or 0) + 1,
        last_model=_last_model(runs),
    )


def _queues(conn, work_id: int) -> dict[str, int]:
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


def _last_model(runs: list[dict]) -> tuple[str, str]:
    """The write form starts with the provider and model of the latest run (else offline)."""
    for run in runs:
        if run["runType"] == "production":
            return run["provider"], run["model"]
    return "offline", "offline-1"
