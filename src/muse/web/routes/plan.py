"""Planning: the five stages with their state and what blocks the next, every section, drafting
a stage with the planner (``muse plan draft``: :func:`muse.planning.planner.draft_stage`, the
model from the page's fields, prefilled with the work's ``muse models use planner`` choice), and
the two decisions on a shadow section — confirm (``confirm_and_record``, the one confirmation
channel: a section that fails a gate is refused with its reasons) and discard."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from muse.agents import recorded_choice, resolve_offered, work_choices
from muse.core.errors import MuseError
from muse.planning import (
    STAGES,
    confirm_and_record,
    discard_section,
    draft_stage,
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
        planner = work_choices(conn, work_id).get("planner")
    return page(
        request,
        "plan.html",
        title="规划",
        work=info,
        plan=status,
        sections=sections,
        stages=STAGES,
        next_chapter=(info.latest_chapter or 0) + 1,
        planner=(planner.provider, planner.model) if planner else ("offline", "offline-1"),
    )


@router.post("/works/{work_id}/plan/draft", response_class=HTMLResponse)
def draft(request: Request, work_id: int, form: Form = Depends(read_form)) -> Response:
    """``muse plan draft STAGE [--chapter N] [-k K] [--note …]``: the drafts are always Shadow."""
    engine = engine_of(request)
    try:
        stage = form.required("stage", "阶段")
        chapter = form.integer("chapter", "章号")
        variants = form.integer("variants", "变体数") or 1
        note = (form.get("note") or "").strip() or None
        choice = resolve_offered(
            engine, work_id, "planner", form.get("provider"), form.get("model")
        )
        with recorded_choice(choice):
            drafted = draft_stage(
                engine,
                work_id,
                stage,
                provider=choice.provider,
                model=choice.model,
                variants=variants,
                chapter=chapter if stage in ("4", "细纲") else None,
                note=note,
            )
    except MuseError as err:
        lines = [err.message, *_details(err), "没有任何改动。"]
        return page(
            request,
            "queue_outcome.html",
            status_code=400,
            title="没有起草",
            ok=False,
            lines=lines,
            work_id=work_id,
            back="plan",
        )
    sections = [d.section_id for d in drafted if d.section_id]
    if len(drafted) == 1 and sections:
        return RedirectResponse(f"/plan-sections/{sections[0]}?drafted=1", status_code=303)
    lines = [
        f"变体 {d.variant}：{d.section_id or f'卡片草稿 {len(d.card_drafts)} 份（到「草稿」逐张确认）'}"
        for d in drafted
    ]
    return page(
        request,
        "queue_outcome.html",
        title="已起草（Shadow）",
        ok=True,
        lines=lines,
        work_id=work_id,
        back="plan",
    )


@router.get("/plan-sections/{section_id}", response_class=HTMLResponse)
def section_page(request: Request, section_id: str, drafted: int = 0) -> Response:
    with read(request) as conn:
        section = get_section(conn, section_id)
        info = work_nav(conn, section.work_id)
    return page(
        request, "plan_section.html", title="规划条目", work=info, s=section, drafted=drafted
    )


@router.post("/plan-sections/{section_id}/confirm", response_class=HTMLResponse)
def confirm(request: Request, section_id: str, form: Form = Depends(read_form)) -> Response:
    try:
        warnings = confirm_and_record(engine_of(request), section_id)
    except MuseError as err:
        return _outcome(request, section_id, False, [err.message, *_details(err)])
    lines = ["已确认。"] + [f"提示：{w.message}" for w in warnings]
    return _outcome(request, section_id, True, lines, next_write=True)


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


def _outcome(
    request: Request, section_id: str, ok: bool, lines: list[str], next_write: bool = False
) -> Response:
    with read(request) as conn:
        section = get_section(conn, section_id)
        work_id = section.work_id
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
        write_chapter=section.target_chapter if next_write and section.stage == 4 else None,
    )
