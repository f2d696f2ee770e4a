"""The author's decisions on a candidate, through the same services as the CLI.

采纳 (``accept_candidate``, with the fact deltas ticked on the page), 修改后合并
(``edit_candidate``, against the expected revision shown in the editor), 改：… (``revise_candidate``,
started in the background and watched live on the ``write N`` page: it is a new run of the
chapter), 丢弃 (``discard_candidate``). Every form carries
the command id it was rendered with, so a double click is one decision (the service returns the
first outcome, marked repeated). A stale decision is refused by the service with its Chinese
message and nothing changes; the page shows the message with status 409.
"""

from __future__ import annotations

from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from muse.core.clock import iso, utc_now
from muse.core.errors import InvalidInput, MuseError
from muse.core.ids import new_id
from muse.flow import (
    Observer,
    accept_candidate,
    discard_candidate,
    edit_candidate,
    load,
    propose_candidate_facts,
    revise_candidate,
)
from muse.web.deps import WorkNav, actor, engine_of, read, work_nav
from muse.web.forms import Form, read_form
from muse.web.render import page
from muse.web.tasks import TaskResult, summary_result

router = APIRouter()


@router.post("/candidates/{candidate_id}/accept", response_class=HTMLResponse)
def accept(request: Request, candidate_id: str, form: Form = Depends(read_form)) -> Response:
    try:
        outcome = accept_candidate(
            engine_of(request),
            candidate_id,
            command_id=form.get("command_id") or None,
            actor=actor(),
            approve_facts=form.all("approve_fact"),
            approve_all_facts=form.get("approve_all_facts") == "1",
        )
    except MuseError as err:
        return _refused(request, candidate_id, "采纳", err)
    return _outcome(
        request,
        candidate_id,
        ok=outcome.accepted,
        message=outcome.message,
        repeated=outcome.repeated,
        chapter=outcome.chapter if outcome.accepted else None,
        extra=[f"已入台账的事实增量：{'、'.join(outcome.approved_facts)}"]
        if outcome.approved_facts
        else [],
    )


@router.post("/candidates/{candidate_id}/facts", response_class=HTMLResponse)
def propose_facts(request: Request, candidate_id: str, form: Form = Depends(read_form)) -> Response:
    """Ask the extractor for the candidate's fact deltas (proposals only, as ``muse candidate
    facts --propose``); they enter the ledger only if ticked at 采纳."""
    try:
        result = propose_candidate_facts(
            engine_of(request),
            candidate_id,
            provider=form.required("provider", "抽取模型提供方"),
            model=form.required("model", "抽取模型 ID"),
        )
    except MuseError as err:
        return _refused(request, candidate_id, "提出事实增量", err)
    lines = [
        f"已提出 {len(result.deltas)} 条事实增量，采纳时勾选即随正文入台账。",
        *result.findings,
    ]
    return _outcome(
        request, candidate_id, ok=True, message=lines[0], repeated=False, extra=lines[1:]
    )


@router.post("/candidates/{candidate_id}/edit", response_class=HTMLResponse)
def edit(request: Request, candidate_id: str, form: Form = Depends(read_form)) -> Response:
    """Save the edited text as a new version; its checks run in the background, shown live."""
    engine = engine_of(request)
    try:
        expected = form.integer("expected_revision", "所依据的修订版")
        body = form.get("body") or ""
        if not body.strip():
            raise InvalidInput("修改后的正文是空的。", hint="请提供完整的章节正文。")
        with read(request) as conn:
            cand, _ = load(conn, candidate_id)
    except MuseError as err:
        return _refused(request, candidate_id, "修改", err)
    # the live page finds the edit's stored decision by this id, so it always has one
    command_id, who = form.get("command_id") or new_id("edit"), actor()

    def job(observer: Observer) -> TaskResult:
        outcome = edit_candidate(
            engine,
            candidate_id,
            body,
            expected_revision=expected,
            command_id=command_id,
            actor=who,
        )
        findings = [f"[{f['severity']}] {f['kind']}：{f['message']}" for f in outcome.findings]
        repeated = ["（重复提交，未再次执行）"] if outcome.repeated else []
        return TaskResult(
            cand.run_id,
            outcome.new_candidate_id,
            outcome.state,
            None,
            (outcome.message, *repeated, *findings),
        )

    since = utc_now()
    task = request.app.state.tasks.start(
        "edit",
        cand.work_id,
        cand.chapter,
        f"修改后合并 · 第 {cand.chapter} 章 v{cand.version}",
        job,
        run_id=cand.run_id,
    )
    query = urlencode({"since": iso(since), "command": command_id, "task": task.id})
    return RedirectResponse(f"/candidates/{candidate_id}/editing?{query}", status_code=303)


