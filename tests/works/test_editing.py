"""An author's edit and revert of canonical text: a new revision, and derived data that follows
in the same transaction (index, source references, extraction job)."""

from __future__ import annotations

import threading

import pytest
from sqlalchemy import func, select

from muse.context.search import index as search_index
from muse.core.errors import InvalidInput, NotFound, RevisionConflict
from muse.flow.chapter_edit import edit_chapter, revert_chapter
from muse.knowledge.setting_gates import setting_ledger
from muse.store.engine import make_engine
from muse.store.tables import jobs
from muse.works import catalog
from muse.works.history import chapter_history
from muse.works.tables import prose_blocks
from tests.support.cards import extract_jobs, ref_state, text_of

EDITED = text_of(1).replace("石猴", "灵猴")


def _search(engine, work_id, word):
    with engine.connect() as conn:
        return [h.chapter for h in search_index.search(conn, work_id, [word], max_chapter=9)]


def test_edit_writes_the_next_revision_with_author_attribution(engine, xiyou):
    outcome = edit_chapter(engine, xiyou, 1, EDITED, source="第一回.txt")
    assert (outcome.previous_revision, outcome.revision, outcome.origin) == (1, 2, "edit")
    with engine.connect() as conn:
        current = catalog.get_chapter_text(conn, xiyou, 1)
        block = conn.execute(
            select(prose_blocks.c.origin, prose_blocks.c.attribution).where(
                prose_blocks.c.content_sha256 == current.content_sha256
            )
        ).one()
        first = catalog.get_revision_text(conn, xiyou, 1, 1)
    assert current.revision == 2 and "灵猴" in current.text and "石猴" not in current.text
    assert outcome.content_sha256 == current.content_sha256
    assert block.origin == "edit"
    assert block.attribution == {
        "kind": "author_edit",
        "actor": "author",
        "source": "第一回.txt",
        "basedOnRevision": 1,
    }
    assert first.text == text_of(1)  # the earlier revision is kept


def test_edit_reindexes_the_chapter_in_the_same_transaction(engine, xiyou):
    assert _search(engine, xiyou, "石猴") == [1]
    outcome = edit_chapter(engine, xiyou, 1, EDITED)
    assert outcome.index_chunks and outcome.index_chunks > 0
    assert _search(engine, xiyou, "石猴") == []  # the old text is not served as current
    assert _search(engine, xiyou, "灵猴") == [1]
    with engine.connect() as conn:
        assert search_index.stale_chapters(conn, xiyou) == []


def test_edit_marks_references_into_changed_spans_stale(engine, xiyou):
    outcome = edit_chapter(engine, xiyou, 1, EDITED)
    assert [s.owner_kind for s in outcome.stale_refs] == ["card"]
    assert "不再是「石猴」" in outcome.stale_refs[0].reason
    assert ref_state(engine, xiyou) == {(1, "石猴"): (True, 1), (2, "菩提"): (False, 1)}


def test_edit_that_keeps_a_span_reanchors_its_reference(engine, xiyou):
    outcome = edit_chapter(engine, xiyou, 1, text_of(1) + "\n\n（作者补记）")
    assert (outcome.refs_reanchored, outcome.stale_refs) == (1, [])
    assert ref_state(engine, xiyou)[(1, "石猴")] == (False, 2)


def test_edit_queues_re_extraction_with_the_accept_payload(engine, xiyou):
    outcome = edit_chapter(engine, xiyou, 1, EDITED)
    assert extract_jobs(engine) == [{"workId": xiyou, "chapter": 1, "revision": 2, "runId": None}]
    with engine.connect() as conn:
        assert conn.execute(select(jobs.c.id)).scalar() == outcome.job_id


