"""The search index of canonical prose: chunking, tokenizing, building and refreshing the
index, and ranked search (tables ``search_chunks``, ``search_index_chapters``,
``search_index_works``; docs/architecture.md §7).

The rest of the package reaches it only through this face: :func:`search_query` /
:func:`search` / :func:`search_text` to read, :func:`refresh_index` / :func:`rebuild_index` /
:func:`index_chapter` to keep it current (``__all__`` below). The modules behind it:

    index       the read side: queries, hits, the as-of bound
    builder     building and refreshing a work's index, its version, the refresh job
    backend     matching and ranking chunks
    chunker     a chapter → chunks
    tokenizer   text → index terms, with the work's names kept whole
    tables      the index tables
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from muse.core.faces import lazy_face

if TYPE_CHECKING:
    from muse.context.search.builder import (
        REFRESH_JOB,
        IndexStatus,
        built_tokenizer,
        built_version,
        chapter_chunks,
        chunk_total,
        index_chapter,
        index_overview,
        index_status,
        rebuild_index,
        refresh_index,
        run_refresh_job,
    )
    from muse.context.search.index import Hit, search, search_query, search_text
    from muse.context.search.tokenizer import Tokenizer

__all__ = [
    "Hit",
    "IndexStatus",
    "REFRESH_JOB",
    "Tokenizer",
    "built_tokenizer",
    "built_version",
    "chapter_chunks",
    "chunk_total",
    "index_chapter",
    "index_overview",
    "index_status",
    "rebuild_index",
    "refresh_index",
    "run_refresh_job",
    "search",
    "search_query",
    "search_text",
]

_FACE: dict[str, tuple[str, ...]] = {
    "builder": (
        "IndexStatus",
        "REFRESH_JOB",
        "built_tokenizer",
        "built_version",
        "chapter_chunks",
        "chunk_total",
        "index_chapter",
        "index_overview",
        "index_status",
        "rebuild_index",
        "refresh_index",
        "run_refresh_job",
    ),
    "index": ("Hit", "search", "search_query", "search_text"),
    "tokenizer": ("Tokenizer",),
}

__getattr__, __dir__ = lazy_face(globals(), _FACE)
