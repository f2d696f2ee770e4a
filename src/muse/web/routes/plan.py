"""Planning: the five stages with their state and what blocks the next, every section, and the
two decisions on a shadow section — confirm (``confirm_and_record``, the one confirmation
channel: a section that fails a gate is refused with its reasons) and discard."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, Response

from muse.core.errors import MuseError
from muse.planning import (
    confirm_and_record,
    discard_section,
    get_section,
    list_sections,
    plan_status,
)
from muse.web.deps import engine_of, read, work_nav
from muse.web.forms import Form, read_form
from muse.web.render import page

router = APIRouter()

SECTION_STATES = ("shadow", "confirmed", "discarded", "superseded")


@router.get("/works/{work_id}/plan", response_class=HTMLResponse)
def plan_page(request: Request, work_id: int) -> Response:
    with read(request) as conn:
        info = work_nav(conn, work_id)
        status = plan_status(conn, work_id)
        sections = list_sections(conn, work_id, states=SECTION_STATES)
    return page(request, "plan.html", title="规划", work=info, plan=status, sections=sections)


@router.get("/plan-sections/{section_id}", response_class=HTMLResponse)
def section_page(request: Request, section_id: str) -> Response:
    with read(request) as conn:
        section = get_section(conn, section_id)
        info = work_nav(conn, section.work_id)
    return page(request, "plan_section.html", title="规划条目", work=info, s=section)


@router.post("/plan-sections/{section_id}/confirm", response_class=HTMLResponse)
def confirm(request: Request, section_id: str, form: Form = Depends(read_form)) -> Response:
    try:
        warnings = confirm_and_record(engine_of(request), section_id)
    except MuseError as err:
        return _outcome(request, section_id, False, [err.message, *_details(err)])
    lines = ["已确认。"] + [f"提示：{w.message}" for w in warnings]
    return _outcome(request, section_id, True, lines)


@router.post("/plan-sections/{section_id}/discard", response_class=HTMLResponse)
def discard(request: Request, section_id: str, form: Form = Depends(read_form)) -> Response:
    try:
        with engine_of(request).begin() as conn:
            discard_section(conn, section_id)
    except MuseError as err:
        return _outcome(request, section_id, False, [err.message, *_details(err)])
    return _outcome(request, section_id, True, ["已丢弃（记录保留）。"])


def _details(err: MuseError) -> list[str]:
    findings = getattr(err, "findings", None) or []
    return [f"阻断：{f.message}" for f in findings] + ([err.hint] if err.hint else [])


def _outcome(request: Request, section_id: str, ok: bool, lines: list[str]) -> Response:
    with read(request) as conn:
        work_id = get_section(conn, section_id).work_id
    if not ok:
        lines = [*lines, "没有任何改动。"]
    return page(
        request,
        "queue_outcome.html",
        status_code=200 if ok else 409,
        title="已处理" if ok else "未执行",
        ok=ok,
        lines=lines,
        work_id=work_id,
        back="plan",
    )
