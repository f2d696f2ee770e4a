"""Planning: the five stages with their state and what blocks the next, every section, drafting
a stage with the planner (``muse plan draft``: :func:`muse.planning.planner.draft_stage`, the
model from the page's fields, prefilled with the work's ``muse models use planner`` choice), and
the two decisions on a shadow section — confirm (``confirm_and_record``, the one confirmation
channel: a section that fails a gate is refused with its reasons) and discard.

Editing a stage's YAML in the page is ``muse plan edit`` (``export_text`` in, ``save_edited_text``
out: the same validation and messages; a stage that moved on since the editor opened is a 409
and the author's text stays). Batch outlines are ``muse plan draft 4 --chapters A-B``
(``create_outline_batch`` in the request, so a bad range or a blocked gate is refused at once;
``run_batch`` in the background); the batch page reads the stored batch and its items and polls
while it runs; 续跑 is ``muse plan resume``."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from muse.agents import recorded_choice, resolve_offered, work_choices
from muse.core.errors import InvalidInput, MuseError, StaleTransition
from muse.flow import Observer
from muse.planning import (
    STAGES,
    batch_items,
    confirm_and_record,
    create_outline_batch,
    discard_section,
    draft_stage,
    export_text,
    get_batch,
    get_section,
    list_sections,
    plan_status,
    resume_batch,
    run_batch,
    save_edited_text,
    stage_of,
    stage_revision,
)
from muse.web.deps import engine_of, read, work_nav
from muse.web.forms import Form, read_big_form, read_form
from muse.web.render import error_status, page
from muse.web.tasks import TaskResult

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


@router.get("/works/{work_id}/plan/edit", response_class=HTMLResponse)
def edit_page(
    request: Request,
    work_id: int,
    stage: str,
    chapter: int | None = None,
    id: str | None = None,  # noqa: A002 - the CLI's --id
) -> Response:
    """``muse plan edit STAGE [--chapter N] [--id S]`` in the page: the stage's YAML as export
    writes it (the given section, else the newest shadow, else the confirmed one, else a blank
    template), with the stage's revision the save is checked against."""
    with read(request) as conn:
        info = work_nav(conn, work_id)
        st = stage_of(stage)
        text = export_text(conn, work_id, st.number, chapter=chapter, section_id=id)
        base = stage_revision(conn, work_id, st.number, chapter=chapter)
    return _plan_editor(request, info, st.number, chapter, text, base)


@router.post("/works/{work_id}/plan/edit", response_class=HTMLResponse)
def save_edit(request: Request, work_id: int, form: Form = Depends(read_big_form)) -> Response:
    text = form.get("text") or ""
    with read(request) as conn:
        info = work_nav(conn, work_id)
    try:
        st = stage_of(form.required("stage", "阶段"))
        chapter = form.integer("chapter", "章号")
        with engine_of(request).begin() as conn:
            saved = save_edited_text(
                conn,
                work_id,
                st.number,
                text,
                chapter=chapter,
                expected_revision=form.get("base") or None,
            )
    except MuseError as err:
        stale = isinstance(err, StaleTransition)
        lines = [*err.message.splitlines(), *([err.hint] if err.hint else []), "没有任何改动。"]
        return _plan_editor(
            request,
            info,
            form.get("stage") or "",
            int(chapter_text) if (chapter_text := form.get("chapter") or "").isdigit() else None,
            text,
            form.get("base") or "",
            status_code=409 if stale else error_status(err),
            refused=lines,
        )
    return RedirectResponse(f"/plan-sections/{saved.section_id}?edited=1", status_code=303)


def _plan_editor(
    request: Request,
    info: object,
    stage: int | str,
    chapter: int | None,
    text: str,
    base: str,
    status_code: int = 200,
    refused: list[str] | None = None,
) -> Response:
    try:
        label = stage_of(stage).label
    except MuseError:
        label = str(stage)
    return page(
        request,
        "plan_edit.html",
        status_code=status_code,
        title=f"编辑 {label}",
        work=info,
        stage=stage,
        label=label,
        chapter=chapter,
        text=text,
        base=base,
        refused=refused,
    )


