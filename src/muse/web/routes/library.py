"""What the writer's context is built from besides the prose and the cards: pattern cards
(范式) and their bindings, style profiles (文风), the search index (per chapter: the indexed
revision, chunk count and state; the index version; one chapter's chunks), and the derived
caches (the card change token and the stored card book). Read-only, through each domain's own
read functions."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from muse.context import chapter_chunks, index_overview
from muse.knowledge import cache_overview
from muse.patterns import list_bindings, list_patterns, list_style_profiles
from muse.web.deps import read, work_nav
from muse.web.render import page

router = APIRouter()

INDEX_PAGE = 100  # chapters per page of the index table (the state counts cover the whole book)

INDEX_STATES = {
    "fresh": "最新",
    "stale": "过期（修订版已变）",
    "missing": "未索引",
    "orphaned": "已无此章",
}


@router.get("/works/{work_id}/library", response_class=HTMLResponse)
def library(request: Request, work_id: int, at: int = 0) -> Response:
    with read(request) as conn:
        info = work_nav(conn, work_id)
        patterns = list_patterns(conn, work_id, all_versions=True)
        bindings = list_bindings(conn, work_id)
        styles = list_style_profiles(conn, work_id)
        index = index_overview(conn, work_id, offset=max(at, 0), limit=INDEX_PAGE)
        caches = cache_overview(conn, work_id)
    return page(
        request,
        "library.html",
        title="范式·文风·索引",
        work=info,
        patterns=patterns,
        bindings=bindings,
        styles=styles,
        index=index,
        caches=caches,
        index_states=INDEX_STATES,
        page_size=INDEX_PAGE,
    )


@router.get("/works/{work_id}/index/{chapter}", response_class=HTMLResponse)
def index_chapter_page(request: Request, work_id: int, chapter: int) -> Response:
    with read(request) as conn:
        info = work_nav(conn, work_id)
        chunks = chapter_chunks(conn, work_id, chapter)
    return page(
        request,
        "index_chapter.html",
        title=f"检索索引 · 第 {chapter} 章",
        work=info,
        chapter=chapter,
        chunks=chunks,
    )
