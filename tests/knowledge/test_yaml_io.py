"""The hand-editable YAML format: errors name file, line and field; export imports back the same."""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from muse.core.errors import InvalidInput
from muse.knowledge.card_import import import_cards_yaml
from muse.knowledge.card_state import work_state_as_of
from muse.knowledge.card_types import registry
from muse.knowledge.cards import find_card, load_cards, spec_of
from muse.knowledge.contracts import CardStatus
from muse.knowledge.drafts import list_drafts
from muse.knowledge.setting_gates import setting_ledger
from muse.knowledge.yaml_export import export_cards_yaml
from muse.knowledge.yaml_io import parse_cards_yaml
from muse.works.canonical import add_chapter
from muse.works.catalog import create_work
from tests.knowledge.xiyouji import CHAPTERS

DOC = Path(__file__).resolve().parents[2] / "docs" / "cards.md"


def doc_example() -> str:
    return re.search(r"```yaml\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S).group(1)


def test_the_documented_example_imports_and_behaves_as_documented(conn, work):
    report = import_cards_yaml(conn, work, doc_example(), filename="cards.md", confirm=True)
    assert [o.status for o in report.outcomes] == ["confirmed"] * 7
    assert not [w for w in report.warnings if "推荐字段" not in w], report.warnings
    wukong = find_card(conn, work, "美猴王")
    assert wukong.fields["personality"].value == "心高气傲，不服拘管。"
    assert wukong.fields["speech_style"].doubt == "前四回对白太少，等第五回再定。"
    assert wukong.milestones[2].refs[0].quote == "那祖师即命大众引孙悟空出二门外"
    state = next(c for c in work_state_as_of(conn, work, 3).visible() if c.name == "孙悟空")
    assert state.aliases == ["石猴", "美猴王"]
    assert state.step == "龙宫得宝"
    names = {c.name for c in work_state_as_of(conn, work, 3).visible()}
    assert "天庭" not in names and "如意金箍棒" in names
    assert setting_ledger(conn, work).unclosed == []


def test_the_doc_lists_every_type_and_required_field():
    text = DOC.read_text(encoding="utf-8")
    for kind in registry().types:
        row = next(line for line in text.splitlines() if line.startswith(f"| `{kind.key}` |"))
        for field in kind.fields:
            if field.key != "summary" and (field.required or field.recommended):
                assert field.label in row, (kind.key, field.label)


def test_export_imports_back_to_the_same_cards(conn, work):
    import_cards_yaml(conn, work, doc_example(), confirm=True)
    exported = export_cards_yaml(conn, work)
    other = create_work(conn, "西游记（副本）")
    for number, (title, text) in CHAPTERS.items():
        add_chapter(conn, other, number, title, text)
    report = import_cards_yaml(
        conn, other, exported.replace("作品: 西游记", "作品: 西游记（副本）"), confirm=True
    )
    assert all(o.status == "confirmed" for o in report.outcomes)
    assert [spec_of(c) for c in load_cards(conn, other)] == [
        spec_of(c) for c in load_cards(conn, work)
    ]
    assert export_cards_yaml(conn, other).replace("西游记（副本）", "西游记") == exported


def test_import_without_confirm_leaves_drafts_only(conn, work):
    report = import_cards_yaml(conn, work, doc_example())
    assert {o.status for o in report.outcomes} == {"new"}
    assert load_cards(conn, work) == []
    assert len(list_drafts(conn, work)) == 7
    assert {d.origin_detail["file"] for d in list_drafts(conn, work)} == {"cards.yaml"}


def test_english_keys_and_a_bare_list_are_accepted(conn, work):
    text = """
    - type: character
      name: 孙悟空
      aliases: [美猴王]
      fields: {简介: 石猴, identity: 美猴王, 性格: 桀骜}
      milestones:
        - {chapter: 1, cycle: debut, step: 出世, refs: [{chapter: 1, quote: 石猴}]}
    """
    [card], _ = parse_cards_yaml(conn, work, textwrap.dedent(text))
    assert card.fields["identity"].value == "美猴王"
    assert card.milestones[0].cycle.value == "登场" and card.milestones[0].refs[0].quote == "石猴"


def test_a_non_absolute_chapter_is_kept_but_warned_about(conn, work):
    text = """
    卡片:
      - 类型: 人物
        名称: 孙悟空
        字段: {简介: 石猴, 身份: 美猴王, 性格: 桀骜}
        演变历程:
          - {章: 第3章, 周期: 高光, 台阶: 得宝}
          - {章: 第二卷第三章, 周期: 高光, 台阶: 大闹天宫}
    """
    [card], warnings = parse_cards_yaml(conn, work, textwrap.dedent(text))
    assert [(m.chapter, m.chapter_note) for m in card.milestones] == [
        (3, None),
        (None, "第二卷第三章"),
    ]
    assert any("大闹天宫" in w and "没有绝对章号" in w for w in warnings)


CARD_HEAD = """\
卡片:
  - 类型: 人物
    名称: 孙悟空
"""


@dataclass(frozen=True)
class Bad:
    name: str
    body: str
    line: int
    message: str


BAD = [
    Bad(
        "unknown type",
        "卡片:\n  - 类型: 神兽\n    名称: 白泽\n    字段: {简介: x}\n",
        2,
        "未知的卡片类型「神兽」",
    ),
    Bad(
        "missing required field",
        CARD_HEAD + "    字段:\n      简介: 石猴\n      身份: 美猴王\n",
        4,
        "卡片「孙悟空」：缺少必填字段「性格」（personality）",
    ),
    Bad(
        "doubt without reason",
        CARD_HEAD + "    字段:\n      简介: 石猴\n      身份: 美猴王\n      性格: 字段存疑：\n",
        7,
        "字段「性格」的「字段存疑」必须写明原因",
    ),
    Bad(
        "unknown field",
        CARD_HEAD + "    字段:\n      简介: x\n      身份: x\n      性格: x\n      法号: 悟空\n",
        8,
        "「人物」没有字段「法号」",
    ),
    Bad(
        "quote not verbatim",
        CARD_HEAD + "    字段:\n      简介: x\n      身份: x\n      性格: x\n"
        "    出处:\n      - {章: 3, 引文: 悟空拿着金箍棒}\n",
        9,
        "引文「悟空拿着金箍棒」不在第 3 章的原文中",
    ),
    Bad(
        "reference to a missing chapter",
        CARD_HEAD + "    字段: {简介: x, 身份: x, 性格: x}\n    出处: [{章: 9, 引文: x}]\n",
        5,
        "没有这一章",
    ),
    Bad(
        "wrong cycle",
        CARD_HEAD + "    字段: {简介: x, 身份: x, 性格: x}\n    演变历程:\n"
        "      - {章: 1, 周期: 巅峰}\n",
        6,
        "「周期」只能是 登场 / 成长 / 高光 / 退场 / 结局",
    ),
    Bad(
        "bad since chapter",
        CARD_HEAD + "    字段: {简介: x, 身份: x, 性格: x}\n    别名:\n"
        "      - {名称: 行者, 起始章: 十四}\n",
        6,
        "「起始章」应为正整数",
    ),
    Bad(
        "unknown key",
        CARD_HEAD + "    字段: {简介: x, 身份: x, 性格: x}\n    门派: 花果山\n",
        5,
        "卡片里有未知的键「门派」",
    ),
    Bad(
        "text field given a list",
        CARD_HEAD + "    字段: {简介: x, 身份: [a, b], 性格: x}\n",
        4,
        "字段「身份」应为一段文字，不是列表",
    ),
    Bad("missing name", "卡片:\n  - 类型: 人物\n    字段: {简介: x}\n", 2, "缺少「名称」"),
    Bad(
        "duplicate card",
        CARD_HEAD + "    字段: {简介: x, 身份: x, 性格: x}\n  - 类型: character\n"
        "    名称: 孙悟空\n    字段: {简介: x, 身份: x, 性格: x}\n",
        5,
        "卡片「孙悟空」重复",
    ),
    Bad("another work", "作品: 三国演义\n卡片: []\n", 1, "文件写的是《三国演义》"),
    Bad("not yaml", "卡片:\n  - 类型: 人物\n    名称: [孙悟空\n", 4, "不是合法的 YAML"),
    Bad(
        "stale reference",
        CARD_HEAD + "    字段: {简介: x, 身份: x, 性格: x}\n"
        "    出处: [{章: 1, 引文: 石猴, 失效: 原文已修改}]\n",
        5,
        "出处已失效",
    ),
]


@pytest.mark.parametrize("bad", BAD, ids=lambda b: b.name)
def test_errors_name_the_file_the_line_and_the_field_and_nothing_is_written(conn, work, bad):
    with pytest.raises(InvalidInput) as caught:
        import_cards_yaml(conn, work, bad.body, filename="悟空.yaml")
    message = caught.value.message
    assert f"悟空.yaml:{bad.line}: " in message, message
    line = next(x for x in message.splitlines() if x.startswith(f"悟空.yaml:{bad.line}: "))
    assert bad.message in line, message
    assert load_cards(conn, work, statuses=list(CardStatus)) == []


def test_every_error_of_a_file_is_reported_at_once(conn, work):
    body = BAD[1].body + "  - 类型: 神兽\n    名称: 白泽\n    字段: {简介: x}\n"
    with pytest.raises(InvalidInput, match="有 2 处错误") as caught:
        import_cards_yaml(conn, work, body)
    assert "cards.yaml:4:" in caught.value.message and "cards.yaml:7:" in caught.value.message


def _person_cards(names: list[str], extra: str = "") -> str:
    lines = ["格式: muse-cards-v1", "卡片:"]
    for name in names:
        lines += [
            "  - 类型: 人物",
            f"    名称: {name}",
            "    字段: {简介: 花果山的猴子。, 身份: 猴, 性格: 好动}",
        ]
    return "\n".join(lines) + "\n" + extra


def test_confirming_an_import_reads_the_confirmed_cards_once(conn, work, monkeypatch):
    """Bulk confirmation keeps one pool of confirmed cards: no reload per card (it was quadratic)."""
    import muse.knowledge.card_import as card_import
    import muse.knowledge.drafts as drafts

    calls = []
    for module in (drafts, card_import):
        real = module.load_cards
        monkeypatch.setattr(
            module, "load_cards", lambda *a, real=real, **k: calls.append(1) or real(*a, **k)
        )
    names = [f"猴{n}号" for n in range(12)]
    report = import_cards_yaml(conn, work, _person_cards(names), confirm=True)
    assert [o.status for o in report.outcomes] == ["confirmed"] * 12
    assert len(calls) == 1
    assert sorted(c.name for c in load_cards(conn, work)) == sorted(names)


def test_a_file_that_names_a_card_twice_still_merges_into_the_first(conn, work):
    """The pool is kept current: the second entry finds the card the first one confirmed."""
    extra = "\n".join(
        [
            "  - 类型: 人物",
            "    名称: 猴甲",
            "    别名: [甲哥]",
            "    字段: {简介: 花果山的猴子。, 身份: 猴, 性格: 好动}",
            "  - 类型: 人物",
            "    名称: 甲哥",
            "    字段: {简介: 花果山的猴子。, 身份: 猴, 性格: 好动, 说话风格: 爱嚷}",
        ]
    )
    report = import_cards_yaml(conn, work, _person_cards(["猴乙"], extra + "\n"), confirm=True)
    assert [o.status for o in report.outcomes] == ["confirmed"] * 3
    cards = {c.name: c for c in load_cards(conn, work)}
    assert sorted(cards) == ["猴乙", "猴甲"]
    assert cards["猴甲"].fields["speech_style"].value == "爱嚷"
