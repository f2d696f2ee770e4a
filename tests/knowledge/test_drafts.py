"""Drafts → confirmed: nothing a proposal says is part of the book until the author confirms it."""

from __future__ import annotations

import threading

import pytest
from sqlalchemy import Engine

from muse.core.errors import InvalidInput, MuseError
from muse.knowledge.aliases import tokenizer_terms
from muse.knowledge.card_state import work_state_as_of
from muse.knowledge.cards import find_card, get_card, insert_card, load_cards
from muse.knowledge.contracts import CardStatus
from muse.knowledge.drafts import (
    confirm_all,
    confirm_draft,
    list_drafts,
    reject_draft,
    submit_draft,
)
from muse.knowledge.source_refs import ChapterTexts, locate_quote
from muse.store.engine import is_sqlite
from tests.knowledge.conftest import spec

BASE_FIELDS = {
    "summary": {"value": "花果山石猴"},
    "identity": {"value": "美猴王"},
    "personality": {"value": "桀骜不驯"},
}


def test_a_draft_is_not_a_card_until_confirmed(conn, work):
    outcome = submit_draft(conn, work, spec(aliases=["美猴王"]))
    assert outcome.status == "new" and outcome.draft_id
    assert load_cards(conn, work) == []
    assert work_state_as_of(conn, work, 10).visible() == []
    assert tokenizer_terms(conn, work) == []
    [draft] = list_drafts(conn, work)
    assert (draft.name, draft.status, draft.target_card_id, draft.origin) == (
        "孙悟空",
        "pending",
        None,
        "extract",
    )
    confirmed = confirm_draft(conn, outcome.draft_id)
    assert confirmed.status == "confirmed"
    assert find_card(conn, work, "美猴王").status is CardStatus.confirmed
    assert list_drafts(conn, work) == []
    assert list_drafts(conn, work, status="confirmed")[0].decided_at is not None


def test_an_update_merges_additions_only_on_confirmation(conn, work):
    texts = ChapterTexts(conn, work)
    card_id = insert_card(
        conn,
        work,
        spec(
            fields={
                "summary": {"value": "石猴"},
                "identity": {"value": "美猴王"},
                "personality": {"doubt": "未交代"},
                "abilities": {"value": ["筋斗云"]},
            }
        ),
        CardStatus.confirmed,
    )
    proposal = spec(
        aliases=["美猴王"],
        fields={
            "personality": {"value": "心高气傲"},
            "abilities": {"value": ["七十二般变化", "筋斗云"]},
            "goal": {"value": "长生不老", "refs": [locate_quote(texts, 1, "师父")]},
            "summary": {"value": "石猴"},
            "identity": {"value": "美猴王"},
        },
        milestones=[{"chapter": 2, "cycle": "成长", "step": "拜师"}],
    )
    outcome = submit_draft(conn, work, proposal)
    assert (outcome.status, outcome.target_card_id, outcome.conflicts) == ("update", card_id, [])
    assert "goal" not in get_card(conn, card_id).fields, "nothing merges before confirmation"
    confirm_draft(conn, outcome.draft_id)
    card = get_card(conn, card_id)
    assert card.fields["personality"].value == "心高气傲"  # a doubt answered is an addition
    assert card.fields["abilities"].value == ["筋斗云", "七十二般变化"]  # list fields only add
    assert card.fields["goal"].refs[0].quote == "师父"
    assert [a.name for a in card.aliases] == ["美猴王"]
    assert [m.step for m in card.milestones] == ["拜师"]
    assert get_card(conn, outcome.card_id).status is CardStatus.merged
    assert len(load_cards(conn, work)) == 1


def test_a_proposal_that_adds_nothing_is_not_stored_and_a_repeat_is_stored_once(conn, work):
    insert_card(conn, work, spec(), CardStatus.confirmed)
    assert submit_draft(conn, work, spec()).status == "unchanged"
    first = submit_draft(conn, work, spec("唐僧"))
    again = submit_draft(conn, work, spec("唐僧"))
    assert (again.status, again.draft_id) == ("duplicate", first.draft_id)
    assert len(list_drafts(conn, work)) == 1


def test_a_target_is_found_through_an_alias_and_the_draft_name_is_kept(conn, work):
    card_id = insert_card(conn, work, spec(aliases=["美猴王"]), CardStatus.confirmed)
    fields = {**BASE_FIELDS, "goal": {"value": "长生"}}
    by_alias = submit_draft(conn, work, spec("美猴王", fields=fields))
    assert by_alias.target_card_id == card_id
    sharing = submit_draft(conn, work, spec("孙行者", aliases=["美猴王"], fields=BASE_FIELDS))
    assert sharing.target_card_id == card_id
    confirm_draft(conn, sharing.draft_id)
    assert [a.name for a in get_card(conn, card_id).aliases] == ["美猴王", "孙行者"]


def test_reject_retires_the_draft_and_leaves_cards_alone(conn, work):
    outcome = submit_draft(conn, work, spec("唐僧"))
    rejected = reject_draft(conn, outcome.draft_id, note="不是这本书的人物")
    assert rejected.status == "rejected"
    assert get_card(conn, outcome.card_id).status is CardStatus.rejected
    assert load_cards(conn, work) == []
    with pytest.raises(InvalidInput, match="已处理"):
        confirm_draft(conn, outcome.draft_id)


def test_confirm_all_skips_drafts_with_open_conflicts(conn, work):
    insert_card(conn, work, spec(), CardStatus.confirmed)
    clash = submit_draft(
        conn,
        work,
        spec(
            fields={
                "summary": {"value": "石猴"},
                "identity": {"value": "弼马温"},
                "personality": {"value": "桀骜不驯"},
            }
        ),
    )
    fresh = submit_draft(conn, work, spec("唐僧"))
    outcomes = confirm_all(conn, work)
    assert [o.draft_id for o in outcomes] == [fresh.draft_id]
    assert [d.id for d in list_drafts(conn, work)] == [clash.draft_id]


def test_two_confirmations_race_and_exactly_one_wins(engine: Engine, db_url):
    with engine.begin() as conn:
        from muse.works.catalog import create_work

        work = create_work(conn, "书")
        draft_id = submit_draft(conn, work, spec("唐僧")).draft_id
    options = {"sqlite_begin": "IMMEDIATE"} if is_sqlite(engine) else {}
    barrier = threading.Barrier(2)
    results: list[str] = []

    def confirm() -> None:
        barrier.wait()
        try:
            with engine.connect().execution_options(**options) as c, c.begin():
                confirm_draft(c, draft_id)
            results.append("won")
        except MuseError:
            results.append("lost")

    threads = [threading.Thread(target=confirm) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == ["lost", "won"]
    with engine.connect() as conn:
        assert [c.name for c in load_cards(conn, work)] == ["唐僧"]