@router.post("/candidates/{candidate_id}/discard", response_class=HTMLResponse)
def discard(request: Request, candidate_id: str, form: Form = Depends(read_form)) -> Response:
    try:
        outcome = discard_candidate(
            engine_of(request),
            candidate_id,
            command_id=form.get("command_id") or None,
            actor=actor(),
        )
    except MuseError as err:
        return _refused(request, candidate_id, "丢弃", err)
    return _outcome(
        request, candidate_id, ok=outcome.ok, message=outcome.message, repeated=outcome.repeated
    )


@router.post("/candidates/{candidate_id}/revise", response_class=HTMLResponse)
def revise(request: Request, candidate_id: str, form: Form = Depends(read_form)) -> Response:
    words = (form.get("words") or "").strip()
    engine = engine_of(request)
    try:
        if not words:
            raise InvalidInput("改写指令不能为空。", hint="例如：改：把结尾的钩子改成悬念")
        with read(request) as conn:
            cand, _ = load(conn, candidate_id)
    except MuseError as err:
        return _refused(request, candidate_id, "改写", err)
    command_id, who = form.get("command_id") or None, actor()

    def job(observer: Observer) -> TaskResult:
        outcome = revise_candidate(
            engine, candidate_id, words, command_id=command_id, actor=who, observer=observer
        )
        if outcome.summary is not None:
            return summary_result(outcome.summary)
        return TaskResult(outcome.new_run_id, None, outcome.state, "同一命令已执行过")

    since = utc_now()
    task = request.app.state.tasks.start(
        "revise", cand.work_id, cand.chapter, f"第 {cand.chapter} 章 · {words}", job
    )
    query = urlencode({"since": iso(since), "task": task.id, "what": "revise"})
    return RedirectResponse(
        f"/works/{cand.work_id}/writing/{cand.chapter}?{query}", status_code=303
    )


def _outcome(
    request: Request,
    candidate_id: str,
    *,
    ok: bool,
    message: str,
    repeated: bool,
    chapter: int | None = None,
    extra: list[str] | None = None,
) -> Response:
    with read(request) as conn:
        cand, _ = load(conn, candidate_id)
        work = work_nav(conn, cand.work_id)
    return page(
        request,
        "outcome.html",
        work=work,
        status_code=200 if ok else 409,
        title="决定已执行" if ok else "决定未执行",
        ok=ok,
        message=message,
        repeated=repeated,
        extra=extra or [],
        candidate_id=candidate_id,
        work_id=cand.work_id,
        chapter=chapter,
    )


def _refused(request: Request, candidate_id: str, what: str, err: MuseError) -> Response:
    """A stale or impossible decision: its message, status 409/404, nothing changed; a link to the
    candidate page, which lists the run's versions and their states (the newer one, if any)."""
    work = _work_of(request, candidate_id)
    return page(
        request,
        "outcome.html",
        work=work,
        status_code=404 if err.__class__.__name__ == "NotFound" else 409,
        title=f"不能{what}",
        ok=False,
        message=err.message,
        hint=err.hint,
        repeated=False,
        extra=["没有任何改动。"],
        candidate_id=candidate_id,
        work_id=work.id if work else None,
        chapter=None,
    )


def _work_of(request: Request, candidate_id: str) -> WorkNav | None:
    try:
        with read(request) as conn:
            cand, _ = load(conn, candidate_id)
            return work_nav(conn, cand.work_id)
    except MuseError:
        return None
