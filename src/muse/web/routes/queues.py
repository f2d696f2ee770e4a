"""What waits for the author besides candidates: card drafts, conflicts, fact deltas, jobs.

Decisions go through the knowledge services the CLI calls, in one transaction per submission
(several drafts confirmed at once either all land or none does, as with ``muse drafts confirm``).
A decision on something already decided is refused by the service; the page says so (409).
"""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, Response

from muse.core.errors import InvalidInput, MuseError
from muse.knowledge import (
    FACT_TYPE_LABELS,
    RESOLUTION_LABELS,
    approve_fact_delta,
    card_type,
    confirm_all,
    confirm_draft,
    fact_ledger_entries,
    list_conflicts,
    list_drafts,
    list_fact_deltas,
    reject_draft,
    reject_fact_delta,
    resolve_conflict,
)
from muse.store.jobs import list_jobs
from muse.web.deps import actor, engine_of, read, work_nav
from muse.web.forms import Form, read_form
from muse.web.render import page

router = APIRouter()


@router.get("/works/{work_id}/drafts", response_class=HTMLResponse)
def drafts(request: Request, work_id: int, all: int = 0) -> Response:
    with read(request) as conn:
        info = work_nav(conn, work_id)
        items = list_drafts(conn, work_id, status=None if all else "pending")
    labels = {d.id: card_type(d.type).label for d in items}
    return page(
        request, "drafts.html", title="卡片草稿", work=info, drafts=items, labels=labels, all=all
    )


@router.get("/works/{work_id}/conflicts", response_class=HTMLResponse)
def conflicts(request: Request, work_id: int, all: int = 0) -> Response:
    with read(request) as conn:
        info = work_nav(conn, work_id)
        items = list_conflicts(conn, work_id, status=None if all else "open")
    return page(
        request,
        "conflicts.html",
        title="冲突队列",
        work=info,
        conflicts=items,
        labels=RESOLUTION_LABELS,
        all=all,
    )


@router.get("/works/{work_id}/facts", response_class=HTMLResponse)
def facts(request: Request, work_id: int, status: str = "proposed") -> Response:
    with read(request) as conn:
        info = work_nav(conn, work_id)
        deltas = list_fact_deltas(conn, work_id, status=None if status == "all" else status)
        ledger = fact_ledger_entries(conn, work_id)
    return page(
        request,
        "facts.html",
        title="事实增量与台账",
        work=info,
        deltas=deltas,
        ledger=ledger,
        type_labels=FACT_TYPE_LABELS,
        status=status,
    )


@router.get("/works/{work_id}/jobs", response_class=HTMLResponse)
def jobs(request: Request, work_id: int) -> Response:
    with read(request) as conn:
        info = work_nav(conn, work_id)
        items = list_jobs(conn, work_id=work_id, limit=500)
    return page(request, "jobs.html", title="任务队列", work=info, jobs=items)


@router.post("/works/{work_id}/drafts/decide", response_class=HTMLResponse)
def decide_drafts(request: Request, work_id: int, form: Form = Depends(read_form)) -> Response:
    action, ids, who = form.get("action"), form.all("draft_id"), actor()
    try:
        with engine_of(request).begin() as conn:
            if action == "confirm_all":
                outcomes = confirm_all(conn, work_id, decided_by=who)
            elif not ids:
                raise InvalidInput("请至少勾选一份草稿。")
            elif action == "confirm":
                outcomes = [confirm_draft(conn, i, decided_by=who) for i in ids]
            elif action == "reject":
                note = form.get("note") or None
                outcomes = [reject_draft(conn, i, decided_by=who, note=note) for i in ids]
            else:
                raise InvalidInput(f"未知的操作「{action}」。")
    except MuseError as err:
        return _refused(request, work_id, "drafts", err)
    lines = [_draft_line(o) for o in outcomes] or ["没有可确认的草稿（有冲突的须先处理冲突）。"]
    return _done(request, work_id, "drafts", lines)


def _draft_line(outcome) -> str:
    if outcome.status == "conflict":
        return f"未确认：{outcome.name} 出现 {len(outcome.conflicts)} 个新冲突，请先处理冲突。"
    verb = "已驳回" if outcome.status == "rejected" else "已确认"
    return f"{verb}：{outcome.name}"


@router.post("/conflicts/{conflict_id}/resolve", response_class=HTMLResponse)
def resolve(request: Request, conflict_id: str, form: Form = Depends(read_form)) -> Response:
    work_id = catalog_work_of_form(form)
    choice = form.get("resolution") or ""
    try:
        if choice not in RESOLUTION_LABELS:
            raise InvalidInput("请在「保留原卡」「采用草稿」「合并」中选一个。")
        with engine_of(request).begin() as conn:
            result = resolve_conflict(
                conn,
                conflict_id,
                choice,  # type: ignore[arg-type]  # checked against RESOLUTION_LABELS above
                value=form.get("value") or None,
            )
    except MuseError as err:
        return _refused(request, work_id, "conflicts", err)
    line = f"已处理：{result.card_name} 的{result.subject_label}（{RESOLUTION_LABELS[choice]}）"
    return _done(request, work_id, "conflicts", [line])


@router.post("/fact-deltas/{delta_id}/decide", response_class=HTMLResponse)
def decide_fact(request: Request, delta_id: str, form: Form = Depends(read_form)) -> Response:
    work_id = catalog_work_of_form(form)
    action, who = form.get("action"), actor()
    try:
        with engine_of(request).begin() as conn:
            if action == "approve":
                entry = approve_fact_delta(conn, delta_id, decided_by=who)
                line = f"已入台账：第 {entry.chapter} 章 {entry.subject}"
            elif action == "reject":
                reject_fact_delta(conn, delta_id, decided_by=who, note=form.get("note") or None)
                line = f"已驳回：{delta_id}"
            else:
                raise InvalidInput(f"未知的操作「{action}」。")
    except MuseError as err:
        return _refused(request, work_id, "facts", err)
    return _done(request, work_id, "facts", [line])


def catalog_work_of_form(form: Form) -> int | None:
    """The work the form came from (for the way back); the decision itself does not use it."""
    raw = form.get("work_id")
    return int(raw) if raw and raw.isdigit() else None


def _done(request: Request, work_id: int | None, back: str, lines: list[str]) -> Response:
    return page(
        request,
        "queue_outcome.html",
        title="已处理",
        ok=True,
        lines=lines,
        work_id=work_id,
        back=back,
    )


def _refused(request: Request, work_id: int | None, back: str, err: MuseError) -> Response:
    return page(
        request,
        "queue_outcome.html",
        status_code=409,
        title="未执行",
        ok=False,
        lines=[err.message, *([err.hint] if err.hint else []), "没有任何改动。"],
        work_id=work_id,
        back=back,
    )
