"""Cards in the database: stored whole, read back equal; the per-work views built on them."""

from __future__ import annotations

import gc

import pytest

from muse.core.errors import InvalidInput, NotFound, StaleTransition
from muse.knowledge.aliases import alias_collisions, tokenizer_terms
from muse.knowledge.card_state import book_state_as_of, work_state_as_of
from muse.knowledge.cards import find_card, get_card, insert_card, load_cards, rewrite_card, spec_of
from muse.knowledge.contracts import CardStatus
from muse.knowledge.source_refs import ChapterTexts, locate_quote, revalidate_source_refs
from muse.works.canonical import write_revision
from tests.knowledge.conftest import spec, text_of


def full_spec(conn, work):
    texts = ChapterTexts(conn, work)
    return spec(
        aliases=["美猴王", {"name": "齐天大圣", "since_chapter": 4}],
        fields={
            "summary": {"value": "花果山石猴"},
            "identity": {"value": "美猴王", "refs": [locate_quote(texts, 1, "美猴王")]},
            "personality": {"doubt": "原文尚未交代"},
            "abilities": {"value": ["七十二般变化", "筋斗云"], "since_chapter": 2},
        },
        milestones=[
            {
                "chapter": 1,
                "cycle": "登场",
                "step": "石猴出世",
                "refs": [locate_quote(texts, 1, "石猴")],
            },
            {
                "chapter": 2,
                "cycle": "成长",
                "step": "拜师",
                "refs": [locate_quote(texts, 2, "菩提")],
            },
            {"chapter": None, "chapter_note": "第二卷", "cycle": "高光", "step": "大闹天宫"},
        ],
        relations=[
            {
                "kind": "师父",
                "target": "菩提祖师",
                "since_chapter": 1,
                "note": "拜师学艺",
                "refs": [locate_quote(texts, 1, "师父")],
            }
        ],
        refs=[locate_quote(texts, 3, "如意棒")],
        growth_arc=[{"chapter": 100, "cycle": "结局", "step": "成佛"}],
        ending_direction="修成正果",
        end_state="斗战胜佛",
    )


def test_a_card_reads_back_exactly_as_written(conn, work):
    written = full_spec(conn, work)
    card = get_card(conn, insert_card(conn, work, written, CardStatus.confirmed))
    assert spec_of(card) == written
    assert card.status is CardStatus.confirmed and card.revision == 1
    assert card.types_version == "card-types-v1" and len(card.spec_sha256) == 64


def test_state_from_the_database_equals_the_pure_state(conn, work):
    insert_card(conn, work, full_spec(conn, work), CardStatus.confirmed)
    insert_card(
        conn,
        work,
        spec("菩提祖师", milestones=[{"chapter": 1, "cycle": "登场"}]),
        CardStatus.confirmed,
    )
    insert_card(conn, work, spec("草稿猴"), CardStatus.draft)
    for as_of in (0, 1, 2, 4, 100):
        from_db = work_state_as_of(conn, work, as_of)
        assert from_db.cards == book_state_as_of(load_cards(conn, work), as_of)
        assert {c.name for c in from_db.visible()} <= {"孙悟空", "菩提祖师"}, (
            "drafts are never part of it"
        )
    wukong = next(c for c in work_state_as_of(conn, work, 1).visible() if c.name == "孙悟空")
    assert [m.step for m in wukong.milestones] == ["石猴出世"]
    assert wukong.fields["identity"].refs[0].quote == "美猴王"


def test_stale_reference_after_an_edit_reaches_the_state(conn, work):
    insert_card(conn, work, full_spec(conn, work), CardStatus.confirmed)
    write_revision(
        conn, work, 2, text_of(2).replace("菩提", "须菩"), expected_revision=1, origin="edit"
    )
    revalidate_source_refs(conn, work)
    state = next(c for c in work_state_as_of(conn, work, 5).cards if c.state.name == "孙悟空")
    assert [m.step for m in state.state.milestones] == ["石猴出世"]
    assert any(
        x.item.startswith("第 2 章 成长") and x.reason == "unproven_chapter" for x in state.excluded
    )


def test_rewrite_moves_the_revision_and_refuses_a_stale_read(conn, work):
    card = get_card(conn, insert_card(conn, work, spec(), CardStatus.confirmed))
    changed = rewrite_card(conn, card, spec_of(card).model_copy(update={"name": "孙行者"}))
    assert (changed.revision, changed.name) == (2, "孙行者")
    with pytest.raises(StaleTransition):
        rewrite_card(conn, card, spec_of(card))


def test_invalid_card_is_refused_before_anything_is_written(conn, work):
    with pytest.raises(InvalidInput, match="缺少必填字段「身份」"):
        insert_card(
            conn,
            work,
            spec(fields={"summary": {"value": "x"}, "personality": {"value": "y"}}),
            CardStatus.confirmed,
        )
    assert load_cards(conn, work, statuses=list(CardStatus)) == []


def test_find_card_by_id_name_or_alias_and_never_guess(conn, work):
    wukong = insert_card(conn, work, spec(aliases=["美猴王"]), CardStatus.confirmed)
    assert find_card(conn, work, "美猴王").id == wukong
    assert find_card(conn, work, wukong).name == "孙悟空"
    insert_card(
        conn, work, spec("花果山", type="location", aliases=["美猴王"]), CardStatus.confirmed
    )
    with pytest.raises(InvalidInput, match="对应多张卡片"):
        find_card(conn, work, "美猴王")
    assert find_card(conn, work, "美猴王", card_type_key="location").name == "花果山"
    with pytest.raises(NotFound, match="没有名为「唐僧」的卡片"):
        find_card(conn, work, "唐僧")


def test_tokenizer_terms_are_confirmed_names_and_aliases(conn, work):
    insert_card(
        conn,
        work,
        spec(aliases=["美猴王", {"name": "齐天大圣", "since_chapter": 4}]),
        CardStatus.confirmed,
    )
    insert_card(
        conn, work, spec("如意金箍棒", type="artifact", aliases=["如意棒"]), CardStatus.confirmed
    )
    insert_card(conn, work, spec("草稿人物", aliases=["草稿别名"]), CardStatus.draft)
    assert tokenizer_terms(conn, work) == sorted(
        ["孙悟空", "美猴王", "齐天大圣", "如意金箍棒", "如意棒"]
    )


def test_the_same_alias_on_two_cards_is_reported(conn, work):
    insert_card(conn, work, spec(aliases=["大圣"]), CardStatus.confirmed)
    insert_card(conn, work, spec("牛魔王", aliases=["大圣", "平天大圣"]), CardStatus.confirmed)
    insert_card(conn, work, spec("大圣", type="term"), CardStatus.confirmed)
    collisions = alias_collisions(conn, work)
    assert [c.term for c in collisions] == ["大圣"]
    assert {(o.name, o.role) for o in collisions[0].owners} == {
        ("孙悟空", "alias"),
        ("牛魔王", "alias"),
        ("大圣", "name"),
    }
    assert "同时属于多张卡片" in collisions[0].message()


@pytest.mark.parametrize("enabled", [True, False])
def test_loading_leaves_the_garbage_collector_as_it_was(conn, work, enabled):
    insert_card(conn, work, spec(), CardStatus.confirmed)
    before = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        assert len(work_state_as_of(conn, work, 1).visible()) == 1
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if before else gc.disable)()
