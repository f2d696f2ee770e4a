"""Discovered entities become machine-proposed drafts: evidence-backed, idempotent, never confirmed."""

from __future__ import annotations

import pytest

from muse.core.errors import InvalidInput
from muse.knowledge.card_state import exists_as_of, work_state_as_of
from muse.knowledge.cards import find_card, insert_card, load_cards
from muse.knowledge.contracts import CardStatus
from muse.knowledge.discovery_drafts import (
    DISCOVERY_DOUBT,
    discover_work,
    parse_chapter_range,
)
from muse.knowledge.drafts import confirm_draft, list_drafts, reject_draft
from muse.works.catalog import get_chapter_text
from tests.knowledge.conftest import spec
from tests.knowledge.discovery_fixture import sanguo_work


@pytest.fixture
def sanguo(conn):
    return sanguo_work(conn)


def _draft(conn, work, name):
    return next(d for d in list_drafts(conn, work) if d.name == name)


def test_drafts_are_machine_proposed_with_a_proven_debut(conn, sanguo):
    report = discover_work(conn, sanguo)
    assert report.count("new") == len(list_drafts(conn, sanguo)) > 10
    assert load_cards(conn, sanguo) == []  # nothing confirmed
    draft = _draft(conn, sanguo, "曹操")
    detail = draft.origin_detail
    assert (draft.type, detail["method"], detail["machineProposed"]) == (
        "character",
        "discovery",
        True,
    )
    assert detail["first"]["chapter"] == 2 and detail["mentions"] >= 5
    card = find_card(conn, sanguo, "曹操", statuses=[CardStatus.draft])
    [debut] = card.milestones
    assert (debut.step, debut.chapter) == ("登场", 2)
    ref = debut.refs[0]
    text = get_chapter_text(conn, sanguo, 2).text
    assert text[ref.start : ref.end] == ref.quote and "曹操" in ref.quote
    assert all(f.doubt == DISCOVERY_DOUBT for f in card.fields.values())


def test_suggested_aliases_come_with_the_draft(conn, sanguo):
    discover_work(conn, sanguo)
    card = find_card(conn, sanguo, "刘备", statuses=[CardStatus.draft])
    assert [a.name for a in card.aliases] == ["玄德"]


def test_rerun_is_idempotent_and_never_touches_confirmed_or_rejected(conn, sanguo):
    first = discover_work(conn, sanguo)
    confirmed = confirm_draft(conn, _draft(conn, sanguo, "张飞").id)
    reject_draft(conn, _draft(conn, sanguo, "董卓").id)
    before = find_card(conn, sanguo, "张飞")
    again = discover_work(conn, sanguo)
    assert again.count("new") == 0
    assert again.count("known") == len(again.items) == len(first.items)
    assert find_card(conn, sanguo, "张飞") == before and before.id == confirmed.card_id
    assert "董卓" not in {d.name for d in list_drafts(conn, sanguo)}


def test_a_confirmed_card_under_an_alias_is_not_proposed_again(conn, sanguo):
    insert_card(conn, sanguo, spec("刘玄德", aliases=["玄德"]), CardStatus.confirmed)
    report = discover_work(conn, sanguo)
    item = next(i for i in report.items if i.name == "刘备")
    assert item.status == "known"
    assert "刘备" not in {d.name for d in list_drafts(conn, sanguo)}


def test_a_discovered_draft_is_invisible_before_its_first_chapter_once_confirmed(conn, sanguo):
    discover_work(conn, sanguo)
    confirm_draft(conn, _draft(conn, sanguo, "曹操").id)
    card = find_card(conn, sanguo, "曹操")
    assert not exists_as_of(card, 1) and exists_as_of(card, 2)
    assert "曹操" not in {s.name for s in work_state_as_of(conn, sanguo, 1).visible()}
    assert "曹操" in {s.name for s in work_state_as_of(conn, sanguo, 2).visible()}


def test_chapter_range_limits_the_reading(conn, sanguo):
    report = discover_work(conn, sanguo, chapters=(2, 3), store=False)
    assert report.chapter_count == 2
    assert all(i.first_chapter >= 2 for i in report.items)
    assert list_drafts(conn, sanguo) == []  # store=False: a preview


@pytest.mark.parametrize(
    "text, expected",
    [("1-100", (1, 100)), ("5", (5, 5)), (" 2 - 3 ", (2, 3)), (None, None), ("", None)],
)
def test_chapter_ranges(text, expected):
    assert parse_chapter_range(text) == expected


@pytest.mark.parametrize("text", ["a-b", "3-1", "0-5", "1-2-3", "-"])
def test_bad_chapter_ranges_are_refused_in_chinese(text):
    with pytest.raises(InvalidInput, match="章节范围"):
        parse_chapter_range(text)


def test_a_range_without_chapters_is_refused(conn, sanguo):
    with pytest.raises(InvalidInput, match="没有正文章节"):
        discover_work(conn, sanguo, chapters=(50, 60))
