"""``rebuild``: derived data recomputed from canonical text alone, idempotently, undoing any
tampering with the derived rows."""

from __future__ import annotations

from sqlalchemy import delete, select, update

from muse.context.search.tables import search_chunks, search_index_chapters
from muse.flow.rebuilding import rebuild
from muse.knowledge.tables import source_refs
from muse.works.canonical import write_revision
from muse.works.catalog import create_work
from tests.support.cards import ref_state, text_of


def _derived(engine, work_id):
    """The derived rows of a work, without the times they were written."""
    with engine.connect() as conn:
        chunks = conn.execute(
            select(
                search_chunks.c.id,
                search_chunks.c.chapter,
                search_chunks.c.seq,
                search_chunks.c.revision,
                search_chunks.c.start_offset,
                search_chunks.c.end_offset,
                search_chunks.c.sha256,
                search_chunks.c.tokens,
            )
            .where(search_chunks.c.work_id == work_id)
            .order_by(search_chunks.c.id)
        ).all()
        chapters = conn.execute(
            select(
                search_index_chapters.c.chapter,
                search_index_chapters.c.revision,
                search_index_chapters.c.content_sha256,
                search_index_chapters.c.chunk_count,
            )
            .where(search_index_chapters.c.work_id == work_id)
            .order_by(search_index_chapters.c.chapter)
        ).all()
        refs = conn.execute(
            select(
                source_refs.c.id,
                source_refs.c.stale,
                source_refs.c.stale_reason,
                source_refs.c.chapter_revision,
            )
            .where(source_refs.c.work_id == work_id)
            .order_by(source_refs.c.id)
        ).all()
    return [tuple(r) for r in chunks], [tuple(r) for r in chapters], [tuple(r) for r in refs]


def _tamper(engine, work_id):
    with engine.begin() as conn:
        conn.execute(delete(search_chunks).where(search_chunks.c.chapter == 2))
        conn.execute(
            update(search_chunks)
            .where(search_chunks.c.chapter == 3)
            .values(sha256="0" * 64, tokens="篡改 文字")
        )
        conn.execute(update(search_index_chapters).values(revision=99))
        # a valid reference flagged stale, and a stale one flagged valid
        conn.execute(
            update(source_refs)
            .where(source_refs.c.chapter == 2)
            .values(stale=True, stale_reason="x")
        )
        conn.execute(
            update(source_refs)
            .where(source_refs.c.chapter == 1)
            .values(stale=False, stale_reason=None)
        )


def test_rebuild_restores_tampered_derived_rows(engine, xiyou):
    # chapter 1 changes behind the derived data's back (no edit flow): 石猴 is gone
    with engine.begin() as conn:
        write_revision(
            conn, xiyou, 1, text_of(1).replace("石猴", "灵猴"), expected_revision=1, origin="edit"
        )
    [first] = rebuild(engine, xiyou)
    assert (first.chapters, first.refs_checked, first.refs_newly_stale, first.refs_stale) == (
        4,
        2,
        1,
        1,
    )
    assert ref_state(engine, xiyou) == {(1, "石猴"): (True, 1), (2, "菩提"): (False, 1)}
    clean = _derived(engine, xiyou)
    assert clean[0] and clean[2]

    _tamper(engine, xiyou)
    assert _derived(engine, xiyou) != clean
    [again] = rebuild(engine, xiyou)
    assert _derived(engine, xiyou) == clean
    assert (again.refs_newly_stale, again.refs_restored, again.refs_stale) == (1, 1, 1)
    assert again.index_chunks == first.index_chunks


def test_rebuild_is_idempotent(engine, xiyou):
    [first] = rebuild(engine, xiyou)
    state = _derived(engine, xiyou)
    [second] = rebuild(engine, xiyou)
    assert _derived(engine, xiyou) == state
    assert first.to_dict() == second.to_dict()
    assert (second.refs_newly_stale, second.refs_restored, second.refs_reanchored) == (0, 0, 0)


def test_rebuild_reports_the_consumption_matrix(engine, xiyou):
    [summary] = rebuild(engine, xiyou)
    # 孙悟空 is named in chapters 2, 3 and 4 of the excerpt (the card has no aliases)
    assert (summary.ledger_cards, summary.ledger_untouched) == (1, 0)
    assert summary.ledger_mentions == sum(text_of(n).count("孙悟空") for n in (1, 2, 3, 4))


def test_rebuild_without_a_work_covers_every_work(engine, xiyou):
    with engine.begin() as conn:
        create_work(conn, "空书")
    summaries = rebuild(engine)
    assert [(s.title, s.chapters) for s in summaries] == [("西游记", 4), ("空书", 0)]


def test_rebuild_trusts_no_flag_a_forged_valid_reference_at_the_current_revision(engine, xiyou):
    """The edit flow skips a valid reference already checked at the current revision; rebuild
    re-hashes it anyway."""
    with engine.begin() as conn:
        write_revision(
            conn, xiyou, 1, text_of(1).replace("石猴", "灵猴"), expected_revision=1, origin="edit"
        )
        conn.execute(
            update(source_refs).where(source_refs.c.chapter == 1).values(chapter_revision=2)
        )
    assert ref_state(engine, xiyou)[(1, "石猴")] == (False, 2)
    [summary] = rebuild(engine, xiyou)
    assert (summary.refs_newly_stale, summary.refs_stale) == (1, 1)
    assert ref_state(engine, xiyou)[(1, "石猴")][0] is True


def test_rebuild_reports_progress_step_by_step_over_every_work(engine, xiyou):
    with engine.begin() as conn:
        create_work(conn, "另一本")
    seen: list[tuple[str, int, int]] = []

    rebuild(engine, progress=lambda label, done, total: seen.append((label, done, total)))

    assert [done for _, done, _ in seen] == list(range(7))
    assert {total for _, _, total in seen} == {6}
    assert [label for label, _, _ in seen[:3]] == ["检索索引", "出处有效性", "设定台账"]
    assert seen[-1] == ("完成", 6, 6)
