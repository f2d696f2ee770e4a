"""An author's edit of a chapter that a waiting shadow candidate's context read makes that
candidate's accept fail as source_stale (spec 000 §9: sourceStatus and contextSnapshot checked
live at accept)."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from muse.context.tables import context_snapshots
from muse.flow.accept import accept_candidate
from muse.flow.chapter_edit import edit_chapter, revert_chapter
from muse.flow.tables import candidates, runs
from muse.works import catalog
from tests.support.fakes import write_ready
from tests.support.marked_book import NEXT, chapter_text, make_book


@pytest.fixture
def book(engine) -> int:
    return make_book(engine)


def test_chapter_edit_makes_the_next_chapters_candidate_source_stale(engine, book):
    summary = write_ready(engine, book, NEXT)
    edit_chapter(engine, book, NEXT - 1, chapter_text(NEXT - 1) + "\n\n作者在结尾加了一句。")
    outcome = accept_candidate(engine, summary.candidate_id)
    assert outcome.state == "source_stale" and f"第 {NEXT - 1} 章" in outcome.message
    with engine.connect() as conn:
        assert catalog.latest_chapter_number(conn, book) == NEXT - 1
        run_state = conn.execute(select(runs.c.state).where(runs.c.id == summary.run_id)).scalar()
        cand_state = conn.execute(
            select(candidates.c.state).where(candidates.c.id == summary.candidate_id)
        ).scalar()
    assert (run_state, cand_state) == ("source_stale", "PASSED")


def test_revert_to_the_read_text_still_counts_as_changed(engine, book):
    """The context read revision 1; revision 3 holds the same text but is not what was read."""
    summary = write_ready(engine, book, NEXT)
    edit_chapter(engine, book, NEXT - 1, "作者把上一章整个重写了。")
    revert_chapter(engine, book, NEXT - 1, to_revision=1)
    assert accept_candidate(engine, summary.candidate_id).state == "source_stale"


def test_edit_of_a_chapter_the_context_did_not_read_leaves_the_candidate_acceptable(
    engine,
    book,
):
    summary = write_ready(engine, book, NEXT)
    with engine.connect() as conn:
        read = conn.execute(
            select(context_snapshots.c.chapter_revisions)
            .join(candidates, candidates.c.context_snapshot_id == context_snapshots.c.id)
            .where(candidates.c.id == summary.candidate_id)
        ).scalar_one()
    unread = [n for n in range(1, NEXT) if str(n) not in read]
    assert unread, read  # the baseline reads the last four chapters of the eight
    edit_chapter(engine, book, unread[0], chapter_text(unread[0]) + "\n\n补记。")
    assert accept_candidate(engine, summary.candidate_id).accepted
