"""``prose_slices``: the spans a search hit points to, cut from the revision it names.

The answer is checked against each revision's text read one by one; on SQLite the query plan is
checked too: the chapters named are looked up, never every chapter of the work walked.
"""

from __future__ import annotations

import pytest
from sqlalchemy import event

from muse.core.errors import NotFound
from muse.works import catalog
from muse.works.canonical import add_chapter, write_revision


@pytest.fixture
def works(engine):
    """Two works whose chapters share numbers; chapter 2 of the first has two revisions."""
    with engine.begin() as conn:
        first = catalog.create_work(conn, "甲书")
        second = catalog.create_work(conn, "乙书")
        for number in range(1, 6):
            add_chapter(conn, first, number, f"第{number}章", f"甲书第{number}章的正文，林远来了。")
            add_chapter(conn, second, number, f"第{number}章", f"乙书第{number}章的正文。")
        write_revision(conn, first, 2, "甲书第二章改过的正文。", expected_revision=1, origin="edit")
    return first, second


def _expected(conn, work_id: int, spans) -> list[str | None]:
    out: list[str | None] = []
    for number, revision, start, end in spans:
        try:
            out.append(catalog.get_revision_text(conn, work_id, number, revision).text[start:end])
        except NotFound:  # a revision the work does not have
            out.append(None)
    return out


def test_each_span_is_cut_from_the_revision_it_names(engine, works):
    first, second = works
    spans = [
        (2, 1, 0, 4),  # the old revision of chapter 2
        (2, 2, 2, 6),  # its current revision
        (5, 1, 3, 7),
        (1, 1, 0, 3),
        (5, 1, 0, 2),  # the same chapter twice
        (3, 2, 0, 4),  # a revision chapter 3 does not have
        (9, 1, 0, 4),  # a chapter the work does not have
    ]
    with engine.connect() as conn:
        got = catalog.prose_slices(conn, first, spans)
        assert got == _expected(conn, first, spans)
        assert got[:4] == ["甲书第2", "第二章改", "5章的正", "甲书第"]
        assert got[5:] == [None, None]
        # the other work's chapters with the same numbers never answer
        assert catalog.prose_slices(conn, second, [(2, 2, 0, 4), (2, 1, 0, 4)]) == [None, "乙书第2"]
        assert catalog.prose_slices(conn, first, []) == []


def test_sqlite_looks_up_the_chapters_named(engine, works):
    if engine.dialect.name != "sqlite":
        pytest.skip("a SQLite query plan")
    first, _ = works
    captured: list[tuple[str, object]] = []

    def capture(conn, cursor, statement, parameters, context, executemany):
        if "prose_blocks.text" in statement:
            captured.append((statement, parameters))

    event.listen(engine, "before_cursor_execute", capture)
    try:
        with engine.connect() as conn:
            catalog.prose_slices(conn, first, [(2, 1, 0, 4), (5, 1, 0, 4)])
            statement, parameters = captured[-1]
            plan = " | ".join(
                row[3]
                for row in conn.exec_driver_sql("EXPLAIN QUERY PLAN " + statement, parameters)
            )
    finally:
        event.remove(engine, "before_cursor_execute", capture)
    # every chapter of the work walked reads "(work_id=?)" alone; a lookup names the number too
    assert "work_id=? AND number=?" in plan, plan
