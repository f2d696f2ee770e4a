"""stateAsOf rules, one case each (spec 000 §5.2): what is kept, what is left out and why."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from muse.knowledge.card_state import book_state_as_of, state_as_of
from muse.knowledge.contracts import ExclusionReason as R
from tests.knowledge.builders import card, debut, ref


@dataclass(frozen=True)
class Case:
    name: str
    parts: dict
    as_of: int
    kept: dict = field(default_factory=dict)  # attribute of the state → expected value
    cut: tuple[tuple[str, R], ...] = ()  # (item contains, reason) among the exclusions


BASE = {"milestones": [debut(1, step="石猴出世")]}
FIELDS = {
    "summary": {"value": "石猴"},
    "identity": {"value": "美猴王"},
    "personality": {"value": "桀骜"},
}

CASES = [
    Case(
        "end state is never shown",
        {**BASE, "end_state": "斗战胜佛"},
        10_000,
        cut=(("全书终态", R.end_state),),
    ),
    Case(
        "growth arc and ending direction are never shown",
        {
            **BASE,
            "growth_arc": [{"chapter": 2, "cycle": "成长", "step": "拜师"}],
            "ending_direction": "成佛",
        },
        10_000,
        cut=(("成长弧线", R.growth_arc), ("结局方向", R.ending_direction)),
    ),
    Case(
        "milestone without absolute chapter is unproven",
        {
            "milestones": [
                debut(1),
                {"chapter": None, "chapter_note": "第二卷第三章", "cycle": "成长", "step": "大闹"},
            ]
        },
        10_000,
        kept={"step": "登场"},
        cut=(("章号不明", R.unproven_chapter),),
    ),
    Case(
        "milestone whose every reference is stale is unproven",
        {
            "milestones": [
                debut(1),
                {"chapter": 2, "cycle": "成长", "step": "拜师", "refs": [ref(2, stale=True)]},
            ]
        },
        10_000,
        kept={"step": "登场"},
        cut=(("拜师", R.unproven_chapter),),
    ),
    Case(
        "milestone whose reference is after its own chapter is misplaced",
        {
            "milestones": [
                debut(1),
                {"chapter": 2, "cycle": "成长", "step": "拜师", "refs": [ref(5)]},
            ]
        },
        10_000,
        kept={"step": "登场"},
        cut=(("拜师", R.misplaced),),
    ),
    Case(
        "milestone after as_of is future",
        {"milestones": [debut(1), {"chapter": 3, "cycle": "高光", "step": "龙宫得宝"}]},
        2,
        kept={"step": "登场"},
        cut=(("龙宫得宝", R.future),),
    ),
    Case(
        "milestones up to as_of rebuild the state, in chapter order",
        {
            "milestones": [
                {"chapter": 3, "cycle": "高光", "step": "龙宫得宝"},
                debut(1),
                {"chapter": 2, "cycle": "成长", "step": "拜师"},
            ]
        },
        3,
        kept={"step": "龙宫得宝", "debut_chapter": 1},
    ),
    Case(
        "one stale reference is dropped, the milestone stays",
        {"milestones": [debut(1, refs=[ref(1), ref(1, stale=True)])]},
        5,
        kept={"step": "登场"},
        cut=(("出处", R.stale_ref),),
    ),
    Case(
        "field dated after as_of is left out",
        {**BASE, "fields": {**FIELDS, "goal": {"value": "长生", "since_chapter": 5}}},
        4,
        cut=(("目标", R.future),),
    ),
    Case(
        "field whose proof is after as_of is left out, whatever its 起始章",
        {
            **BASE,
            "fields": {**FIELDS, "goal": {"value": "长生", "since_chapter": 1, "refs": [ref(5)]}},
        },
        4,
        cut=(("目标", R.future),),
    ),
    Case(
        "undated field is setting known from the debut",
        {**BASE, "fields": {**FIELDS, "goal": {"value": "长生"}}},
        1,
    ),
    Case(
        "sealed field without a date stays sealed",
        {**BASE, "fields": {**FIELDS, "true_identity": {"value": "六耳猕猴"}}},
        10_000,
        cut=(("真实身份", R.sealed),),
    ),
    Case(
        "future alias is left out",
        {**BASE, "aliases": ["美猴王", {"name": "齐天大圣", "since_chapter": 4}]},
        3,
        kept={"aliases": ["美猴王"]},
        cut=(("齐天大圣", R.future),),
    ),
    Case(
        "relation dated after as_of is left out",
        {
            **BASE,
            "relations": [
                {"kind": "师父", "target": "菩提祖师", "since_chapter": 2},
                {"kind": "邻居", "target": "东海龙王", "refs": [ref(3)]},
            ],
        },
        1,
        cut=(("菩提祖师", R.future), ("东海龙王", R.future)),
    ),
    Case(
        "milestone naming the card's own future alias belongs to the future",
        {
            "aliases": [{"name": "齐天大圣", "since_chapter": 4}],
            "milestones": [debut(1), {"chapter": 2, "cycle": "成长", "step": "自称齐天大圣"}],
        },
        3,
        cut=(("自称齐天大圣", R.future_mention),),
    ),
    Case(
        "card-level references after as_of are dropped",
        {**BASE, "refs": [ref(1), ref(9)]},
        2,
        cut=(("卡片的出处（第 9 章）", R.future),),
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_state_as_of_rule(case: Case):
    result = state_as_of(card(**case.parts), case.as_of)
    assert result.exists and result.state is not None
    for attribute, expected in case.kept.items():
        assert getattr(result.state, attribute) == expected
    cut = [(x.item, x.reason) for x in result.excluded]
    for item, reason in case.cut:
        assert any(item in i and r == reason for i, r in cut), f"{item} {reason} not in {cut}"
    shown = result.state.model_dump_json()
    for x in result.excluded:
        if x.kind == "milestone":
            step = x.item.split("：", 1)[1]
            assert f'"step":"{step}"' not in shown


def test_every_item_is_either_kept_or_reported():
    c = card(
        milestones=[
            debut(1),
            {"chapter": 2, "cycle": "成长", "step": "a"},
            {"chapter": None, "cycle": "成长", "step": "b"},
        ],
        fields={**FIELDS, "goal": {"value": "x", "since_chapter": 7}},
        aliases=["甲", {"name": "乙", "since_chapter": 9}],
    )
    result = state_as_of(c, 2)
    assert len(result.state.milestones) + sum(x.kind == "milestone" for x in result.excluded) == 3
    assert len(result.state.fields) + sum(x.kind == "field" for x in result.excluded) == 4
    assert len(result.state.aliases) + sum(x.kind == "alias" for x in result.excluded) == 2


@pytest.mark.parametrize(
    ("milestones", "as_of", "exists", "reason"),
    [
        ([debut(5)], 4, False, R.not_debuted),
        ([debut(5)], 5, True, None),
        ([debut(None)], 10_000, False, R.debut_unproven),
        ([debut(2, refs=[ref(3)])], 10_000, False, R.debut_unproven),  # misplaced debut
        ([debut(2, refs=[ref(2, stale=True)])], 10_000, False, R.debut_unproven),
        ([debut(None), debut(3)], 3, True, None),  # the proven one counts
        ([], 0, True, None),  # no 登场: setting known from the start
    ],
)
def test_a_card_exists_only_from_its_proven_debut(milestones, as_of, exists, reason):
    result = state_as_of(card(milestones=milestones), as_of)
    assert result.exists is exists
    assert (result.state is not None) is exists
    if not exists:
        assert [x.reason for x in result.excluded] == [reason]
        assert result.excluded[0].kind == "card"


def test_sealed_field_shows_once_its_reveal_chapter_is_reached():
    c = card(
        type="secret",
        name="身世之谜",
        fields={"summary": {"value": "谜"}, "truth": {"value": "天产石猴", "since_chapter": 7}},
    )
    assert "truth" not in state_as_of(c, 6).state.fields
    assert state_as_of(c, 7).state.fields["truth"].value == "天产石猴"


def test_book_level_mentions_of_cards_that_do_not_exist_yet_are_cut():
    wukong = card(
        milestones=[
            debut(1),
            {"chapter": 2, "cycle": "成长", "step": "拜师", "description": "拜唐僧为师"},
        ],
        relations=[{"kind": "师父", "target": "唐僧"}, {"kind": "师父", "target": "菩提祖师"}],
        fields={**FIELDS, "goal": {"value": "保唐僧西天取经"}},
    )
    tang = card("唐僧", aliases=["玄奘"], milestones=[debut(12)])
    puti = card("菩提祖师", milestones=[debut(1)])
    states = {s.card_id: s for s in book_state_as_of([wukong, tang, puti], 5)}
    mine = states[wukong.id]
    assert states[tang.id].state is None
    assert [r.target for r in mine.state.relations] == ["菩提祖师"]
    assert "goal" not in mine.state.fields
    assert [m.step for m in mine.state.milestones] == ["登场"]
    assert "唐僧" not in mine.state.model_dump_json()
    reasons = {x.reason for x in mine.excluded}
    assert reasons >= {R.future_mention}
    # once 唐僧 has appeared, nothing about him is cut
    later = {s.card_id: s for s in book_state_as_of([wukong, tang, puti], 12)}[wukong.id]
    assert len(later.state.relations) == 2 and "goal" in later.state.fields


def test_a_present_name_shared_with_a_future_card_is_not_a_leak():
    a = card("大圣", milestones=[debut(1)])
    b = card("齐天大圣", aliases=["大圣"], milestones=[debut(9)])
    c = card(
        "土地", milestones=[debut(1), {"chapter": 1, "cycle": "成长", "description": "拜见大圣"}]
    )
    state = {s.card_id: s for s in book_state_as_of([a, b, c], 2)}[c.id]
    assert len(state.state.milestones) == 2