@router.post("/works/{work_id}/plan/batch", response_class=HTMLResponse)
def start_batch(request: Request, work_id: int, form: Form = Depends(read_form)) -> Response:
    """``muse plan draft 4 --chapters A-B``: the batch is stored (or refused) now, drafted in the
    background; its page shows the stored items as they are done."""
    engine = engine_of(request)
    try:
        first = form.integer("first", "起始章")
        last = form.integer("last", "结束章")
        if first is None or last is None:
            raise InvalidInput("请填写批次的起始章和结束章。")
        note = (form.get("note") or "").strip() or None
        choice = resolve_offered(
            engine, work_id, "planner", form.get("provider"), form.get("model")
        )
        with recorded_choice(choice):
            batch_id = create_outline_batch(
                engine,
                work_id,
                first,
                last,
                provider=choice.provider,
                model=choice.model,
                note=note,
            )
    except MuseError as err:
        return page(
            request,
            "queue_outcome.html",
            status_code=400,
            title="没有开始批次",
            ok=False,
            lines=[err.message, *_details(err), "没有任何改动。"],
            work_id=work_id,
            back="plan",
        )

    def job(observer: Observer) -> TaskResult:
        with recorded_choice(choice):
            report = run_batch(engine, batch_id)
        return TaskResult(None, None, report.state, report.last_error)

    request.app.state.tasks.start("batch", work_id, first, f"细纲批次 第 {first}–{last} 章", job)
    return RedirectResponse(f"/plan-batches/{batch_id}", status_code=303)


@router.get("/plan-batches/{batch_id}", response_class=HTMLResponse)
def batch_page(request: Request, batch_id: str) -> Response:
    live = _batch(request, batch_id)
    return page(request, "plan_batch.html", title=f"细纲批次 {batch_id}", **live)


@router.get("/plan-batches/{batch_id}/progress", response_class=HTMLResponse)
def batch_progress(request: Request, batch_id: str) -> Response:
    live = _batch(request, batch_id)
    response = page(request, "fragments/batch_progress.html", **live)
    if live["batch"].state != "running":
        response.status_code = 286  # htmx: stop polling
    return response


@router.post("/plan-batches/{batch_id}/resume", response_class=HTMLResponse)
def resume(request: Request, batch_id: str, form: Form = Depends(read_form)) -> Response:
    """``muse plan resume``: take the batch over (compare-and-set on its attempts) and continue
    from its first unfinished item, in the background."""
    engine = engine_of(request)
    with read(request) as conn:
        batch = get_batch(conn, batch_id)
    if batch.state == "completed":
        return RedirectResponse(f"/plan-batches/{batch_id}", status_code=303)

    def job(observer: Observer) -> TaskResult:
        report = resume_batch(engine, batch_id)
        return TaskResult(None, None, report.state, report.last_error)

    request.app.state.tasks.start(
        "batch", batch.work_id, batch.first or 0, f"续跑细纲批次 {batch_id}", job
    )
    return RedirectResponse(f"/plan-batches/{batch_id}?resumed=1", status_code=303)


def _batch(request: Request, batch_id: str) -> dict[str, Any]:
    with read(request) as conn:
        batch = get_batch(conn, batch_id)
        items = batch_items(conn, batch_id)
        info = work_nav(conn, batch.work_id)
    return {"work": info, "batch": batch, "items": items}


@router.get("/plan-sections/{section_id}", response_class=HTMLResponse)
def section_page(request: Request, section_id: str, drafted: int = 0, edited: int = 0) -> Response:
    with read(request) as conn:
        section = get_section(conn, section_id)
        info = work_nav(conn, section.work_id)
    return page(
        request,
        "plan_section.html",
        title="规划条目",
        work=info,
        s=section,
        drafted=drafted,
        edited=edited,
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
