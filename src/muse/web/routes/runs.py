"""Runs: the list, and one run — node timeline with durations and attempts, every model call with
its receipt (prompt and raw output on demand), the tool-read ledger, events, evidence requests."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from muse.agents import HEAVY_COLUMNS, receipt_of, receipt_summaries, tool_reads_of_run
from muse.core.errors import NotFound
from muse.flow import chapter_token_caches, list_runs, orphaned_runs, show_run_detail, zone
from muse.web.deps import read, work_nav, zoned_for
from muse.web.render import page
from muse.works import get_snapshot

router = APIRouter()


@router.get("/works/{work_id}/runs", response_class=HTMLResponse)
def run_list(request: Request, work_id: int) -> Response:
    with read(request) as conn:
        info = work_nav(conn, work_id)
        rows = list_runs(conn, work_id, limit=500)
        # the evaluation zone, shown apart (production reads never see it: muse.flow.zones)
        rows += [
            r for r in list_runs(zone(conn), work_id, limit=500) if r["runType"] != "production"
        ]
    production = [r for r in rows if r["runType"] == "production"]
    caches = {c: v for c, v in chapter_token_caches(production).items() if v["share"] is not None}
    return page(request, "runs.html", title="运行记录", work=info, runs=rows, chapter_caches=caches)


@router.get("/runs/{run_id}", response_class=HTMLResponse)
def run_page(request: Request, run_id: str) -> Response:
    with read(request) as conn:
        conn = zoned_for(conn, "runs", run_id)
        data = show_run_detail(conn, run_id)
        info = work_nav(conn, data["workId"])
        auth_id = data["authorizationSnapshotId"]
        auth = get_snapshot(conn, auth_id) if auth_id else None
        receipts = receipt_summaries(conn, run_id)
        reads = tool_reads_of_run(conn, run_id)
        interrupted = bool(orphaned_runs(conn, [run_id]))  # its process is gone: 已中断
    return page(
        request,
        "run.html",
        title=f"运行 · 第 {data['chapter']} 章",
        work=info,
        r=data,
        receipts=receipts,
        reads=reads,
        auth=auth,
        interrupted=interrupted,
    )


@router.get("/model-calls/{call_id}", response_class=HTMLResponse)
def model_call(request: Request, call_id: str) -> Response:
    """A model call's prompt, messages, request parameters and raw output (opened on demand)."""
    with read(request) as conn:
        call = receipt_of(conn, call_id)
    if call is None:
        raise NotFound(f"模型调用 {call_id} 不存在。")
    return page(
        request, "fragments/model_call.html", call=call, fields=HEAVY_COLUMNS, title="模型调用"
    )