def test_stale_expected_revision_is_refused_and_nothing_is_written(engine, xiyou):
    edit_chapter(engine, xiyou, 1, EDITED)
    with pytest.raises(RevisionConflict, match="当前修订版 2，你基于的是 1"):
        edit_chapter(engine, xiyou, 1, "另一位作者的改写。", expected_revision=1)
    with engine.connect() as conn:
        assert catalog.get_chapter_text(conn, xiyou, 1).text == EDITED
        assert conn.execute(select(func.count()).select_from(prose_blocks)).scalar() == 5
    assert len(extract_jobs(engine)) == 1
    assert _search(engine, xiyou, "另一位作者") == []


def test_unchanged_text_and_empty_text_are_refused(engine, xiyou):
    with pytest.raises(InvalidInput, match="完全相同"):
        edit_chapter(engine, xiyou, 1, text_of(1))
    with pytest.raises(InvalidInput, match="不能为空"):
        edit_chapter(engine, xiyou, 1, " \n ")
    with pytest.raises(NotFound):
        edit_chapter(engine, xiyou, 9, "没有这一章。")
    assert extract_jobs(engine) == []


def test_consumption_matrix_follows_the_edit(engine, xiyou):
    with engine.connect() as conn:
        before = setting_ledger(conn, xiyou).rows[0].mentions
    edit_chapter(engine, xiyou, 2, text_of(2).replace("孙悟空", "猴子"))
    with engine.connect() as conn:
        after = setting_ledger(conn, xiyou).rows[0].mentions
    assert before.get(2, 0) > 0 and after.get(2, 0) == 0
    assert {k: v for k, v in before.items() if k != 2} == {k: v for k, v in after.items() if k != 2}


def test_revert_writes_a_new_revision_with_the_old_text(engine, xiyou):
    edit_chapter(engine, xiyou, 1, EDITED)
    outcome = revert_chapter(engine, xiyou, 1, to_revision=1)
    assert (outcome.origin, outcome.revision, outcome.reverted_to) == ("revert", 3, 1)
    assert outcome.refs_restored == 1
    with engine.connect() as conn:
        assert catalog.get_chapter_text(conn, xiyou, 1).text == text_of(1)
        history = chapter_history(conn, xiyou, 1)
    assert [(h.revision, h.origin, h.current) for h in history] == [
        (1, "import", False),
        (2, "edit", False),
        (3, "revert", True),
    ]
    assert history[0].content_sha256 == history[2].content_sha256 != history[1].content_sha256
    assert history[2].attribution["revertedTo"] == 1
    assert history[0].han_count == history[2].han_count > 0
    assert ref_state(engine, xiyou)[(1, "石猴")] == (False, 3)
    assert _search(engine, xiyou, "石猴") == [1]
    assert [j["revision"] for j in extract_jobs(engine)] == [2, 3]


def test_revert_to_the_current_text_or_a_missing_revision_is_refused(engine, xiyou):
    with pytest.raises(InvalidInput, match="完全相同"):
        revert_chapter(engine, xiyou, 1, to_revision=1)
    with pytest.raises(NotFound, match="没有修订版 7"):
        revert_chapter(engine, xiyou, 1, to_revision=7)
    with engine.connect() as conn, pytest.raises(NotFound, match="没有第 9 章"):
        chapter_history(conn, xiyou, 9)


def test_two_authors_editing_the_same_revision_one_wins(db_url, engine, xiyou):
    barrier, results, lock = threading.Barrier(2), [], threading.Lock()

    def edit(text):
        eng = make_engine(db_url)
        barrier.wait()
        try:
            edit_chapter(eng, xiyou, 1, text, expected_revision=1)
            outcome = "won"
        except RevisionConflict:
            outcome = "conflict"
        except Exception as err:  # noqa: BLE001 - reported through the assertion
            outcome = f"error: {err!r}"
        finally:
            eng.dispose()
        with lock:
            results.append(outcome)

    threads = [threading.Thread(target=edit, args=(f"第{i}位作者的改写。",)) for i in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert sorted(results) == ["conflict", "won"]
    with engine.connect() as conn:
        assert catalog.get_chapter_text(conn, xiyou, 1).revision == 2
    assert len(extract_jobs(engine)) == 1
