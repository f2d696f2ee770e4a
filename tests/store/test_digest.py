"""store.digest: one string per side, equal only when the (number, revision) pairs are; the
index refresh it short-cuts still re-indexes a stale chapter and drops a lost one."""

from __future__ import annotations

from sqlalchemy import delete, select

from muse.context.search import index as si
from muse.context.search.builder import refresh_index
from muse.context.search.tables import search_index_chapters
from muse.store.digest import pairs_digest
from muse.works import chapter_revisions, chapter_revisions_digest
from muse.works.canonical import add_chapter, write_revision
from muse.works.catalog import create_work

TEXTS = ["林远下山，遇见苏晴。", "苏晴进城，买了一匹马。", "韩立来了，带来一封信。"]


def _indexed(conn, work: int) -> str:
    table = search_index_chapters
    return pairs_digest(conn, table.c.chapter, table.c.revision, table.c.work_id == work)


def _pairs(digest: str) -> set[str]:
    return set(digest.split(",")) if digest else set()


def test_the_digests_agree_exactly_when_the_pairs_do(engine) -> None:
    with engine.begin() as conn:
        work = create_work(conn, "摘要之书")
        assert chapter_revisions_digest(conn, work) == "" == _indexed(conn, work)
        for n, text in enumerate(TEXTS, 1):
            add_chapter(conn, work, n, f"第{n}章", text)
        digest = chapter_revisions_digest(conn, work)
        assert _pairs(digest) == {f"{n}:{r}" for n, r in chapter_revisions(conn, work).items()}
        si.rebuild_index(conn, work)
        assert _indexed(conn, work) == digest or _pairs(_indexed(conn, work)) == _pairs(digest)

        write_revision(conn, work, 2, "苏晴出城。", expected_revision=1, origin="edit")
        assert chapter_revisions_digest(conn, work) != _indexed(conn, work)  # chapter 2 is stale
        refresh_index(conn, work)
        rows = conn.execute(
            select(search_index_chapters.c.chapter, search_index_chapters.c.revision).where(
                search_index_chapters.c.work_id == work
            )
        ).all()
        assert dict(rows) == chapter_revisions(conn, work) == {1: 1, 2: 2, 3: 1}

        conn.execute(
            delete(search_index_chapters).where(
                search_index_chapters.c.work_id == work, search_index_chapters.c.chapter == 3
            )
        )
        assert chapter_revisions_digest(conn, work) != _indexed(conn, work)  # 3 is missing
        refresh_index(conn, work)
        assert _pairs(_indexed(conn, work)) == _pairs(chapter_revisions_digest(conn, work))
