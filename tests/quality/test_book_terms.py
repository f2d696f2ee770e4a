"""A hard event's distinctive book term, changed in place, blocks (issue 18, second pass).

A seven-chapter book of real prose (``tests/fixtures/prose/xiyouji_terms.txt``: one passage of
each of 西游记 chapters 19–25); the context is frozen at as_of 6 for chapter 7, whose passage is
the candidate. 人参果 is the book's own word: one chapter of six uses it before chapter 7
(distinctive); 师父 is in three of them (common). Cards: 孙悟空 (行者, 悟空, 老孙) from chapter
1, 唐僧 (三藏, 长老) and 猪八戒 (八戒, 呆子) from chapter 2, the item 金击子 from chapter 6. Each case fails without the rule it
names (the first blocks only by it; the others guard what it must never block).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from muse.context.output_contracts import DraftClaim, WriterDraft
from muse.context.writer_context import freeze_context
from muse.context.writer_output import build_output
from muse.flow.checking import check_lexicons
from muse.knowledge.card_import import import_cards_yaml
from muse.planning.fine_outlines import confirm_section, load_confirmed, save_fine_outline
from muse.quality import mechanical
from muse.quality.frames import changed_in_place
from muse.quality.hard_events import distinctive, event_checks
from muse.works import authorization
from muse.works.canonical import add_chapter
from muse.works.catalog import create_work

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "prose" / "xiyouji_terms.txt"
TARGET = 7
CARDS = """格式: muse-cards-v1
卡片:
  - 类型: 人物
    名称: 孙悟空
    别名: [行者, 悟空, 老孙]
    字段: {简介: 原书人物。, 身份: 大徒弟, 性格: 好动}
    演变历程:
      - {章: 1, 周期: 登场, 台阶: 登场, 出处: [{章: 1, 引文: 行者喝一声道}]}
  - 类型: 人物
    名称: 唐僧
    别名: [三藏, 长老]
    字段: {简介: 原书人物。, 身份: 师父, 性格: 慈悲}
    演变历程:
      - {章: 2, 周期: 登场, 台阶: 登场, 出处: [{章: 2, 引文: 三藏道}]}
  - 类型: 人物
    名称: 猪八戒
    别名: [八戒, 呆子]
    字段: {简介: 原书人物。, 身份: 二徒弟, 性格: 贪懒}
    演变历程:
      - {章: 2, 周期: 登场, 台阶: 登场, 出处: [{章: 2, 引文: 八戒道}]}
  - 类型: 物品
    名称: 金击子
    字段: {简介: 五庄观打果子的器物。, 用途: 打人参果}
    演变历程:
      - {章: 6, 周期: 登场, 台阶: 登场, 出处: [{章: 6, 引文: 一个拿了金击子}]}
