"""The fast state-as-of gives exactly what the straightforward rules give.

``reference_state_as_of.py`` is the implementation before the fast path (prepared cards, trusted
model building, the card cache). On random books, for every freeze point, both must agree object
for object and byte for byte, and every object the fast path builds without validation must
survive validation unchanged.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from muse.knowledge.card_state import BookTerms, book_state_as_of, state_as_of
from muse.knowledge.contracts import Card, StateAsOf
from tests.knowledge import reference_state_as_of as reference
from tests.knowledge.builders import card, debut, ref
from tests.knowledge.test_state_as_of_property import MAX_CHAPTER, book


def assert_same(fast: list[StateAsOf], slow: list[StateAsOf]) -> None:
    assert fast == slow
    assert [s.model_dump_json() for s in fast] == [s.model_dump_json() for s in slow]
    for state in fast:  # built without validation: validation must not change a thing
        assert StateAsOf.model_validate(state.model_dump()) == state


@settings(max_examples=200, deadline=None)
@given(book())
def test_fast_path_equals_the_rules_at_every_freeze_point(generated):
    cards, _ = generated
    terms = BookTerms.of(cards)
    for as_of in range(-1, MAX_CHAPTER + 2):
        slow = reference.book_state_as_of(cards, as_of)
        assert_same(book_state_as_of(cards, as_of), slow)
        assert_same(book_state_as_of(cards, as_of, book=terms), slow)


@settings(max_examples=100, deadline=None)
@given(book(), st.integers(0, MAX_CHAPTER + 1))
def test_a_card_alone_equals_the_rules(generated, as_of):
    for one in generated[0]:
        assert_same([state_as_of(one, as_of)], [reference.state_as_of(one, as_of)])


def test_doubts_stale_parts_and_unordered_milestones_equal_the_rules():
    other = card("猪八戒", milestones=[debut(9, refs=[ref(9)])], aliases=["天蓬元帅"])
    hero = card(
        "孙悟空",
        fields={
            "summary": {"value": "石猴"},
            "identity": {"doubt": "与天蓬元帅的旧账不明", "refs": [ref(3), ref(2, stale=True)]},
            "personality": {"value": ["桀骜", "猪八戒的师兄"], "since_chapter": 4},
            "true_identity": {"value": "灵明石猴"},
        },
        milestones=[
            {
                "chapter": 12,
                "cycle": "高光",
                "step": "大闹天宫",
                "refs": [ref(12), ref(5, stale=True)],
            },
            debut(1, refs=[ref(1)]),
            {"chapter": 3, "cycle": "成长", "step": "学艺", "refs": [ref(3, stale=True)]},
            {"chapter": 5, "cycle": "成长", "step": "与猪八戒相识"},
            {"chapter": 4, "cycle": "成长", "step": "错位", "refs": [ref(6)]},
            {"chapter": None, "chapter_note": "第二卷", "cycle": "成长", "step": "不明"},
            {"chapter": 5, "cycle": "高光", "step": "同章第二件"},
        ],
        relations=[
            {"kind": "师弟", "target": "猪八戒", "refs": [ref(10), ref(11, stale=True)]},
            {"kind": "师父", "target": "唐僧", "since_chapter": 2, "note": None},
        ],
        aliases=["美猴王", {"name": "齐天大圣", "since_chapter": 7}],
        refs=[ref(1), ref(8), ref(2, stale=True)],
        growth_arc=[{"chapter": 20, "cycle": "结局", "step": "成佛"}],
        ending_direction="成佛",
        end_state="斗战胜佛",
    )
    cards = [hero, other]
    for as_of in range(0, 15):
        assert_same(book_state_as_of(cards, as_of), reference.book_state_as_of(cards, as_of))


def test_the_same_cards_share_one_book_of_terms():
    cards: list[Card] = [card("孙悟空"), card("猪八戒")]
    assert BookTerms.of(cards) is BookTerms.of(list(cards))
    assert BookTerms.of(cards) is not BookTerms.of([cards[0]])
