"""A small marked book: every chapter carries a unique marker so leaks are detectable
(``tests/support/marked_book.py``), here with a confirmed fine outline for chapters 2–9."""

import pytest

from muse.planning.fine_outlines import confirm_section, save_fine_outline
from muse.works.canonical import add_chapter
from muse.works.catalog import create_work
from tests.support.marked_book import CHAPTERS, chapter_text, fine_outline


@pytest.fixture
def marked_book(engine):
    with engine.begin() as conn:
        work_id = create_work(conn, "标记之书", default_chapter_chars=2500)
        for n in range(1, CHAPTERS + 1):
            add_chapter(conn, work_id, n, f"第{n}章", chapter_text(n))
        for n in range(2, CHAPTERS + 2):
            confirm_section(conn, save_fine_outline(conn, work_id, fine_outline(n)))
    return work_id
