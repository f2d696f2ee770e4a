"""改：… — a revision starts a new round; item 7 carries only the author's latest words."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from muse.context.contracts import WriterContext
from muse.context.round_order import round_inputs
from muse.context.tables import context_snapshots
from muse.core.errors import InvalidInput
from muse.flow.accept import accept_candidate
from muse.flow.production import write_chapter
from muse.flow.revise import revise_candidate
from muse.flow.tables import candidates, decisions, runs
from muse.works import catalog
from tests.flow.conftest import NEXT


def _context_of(engine, candidate_id) -> WriterContext:
    with engine.connect() as conn:
        payload = conn.execute(
            select(context_snapshots.c.payload)
            .join(candidates, candidates.c.context_snapshot_id == context_snapshots.c.id)
            .where(candidates.c.id == candidate_id)
        ).scalar_one()
    return WriterContext.model_validate(payload)


def _runs(engine) -> int:
    with engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(runs)).scalar_one()


def test_revise_starts_round_2_with_the_authors_words_and_keeps_items_1_to_6(engine, book):
    first = write_chapter(engine, book, NEXT, provider="offline", model="offline-1")
    assert first.state == "shadow_ready"
    words = "改：结尾的钟声换成脚步声，苏晴的语气再冷一些。"
    outcome = revise_candidate(engine, first.candidate_id, words, command_id="k1")
    assert outcome.round_number == 2 and outcome.summary is not None
    assert outcome.new_run_id != first.run_id and outcome.state == "shadow_ready"
    before = _context_of(engine, first.candidate_id)
    after = _context_of(engine, outcome.summary.candidate_id)
    assert after.author_instruction is not None
    assert (after.author_instruction.round, after.author_instruction.words) == (2, words)
    old, new = round_inputs(before), round_inputs(after)
    assert [i.position for i in new] == [1, 2, 3, 4, 5, 6, 7]
    # items 2–6 are rebuilt exactly as in round 1; item 1 differs only by the run's provenance
    assert [i.content for i in old[1:6]] == [i.content for i in new[1:6]]
    assert new[6].summary == words and old[6].summary == f"写第 {NEXT} 章"
    # nothing became canon; the revised candidate is still there for the author
    with engine.connect() as conn:
        assert catalog.latest_chapter_number(conn, book) == NEXT - 1
        row = conn.execute(select(decisions).where(decisions.c.command_id == "k1")).mappings().one()
        state = conn.execute(
            select(candidates.c.state).where(candidates.c.id == first.candidate_id)
        ).scalar_one()
    assert row["kind"] == "revise" and row["outcome"] == "shadow_ready"
    assert row["detail"]["newRunId"] == outcome.new_run_id and row["detail"]["words"] == words
    assert state == "PASSED"


def test_the_same_revise_command_twice_starts_one_run(engine, book):
    first = write_chapter(engine, book, NEXT, provider="offline", model="offline-1")
    once = revise_candidate(engine, first.candidate_id, "改：加一场雨。", command_id="same")
    count = _runs(engine)
    again = revise_candidate(engine, first.candidate_id, "改：加一场雨。", command_id="same")
    assert again.repeated and again.new_run_id == once.new_run_id and _runs(engine) == count
    with pytest.raises(InvalidInput, match="已用于另一个决定"):
        revise_candidate(engine, once.summary.candidate_id, "改：别的。", command_id="same")


def test_round_3_carries_only_the_latest_words(engine, book):
    first = write_chapter(engine, book, NEXT, provider="offline", model="offline-1")
    second = revise_candidate(engine, first.candidate_id, "改：第一句话。")
    third = revise_candidate(engine, second.summary.candidate_id, "改：第二句话。")
    context = _context_of(engine, third.summary.candidate_id)
    assert context.author_instruction.round == 3
    assert context.author_instruction.words == "改：第二句话。"
    assert "第一句话" not in context.model_dump_json()


def test_an_accepted_candidate_cannot_be_revised_and_empty_words_are_refused(engine, book):
    first = write_chapter(engine, book, NEXT, provider="offline", model="offline-1")
    with pytest.raises(InvalidInput, match="不能为空"):
        revise_candidate(engine, first.candidate_id, "  ")
    assert accept_candidate(engine, first.candidate_id).accepted
    with pytest.raises(InvalidInput, match="不能改写"):
        revise_candidate(engine, first.candidate_id, "改：再来。")


def test_a_revise_refused_after_another_candidate_became_canon_is_recorded(engine, book):
    first = write_chapter(engine, book, NEXT, provider="offline", model="offline-1")
    other = write_chapter(engine, book, NEXT, provider="offline", model="offline-1")
    assert accept_candidate(engine, other.candidate_id).accepted
    with pytest.raises(InvalidInput, match="只能续写下一章"):
        revise_candidate(engine, first.candidate_id, "改：再来。", command_id="late")
    with engine.connect() as conn:
        row = (
            conn.execute(select(decisions).where(decisions.c.command_id == "late")).mappings().one()
        )
    assert row["outcome"] == "refused" and "只能续写下一章" in row["detail"]["error"]