"""


def passages() -> dict[int, str]:
    chapters: dict[int, str] = {}
    for block in FIXTURE.read_text(encoding="utf-8").split("=== ")[1:]:
        number, text = block.split("\n", 1)
        chapters[int(number)] = text.strip()
    return chapters


CANDIDATE = passages()[TARGET]


@pytest.fixture
def freeze(engine):
    with engine.begin() as conn:
        work_id = create_work(conn, "西游片段", default_chapter_chars=2500)
        for number, text in passages().items():
            add_chapter(conn, work_id, number, f"第{number}回", text)
        import_cards_yaml(conn, work_id, CARDS, confirm=True)

    def make(event: str):
        outline = {
            "target_chapter": TARGET,
            "title": f"第{TARGET}回",
            "hard_constraints": {
                "hard_events": [{"id": "H1", "text": event}],
                "result_direction": {"id": "R1", "text": "八戒倒转胡嚷"},
                "chapter_end_hook": {"id": "K1", "text": "那呆子倒转胡嚷"},
                "foreshadowing_note": "本章不安排伏笔动作。",
                "required_entities": [
                    {"id": "E1", "name": "孙悟空"},
                    {"id": "E2", "name": "唐僧"},
                    {"id": "E3", "name": "猪八戒"},
                ],
            },
        }
        with engine.begin() as conn:
            confirm_section(conn, save_fine_outline(conn, work_id, outline))
            section_id, fine = load_confirmed(conn, work_id, TARGET)
            return freeze_context(
                conn,
                work_id=work_id,
                outline=fine,
                outline_section_id=section_id,
                run_id="run_00000000000000000018",
                attempt=1,
                as_of=TARGET - 1,
                authorization=authorization.take_snapshot(conn, work_id, "production"),
                store=False,
            )

    return make


@dataclass(frozen=True)
class TermCase:
    rule: str
    event: str  # the outline's hard event
    claim: str  # the claimed quote of the real passage (before ``swap``)
    status: str
    swap: tuple[str, str] | None = None  # a term changed in place, everywhere in the candidate


TERM_CASES = (
    TermCase(
        "the book's distinctive term changed in place blocks",
        "他这观里，有甚么人参果，似孩子一般的东西",
        "他这观里，有甚么人参果，似孩子一般的东西，你们是那一个偷他的吃了？",
        "contradicted",
        swap=("人参果", "紫金铃"),
    ),
    TermCase(
        "a thing of the book (an item card) the event names, absent from the chapter, blocks",
        "行者用金击子打了三个果子",
        "着老孙去打了三个，我兄弟各人吃了一个。",
        "contradicted",
    ),
    TermCase(
        "a common word changed in place under the outline's own words blocks",
        "对师父道：“饭将熟了，叫我们怎的？”",
        "对师父道：“饭将熟了，叫我们怎的？”",
        "contradicted",
        swap=("师父", "长者"),
    ),
    TermCase(
        "a word that keeps a character of the term (老父 for 师父) is a variant, never a change",
        "对师父道：“饭将熟了，叫我们怎的？”",
        "对师父道：“饭将熟了，叫我们怎的？”",
        "unverifiable",
        swap=("师父", "老父"),
    ),
    TermCase(
        "a name of the work in the term's place is no change (the outline's 师父 is 长老)",
        "对师父道：“饭将熟了，叫我们怎的？”",
        "对师父道：“饭将熟了，叫我们怎的？”",
        "unverifiable",
        swap=("师父", "长老"),
    ),
    TermCase(
        "the author's own words, the book's rare word absent without its frame: handed on",
        "唐僧盘问徒弟们，想找到借宿之处，八戒装傻抵赖",
        "八戒道：“我老实，不晓得，不曾见。”",
        "unverifiable",
    ),
    TermCase(
        "a paraphrase in common words only: not blocked, handed on",
        "唐僧追问是谁偷吃了观里的果子，猪八戒装傻说不知道",
        "八戒道：“我老实，不晓得，不曾见。”",
        "unverifiable",
    ),
    TermCase(
        "the distinctive term present, the person under an alias: verified",
        "孙悟空见唐僧说得有理，就实说了偷吃人参果的事",
        "行者见师父说得有理，他就实说道：“师父，不干我事。是八戒隔壁听见那两个道童吃甚么人参果",
        "verified",
    ),
)


@pytest.mark.parametrize("case", TERM_CASES, ids=[c.rule for c in TERM_CASES])
def test_distinctive_terms(engine, freeze, case: TermCase) -> None:
    frozen = freeze(case.event)
    body, claim = CANDIDATE, case.claim
    if case.swap:
        body, claim = body.replace(*case.swap), claim.replace(*case.swap)
    draft = WriterDraft(paragraphs=(body,), claims=(DraftClaim(constraint_id="H1", quote=claim),))
    output, unlocated = build_output(frozen.context, frozen.snapshot_id, draft, 1)
    leak, known = check_lexicons(engine, frozen.context)
    [check] = [c for c in event_checks(frozen.context, output, known) if c.kind == "hard_event"]
    assert check.status == case.status, check.note()
    findings = mechanical.check(
        frozen.context, output, unlocated, leak_lexicon=leak, entity_lexicon=known
    )
    blocked = [f for f in findings if f.kind == "hard_event_unverified"]
    assert bool(blocked) == (case.status == "contradicted")
    if blocked:
        assert (case.swap[0] if case.swap else "金击子") in blocked[0].message


def test_what_is_distinctive(engine, freeze) -> None:
    frozen = freeze("行者偷人参果")
    _, known = check_lexicons(engine, frozen.context)
    assert known.chapters_so_far() == TARGET - 1
    assert distinctive("人参果", known)  # one chapter of six
    assert not distinctive("师父", known)  # three of six
    assert not distinctive("偷吃", known)  # not the book's word so far
    assert not distinctive("贤徒", known)  # nowhere


@pytest.mark.parametrize(
    ("event", "term", "body", "changed"),
    [
        ("有甚么人参果，似孩子", "人参果", "他这观里，有甚么紫金铃，似孩子一般", True),
        # the frame holds only a name and punctuation: a name stands beside many words
        ("秦宓冒死劝谏", "冒死", "秦宓又复劝谏", False),
        ("面对玉华王", "面对", "行者拜见玉华王", False),
        # a neighbouring term changed too is any text of its length in the frame
        ("却好借宿，我们去来", "借宿", "却好安歇，我们去来", True),
        ("一路借宿", "借宿", "一路安歇", False),  # too short a frame
        # the frame reaches past a name to three Han characters of the outline
        ("却说玄德见孙夫人房中，两边枪刀", "房中", "却说玄德见孙夫人山上，两边枪刀森列", True),
        # at the edge of the event, three on the one side
        ("对阵圆处，张辽出马", "对阵", "书院圆处，张辽出马", True),
        ("对阵圆处", "对阵", "书院圆处", False),
    ],
)
def test_changed_in_place(event: str, term: str, body: str, changed: bool) -> None:
    names = ["秦宓", "玉华王", "行者", "玄德", "孙夫人", "张辽"]
    assert changed_in_place(event, term, body, (), names) is changed
