"""The context viewer: the frozen WriterContext a candidate was written from, exactly as stored.

Every manifest source with its reason, chapter, offsets, hash and tokens; a token bar per budget
category against its budget (:func:`muse.context.budget_view.budget_usage`); omitted sources with
the reason; coverage per fine-outline element; the length target with its inputs; and each of the
round's seven input items on demand.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from muse.context import budget_usage, round_inputs
from muse.core.errors import NotFound
from muse.flow import context_summary, load_context
from muse.web.deps import read, work_nav
from muse.web.render import page

router = APIRouter()

COVERAGE_LABELS = {
    "supported": "证据充分",
    "declared_new": "细纲新设",
    "card_gap": "缺卡",
    "style_gap": "缺表现样本",
    "unsupported": "无证据（阻断）",
    "conflict": "冲突（阻断）",
}


@router.get("/contexts/{snapshot_id}", response_class=HTMLResponse)
def context_page(request: Request, snapshot_id: str) -> Response:
    with read(request) as conn:
        summary = _summary(conn, snapshot_id)
        context = load_context(conn, snapshot_id)
        info = work_nav(conn, context.work_id)
    bars, unbudgeted = budget_usage(context)
    items = [(r.position, r.title, r.summary, list(r.content)) for r in round_inputs(context)]
    return page(
        request,
        "context.html",
        title=f"上下文 · 第 {context.target_chapter} 章",
        work=info,
        s=summary,
        ctx=context,
        bars=bars,
        unbudgeted=unbudgeted,
        coverage_labels=COVERAGE_LABELS,
        length=context.output_contract.length_target,
        omitted=list(context.omitted_sources) + list(context.manifest.omitted_sources),
        items=items,
    )


@router.get("/contexts/{snapshot_id}/items/{position}", response_class=HTMLResponse)
def round_item(request: Request, snapshot_id: str, position: int) -> Response:
    """One of the seven input items in full (loaded when the author opens it)."""
    with read(request) as conn:
        _summary(conn, snapshot_id)
        context = load_context(conn, snapshot_id)
    found = [r for r in round_inputs(context) if r.position == position]
    if not found:
        raise NotFound(f"输入项只有第 1–7 项，没有第 {position} 项。")
    item = found[0]
    return page(request, "fragments/round_item.html", item=item)


def _summary(conn, snapshot_id: str) -> dict:
    summary = context_summary(conn, snapshot_id)
    if summary.get("missing"):
        raise NotFound(f"上下文快照 {snapshot_id} 不存在。")
    return summary
