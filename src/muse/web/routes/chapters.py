"""A chapter: canonical text (not hard-wrapped), every revision with who changed it and through
which decision or edit, the diff between any two revisions, and the source references into it."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from muse.flow import diff_texts
from muse.knowledge import refs_into_chapter
from muse.web.deps import read, work_nav
from muse.web.render import page
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
    )


def _diff(conn, work_id: int, number: int, a: int, b: int) -> dict:
    old = get_revision_text(conn, work_id, number, a)
    new = get_revision_text(conn, work_id, number, b)
    return diff_texts(old.text, new.text).to_dict(f"修订版 {a}", f"修订版 {b}")
