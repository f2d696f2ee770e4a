"""Source references: verified against canonical text when made, marked stale when it changes."""

from __future__ import annotations

import unicodedata

import pytest
from pydantic import ValidationError
from sqlalchemy import select

from muse.core.canonical import sha256_hex
from muse.core.errors import ContractViolation
from muse.knowledge.cards import get_card, insert_card
from muse.knowledge.contracts import CardStatus, SourceRef
from muse.knowledge.source_refs import (
    ChapterTexts,
    locate_quote,
    make_source_ref,
    resolve_ref,
    revalidate_source_refs,
)
from muse.knowledge.tables import source_refs
from muse.works.canonical import write_revision
from tests.support.cards import spec, text_of


def test_reference_records_offsets_hash_and_revision_of_the_span(conn, work):
    text = text_of(1)
    start = text.index("美猴王")
    ref = make_source_ref(ChapterTexts(conn, work), 1, start, start + 3)
    assert (ref.chapter, ref.start, ref.end, ref.revision) == (1, start, start + 3, 1)
    assert ref.quote == "美猴王" and ref.sha256 == sha256_hex("美猴王")


@pytest.mark.parametrize(
    ("chapter", "start", "end", "message"),
    [
        (1, 0, 10_000, "超出第 1 章的范围"),
        (1, 5, 5, "超出第 1 章的范围"),
        (9, 0, 2, "没有这一章"),
    ],
)
def test_reference_outside_the_text_is_refused(conn, work, chapter, start, end, message):
    with pytest.raises(ContractViolation, match=message):
        make_source_ref(ChapterTexts(conn, work), chapter, start, end)


def test_quote_is_located_verbatim_after_nfc(conn, work):
    texts = ChapterTexts(conn, work)
    compat = "\uf967堪用"  # U+F967 is a compatibility form of 不: NFC turns it into U+4E0D
    assert compat != "不堪用" and unicodedata.normalize("NFC", compat) == "不堪用"
    assert locate_quote(texts, 3, compat).quote == "不堪用"
    ref = locate_quote(texts, 1, "石猴")
    assert ref.start == text_of(1).index("石猴")
    second = locate_quote(texts, 1, "美猴王", occurrence=2)
    first = text_of(1).index("美猴王")
    assert second.start == text_of(1).index("美猴王", first + 1) > first
    with pytest.raises(ContractViolation, match="不在第 1 章的原文中"):
        locate_quote(texts, 1, "齐天大圣")


def test_every_part_of_a_written_reference_must_agree(conn, work):
    texts = ChapterTexts(conn, work)
    start = text_of(1).index("石猴")
    with pytest.raises(ContractViolation, match="与引文不符"):
        resolve_ref(texts, 1, start=start, end=start + 2, quote="猴王")
    with pytest.raises(ContractViolation, match="哈希与原文不符"):
        resolve_ref(texts, 1, quote="石猴", sha256="0" * 64)
    with pytest.raises(ContractViolation, match="必须同时给出"):
        resolve_ref(texts, 1, start=start)
    assert (
        resolve_ref(
            texts, 1, start=start, end=start + 2, quote="石猴", sha256=sha256_hex("石猴")
        ).start
        == start
    )


def _card_with_refs(conn, work):
    texts = ChapterTexts(conn, work)
    refs = [locate_quote(texts, 1, "石猴"), locate_quote(texts, 2, "菩提")]
    card_id = insert_card(conn, work, spec(refs=refs), CardStatus.confirmed)
    return card_id


def _stale(conn, work):
    return {
        (r.chapter, r.quote): (r.stale, r.stale_reason, r.chapter_revision)
        for r in conn.execute(select(source_refs).where(source_refs.c.work_id == work))
    }


def test_revalidation_marks_a_changed_span_stale_with_its_reason(conn, work):
    _card_with_refs(conn, work)
    edited = text_of(1).replace("石猴", "灵猴")
    write_revision(conn, work, 1, edited, expected_revision=1, origin="edit")
    report = revalidate_source_refs(conn, work)
    assert report.checked == 2 and len(report.newly_stale) == 1
    assert "第 1 章已修改（修订版 1 → 2）" in report.newly_stale[0].reason
    state = _stale(conn, work)
    assert state[(1, "石猴")][0] is True
    assert state[(2, "菩提")] == (False, None, 1)


def test_same_text_at_same_offsets_is_reanchored_to_the_new_revision(conn, work):
    _card_with_refs(conn, work)
    write_revision(conn, work, 1, text_of(1) + "\n\n（补记）", expected_revision=1, origin="edit")
    report = revalidate_source_refs(conn, work)
    assert (report.reanchored, report.newly_stale) == (1, [])
    assert _stale(conn, work)[(1, "石猴")] == (False, None, 2)


def test_a_stale_reference_whose_text_is_back_is_restored(conn, work):
    _card_with_refs(conn, work)
    write_revision(
        conn, work, 1, text_of(1).replace("石猴", "灵猴"), expected_revision=1, origin="edit"
    )
    revalidate_source_refs(conn, work)
    write_revision(conn, work, 1, text_of(1), expected_revision=2, origin="revert")
    report = revalidate_source_refs(conn, work)
    assert report.restored == 1
    assert _stale(conn, work)[(1, "石猴")] == (False, None, 3)


def test_stale_references_reach_the_card_and_revalidation_can_be_limited_to_chapters(conn, work):
    card_id = _card_with_refs(conn, work)
    write_revision(
        conn, work, 1, text_of(1).replace("石猴", "灵猴"), expected_revision=1, origin="edit"
    )
    assert revalidate_source_refs(conn, work, chapters=[2]).checked == 1
    assert not any(r.stale for r in get_card(conn, card_id).refs)
    revalidate_source_refs(conn, work, chapters=[1])
    assert [r.stale for r in get_card(conn, card_id).refs] == [True, False]


@pytest.mark.parametrize(("start", "end"), [(5, 5), (6, 5)])
def test_the_contract_refuses_an_empty_or_inverted_span(start, end):
    with pytest.raises(ValidationError, match="non-empty"):
        SourceRef(chapter=1, start=start, end=end, sha256="0" * 64, revision=1, quote="")
