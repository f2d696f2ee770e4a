"""Canonical prose: revisions, compare-and-set, and two real writers racing."""

import threading

import pytest

from muse.core.canonical import sha256_hex
from muse.core.errors import InvalidInput, NotFound, RevisionConflict
from muse.store.engine import make_engine
from muse.works import catalog
from muse.works.canonical import add_chapter, write_revision


@pytest.fixture
def work(engine):
    with engine.begin() as conn:
        work_id = catalog.create_work(conn, "测试书")
        add_chapter(conn, work_id, 1, "开端", "第一章的正文。\r\n第二行")
    return work_id


def test_first_revision_is_normalised_and_hashed(engine, work):
    with engine.connect() as conn:
        chapter = catalog.get_chapter_text(conn, work, 1)
    assert chapter.revision == 1
    assert chapter.text == "第一章的正文。\n第二行"
    assert chapter.content_sha256 == sha256_hex("第一章的正文。\n第二行")
    assert chapter.han_count == 9


def test_write_revision_moves_forward_and_keeps_history(engine, work):
    with engine.begin() as conn:
        assert write_revision(conn, work, 1, "改过的正文", expected_revision=1, origin="edit") == 2
    with engine.connect() as conn:
        assert catalog.get_chapter_text(conn, work, 1).text == "改过的正文"
        assert catalog.get_revision_text(conn, work, 1, 1).text == "第一章的正文。\n第二行"
        assert [c.revision for c in catalog.list_chapters(conn, work)] == [2]


def test_stale_expected_revision_is_refused_and_writes_nothing(engine, work):
    with engine.begin() as conn:
        write_revision(conn, work, 1, "第二版", expected_revision=1, origin="edit")
    with pytest.raises(RevisionConflict), engine.begin() as conn:
        write_revision(conn, work, 1, "基于旧版的修改", expected_revision=1, origin="edit")
    with engine.connect() as conn:
        assert catalog.get_chapter_text(conn, work, 1).text == "第二版"
        with pytest.raises(NotFound):
            catalog.get_revision_text(conn, work, 1, 3)


def test_empty_text_and_missing_chapter_are_refused(engine, work):
    with pytest.raises(InvalidInput), engine.begin() as conn:
        write_revision(conn, work, 1, " \n ", expected_revision=1, origin="edit")
    with pytest.raises(NotFound), engine.begin() as conn:
        write_revision(conn, work, 9, "正文", expected_revision=1, origin="edit")


def test_two_writers_race_exactly_one_wins(db_url, work):
    outcomes: list[str] = []
    barrier = threading.Barrier(4)

    def writer(index: int) -> None:
        engine = make_engine(db_url)
        barrier.wait()
        try:
            with engine.begin() as conn:
                write_revision(
                    conn, work, 1, f"写手{index}的版本", expected_revision=1, origin="edit"
                )
            outcomes.append("won")
        except RevisionConflict:
            outcomes.append("conflict")
        except Exception as err:  # any other failure is a bug the assertion below must show
            outcomes.append(f"error: {err!r}")
        finally:
            engine.dispose()

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["conflict", "conflict", "conflict", "won"]
    engine = make_engine(db_url)
    with engine.connect() as conn:
        assert catalog.get_chapter_text(conn, work, 1).revision == 2
    engine.dispose()


def test_resolve_work_by_id_title_or_only_one(engine, work):
    with engine.begin() as conn:
        assert catalog.resolve_work(conn, None) == work
        assert catalog.resolve_work(conn, "测试书") == work
        assert catalog.resolve_work(conn, str(work)) == work
        catalog.create_work(conn, "第二本")
        with pytest.raises(InvalidInput):
            catalog.resolve_work(conn, None)
        with pytest.raises(NotFound):
            catalog.resolve_work(conn, "不存在的书")


def test_database_refuses_to_rewrite_a_stored_revision(engine, work):
    from sqlalchemy.exc import DBAPIError

    from muse.works.tables import prose_blocks

    with pytest.raises(DBAPIError, match="immutable"), engine.begin() as conn:
        conn.execute(prose_blocks.update().values(text="偷偷改掉"))
    with engine.connect() as conn:
        assert catalog.get_chapter_text(conn, work, 1).text == "第一章的正文。\n第二行"


def test_chapter_lengths_are_list_chapters_numbers_and_current_counts(engine, work):
    """The plan view's light read gives exactly list_chapters' (number, han_count) pairs, the
    current revision's count after an edit included, and nothing of another work."""
    with engine.begin() as conn:
        add_chapter(conn, work, 3, "第三", "第三章只有这些字")
        add_chapter(conn, work, 2, "第二", "")
        write_revision(conn, work, 1, "改短了", expected_revision=1, origin="edit")
        other = catalog.create_work(conn, "另一本")
        add_chapter(conn, other, 1, "别的", "别的书的正文很长很长")
    with engine.connect() as conn:
        expected = [(c.number, c.han_count) for c in catalog.list_chapters(conn, work)]
        assert catalog.chapter_lengths(conn, work) == expected == [(1, 3), (2, 0), (3, 8)]
