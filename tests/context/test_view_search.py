"""Text search through an ``AsOfView``: the hits of a search on the connection, with the chunk
total (what every multi-word query weighs its words against) and the index's tokenizer read
once per view."""

from __future__ import annotations

import pytest
from sqlalchemy import event

from muse.context.as_of import AsOfView
from muse.context.search import index as si

from .test_search_index import CHAPTERS, book  # noqa: F401 - the fixture

QUERIES = ["萧炎 钟声 石阶 露水", "炎帝 掌心", "石阶", "徐凤年 骑马 众人", "没有 的"]


@pytest.mark.parametrize("as_of", [1, 3, CHAPTERS])
def test_a_views_searches_are_the_connections(engine, book, as_of):  # noqa: F811
    with engine.connect() as conn:
        view = AsOfView(conn, book, as_of)
        for query in QUERIES:
            for limit in (1, 3, 50):
                expected = si.search_text(conn, book, query, max_chapter=as_of, limit=limit)
                assert view.search_text(query, limit) == expected, (query, limit)


def test_a_view_reads_the_chunk_total_and_the_tokenizer_once(engine, book):  # noqa: F811
    totals: list[str] = []
    tokenizers: list[str] = []

    def count(conn, cursor, statement, parameters, context, executemany):
        if "sum(search_index_chapters.chunk_count)" in statement:
            totals.append(statement)
        if "search_index_works.dictionary_sha256" in statement:
            tokenizers.append(statement)

    event.listen(engine, "before_cursor_execute", count)
    try:
        with engine.connect() as conn:
            view = AsOfView(conn, book, CHAPTERS)
            for query in QUERIES:
                view.search_text(query, 10)
            assert len(totals) == 1 and len(tokenizers) == 1
            AsOfView(conn, book, 3).search_text(QUERIES[0], 10)  # another view reads its own
            assert len(totals) == 2 and len(tokenizers) == 2
            si.search_text(conn, book, QUERIES[0], max_chapter=3)  # without a view: read here
            assert len(totals) == 3 and len(tokenizers) == 3
    finally:
        event.remove(engine, "before_cursor_execute", count)


def test_a_view_of_a_work_without_an_index_still_says_so(engine):
    from muse.core.errors import NotFound
    from muse.works.catalog import create_work

    with engine.begin() as conn:
        work_id = create_work(conn, "无索引之书")
    with engine.connect() as conn:
        view = AsOfView(conn, work_id, 0)
        for _ in range(2):
            with pytest.raises(NotFound):
                view.search_text("萧炎 炎帝", 5)
