"""A committed 西游记 work with a search index and a confirmed card whose references point into
chapters 1 and 2 — what an author's edit must keep consistent."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine, select

from muse.context.search import index as search_index
from muse.knowledge.cards import insert_card
from muse.knowledge.contracts import CardStatus
from muse.knowledge.source_refs import ChapterTexts, locate_quote
from muse.knowledge.tables import source_refs
from muse.store.tables import jobs
from muse.works.canonical import add_chapter
from muse.works.catalog import create_work
from tests.knowledge.conftest import spec, text_of
from tests.knowledge.xiyouji import CHAPTERS


@pytest.fixture
def xiyou(engine: Engine) -> int:
    with engine.begin() as conn:
        work_id = create_work(conn, "西游记")
        for number, (title, text) in CHAPTERS.items():
            add_chapter(conn, work_id, number, title, text)
        texts = ChapterTexts(conn, work_id)
        refs = [locate_quote(texts, 1, "石猴"), locate_quote(texts, 2, "菩提")]
        insert_card(conn, work_id, spec(refs=refs), CardStatus.confirmed)
        search_index.rebuild_index(conn, work_id)
    return work_id


def ref_state(engine: Engine, work_id: int) -> dict[tuple[int, str], tuple[bool, int]]:
    """(chapter, quote) → (stale, chapter revision) of every reference of the work."""
    with engine.connect() as conn:
        rows = conn.execute(select(source_refs).where(source_refs.c.work_id == work_id))
        return {(r.chapter, r.quote): (bool(r.stale), r.chapter_revision) for r in rows}


def extract_jobs(engine: Engine) -> list[dict]:
    with engine.connect() as conn:
        rows = conn.execute(
            select(jobs.c.payload)
            .where(jobs.c.kind == "extract_chapter")
            .order_by(jobs.c.created_at)
        )
        return [dict(r.payload) for r in rows]


__all__ = ["extract_jobs", "ref_state", "text_of"]
