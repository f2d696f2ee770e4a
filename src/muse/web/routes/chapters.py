"""A chapter: canonical text (not hard-wrapped), every revision with who changed it and through
which decision or edit, the diff between any two revisions, and the source references into it;
and the author's own edit (``muse chapter edit``: :func:`muse.flow.chapter_edit.edit_chapter`),
a new revision checked against the revision the editor was opened on — an edit based on a
revision that is no longer current is refused (409) and the author's text stays in the page."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy import Connection

from muse.core.errors import MuseError, RevisionConflict
from muse.flow import diff_texts, edit_chapter
from muse.knowledge import refs_into_chapter
from muse.web.deps import actor, engine_of, read, work_nav
from muse.web.forms import Form, read_form
from muse.web.render import error_status, page
from muse.works import chapter_history, get_chapter_text, get_revision_text, list_chapters

router = APIRouter()

ORIGIN_LABELS = {"import": "导入", "accept": "采纳候选", "edit": "作者编辑", "revert": "回退"}


@router.get("/works/{work_id}/chapters", response_class=HTMLResponse)
def chapter_list(request: Request, work_id: int) -> Response:
    with read(request) as conn:
        info = work_nav(conn, work_id)
        chapters = list_chapters(conn, work_id)
    return page(request, "chapters.html", title="章节", work=info, chapters=chapters)


@router.get("/works/{work_id}/chapters/{number}", response_class=HTMLResponse)
def chapter(
    request: Request,
    work_id: int,
    number: int,
    rev: int | None = None,
    a: int | None = None,
    b: int | None = None,
    saved: int | None = None,
) -> Response:
    with read(request) as conn:
        info = work_nav(conn, work_id)
        history = chapter_history(conn, work_id, number)
        current = get_chapter_text(conn, work_id, number)
        shown = get_revision_text(conn, work_id, number, rev) if rev else current
        diff = _diff(conn, work_id, number, a, b) if a and b else None
        refs = refs_into_chapter(conn, work_id, number)
    return page(
        request,
        "chapter.html",
        title=f"第 {number} 章 {shown.title}",
        work=info,
        chapter=shown,
        current=current,
        history=list(reversed(history)),
        origin_labels=ORIGIN_LABELS,
        diff=diff,
        pair=(a, b),
        refs=refs,
        saved=saved,
    )


@router.get("/works/{work_id}/chapters/{number}/edit", response_class=HTMLResponse)
def edit_page(request: Request, work_id: int, number: int) -> Response:
    with read(request) as conn:
        info = work_nav(conn, work_id)
        current = get_chapter_text(conn, work_id, number)
    return _editor(request, info, current, current.text, current.revision)


@router.post("/works/{work_id}/chapters/{number}/edit", response_class=HTMLResponse)
def save_edit(
    request: Request, work_id: int, number: int, form: Form = Depends(read_form)
) -> Response:
    text = form.get("text") or ""
    try:
        expected = form.integer("expected_revision", "所基于的修订版")
        if expected is None:
            raise RevisionConflict("缺少所基于的修订版，未写入。", hint="请重新打开编辑页。")
        outcome = edit_chapter(
            engine_of(request),
            work_id,
            number,
            text,
            expected_revision=expected,
            actor=actor(),
            source="工作台",
        )
    except MuseError as err:
        with read(request) as conn:
            info = work_nav(conn, work_id)
            current = get_chapter_text(conn, work_id, number)
        stale = isinstance(err, RevisionConflict)
        return _editor(
            request,
            info,
            current,
            text,
            expected if expected is not None and not stale else current.revision,
            status_code=409 if stale else error_status(err),
            refused=[
                err.message,
                *([err.hint] if err.hint and not stale else []),
                *(
                    [
                        f"你的修改仍在下面的编辑框里（基于修订版 {expected}）；"
                        f"当前正式正文是修订版 {current.revision}：请对照后在最新修订版上重新提交。"
                    ]
                    if stale
                    else []
                ),
                "没有任何改动。",
            ],
        )
    return RedirectResponse(
        f"/works/{work_id}/chapters/{number}?saved={outcome.revision}", status_code=303
    )


def _editor(
    request: Request,
    info: Any,
    current: Any,
    text: str,
    base: int,
    status_code: int = 200,
    refused: list[str] | None = None,
) -> Response:
    return page(
        request,
        "chapter_edit.html",
        status_code=status_code,
        title=f"修改第 {current.number} 章",
        work=info,
        current=current,
        text=text,
        base=base,
        refused=refused,
    )


def _diff(conn: Connection, work_id: int, number: int, a: int, b: int) -> dict[str, Any]:
    old = get_revision_text(conn, work_id, number, a)
    new = get_revision_text(conn, work_id, number, b)
    return diff_texts(old.text, new.text).to_dict(f"修订版 {a}", f"修订版 {b}")
