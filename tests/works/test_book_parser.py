"""Splitting a book into front matter, volumes and chapters; numbering problems reported."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from muse.core.text import count_han
from muse.works.book_parser import ParsedBook, parse_book

FIXTURES = Path(__file__).parents[1] / "fixtures" / "books"
sys.path.insert(0, str(Path(__file__).parents[2] / "bench"))
from synthetic_book import synthetic_web_novel  # noqa: E402

BODY = "　　他推开门，屋里没有人。"


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


# ---------------------------------------------------------------------------- headings


@dataclass(frozen=True)
class HeadingCase:
    line: str
    number: int
    title: str


CHAPTER_HEADINGS = [
    HeadingCase("第12章 标题", 12, "标题"),
    HeadingCase("第十二章", 12, ""),
    HeadingCase("第一千二百三十四章 大结局", 1234, "大结局"),
    HeadingCase("第12回", 12, ""),
    HeadingCase("第0章 序", 0, "序"),
    HeadingCase("第１２章 全角数字", 12, "全角数字"),
    HeadingCase("第 12 章 数字两边有空格", 12, "数字两边有空格"),
    HeadingCase("第12章：冒号", 12, "冒号"),
    HeadingCase("第12章、顿号", 12, "顿号"),
    HeadingCase("第12章 - 横线", 12, "横线"),
    HeadingCase("第12章紧贴标题", 12, "紧贴标题"),
    HeadingCase("第12章 你好，世界", 12, "你好，世界"),
    HeadingCase("第12章 标题里 有空格", 12, "标题里 有空格"),
    HeadingCase("第一百零八章 零", 108, "零"),
    HeadingCase("第一〇八章 〇", 108, "〇"),
    HeadingCase("第一零八章", 108, ""),
    HeadingCase("第两百章 两", 200, "两"),
    HeadingCase("第廿一章", 21, ""),
    HeadingCase("正文 第1章 带正文前缀", 1, "带正文前缀"),
    HeadingCase("　　第3章 缩进的标题", 3, "缩进的标题"),
    HeadingCase("第12章 标题   ", 12, "标题"),
    HeadingCase(
        "第一百十九回　假投降巧计成虚话　再受禅依样画葫芦",
        119,
        "假投降巧计成虚话　再受禅依样画葫芦",
    ),
    HeadingCase(
        "第一百一回　出陇上诸葛妆神　奔剑阁张郃中计", 101, "出陇上诸葛妆神　奔剑阁张郃中计"
    ),
    # Irregular separators of the corpus: a stray ASCII space stands for a lost rare character.
    HeadingCase("第一百十三回　丁奉定计斩孙 　姜维斗阵破邓艾", 113, "丁奉定计斩孙　姜维斗阵破邓艾"),
    HeadingCase("第十三回　陷虎穴金星解厄　双 岭伯钦留僧", 13, "陷虎穴金星解厄　双 岭伯钦留僧"),
    HeadingCase("第十四回　心猿归正　　六贼无踪", 14, "心猿归正　六贼无踪"),
    HeadingCase(
        "第一回 宴桃园豪杰三结义 斩黄巾英雄首立功", 1, "宴桃园豪杰三结义　斩黄巾英雄首立功"
    ),
    HeadingCase("第五回乱蟠桃大圣偷丹　反天宫诸神捉怪", 5, "乱蟠桃大圣偷丹　反天宫诸神捉怪"),
    HeadingCase("第十回　甲乙　丙丁　（上）", 10, "甲乙　丙丁　（上）"),
]


@pytest.mark.parametrize("case", CHAPTER_HEADINGS, ids=lambda c: c.line.strip())
def test_chapter_heading(case: HeadingCase) -> None:
    book = parse_book(f"{case.line}\n{BODY}\n")
    assert [(c.number, c.title) for c in book.chapters] == [(case.number, case.title)]
    chapter = book.chapters[0]
    assert chapter.heading == case.line.strip()
    assert chapter.body == BODY
    assert book.volumes == ()


VOLUME_HEADINGS = [
    HeadingCase("第一卷 潜龙在渊", 1, "潜龙在渊"),
    HeadingCase("第1卷", 1, ""),
    HeadingCase("第二卷：风起云涌", 2, "风起云涌"),
    HeadingCase("第三卷剑指苍穹", 3, "剑指苍穹"),
    HeadingCase("第二部 山河", 2, "山河"),
    HeadingCase("第三集", 3, ""),
]


@pytest.mark.parametrize("case", VOLUME_HEADINGS, ids=lambda c: c.line)
def test_volume_heading_is_a_volume_not_a_chapter(case: HeadingCase) -> None:
    book = parse_book(f"{case.line}\n\n第1章 开始\n{BODY}\n")
    assert [(v.number, v.title, v.heading, v.line_no) for v in book.volumes] == [
        (case.number, case.title, case.line, 1)
    ]
    assert [(c.number, c.volume_position) for c in book.chapters] == [(1, 1)]


def test_volume_and_first_chapter_on_one_line() -> None:
    book = parse_book(f"第一卷 潜龙在渊 第1章 少年\n{BODY}\n第2章 出山\n{BODY}\n")
    assert [(v.number, v.title, v.heading) for v in book.volumes] == [
        (1, "潜龙在渊", "第一卷 潜龙在渊")
    ]
    assert [(c.number, c.title, c.heading, c.line_no) for c in book.chapters] == [
        (1, "少年", "第1章 少年", 1),
        (2, "出山", "第2章 出山", 3),
    ]
    assert book.chapters[0].body == BODY


# Lines inside a chapter that start like a heading but are prose.
NOT_HEADINGS = [
    "第四回中，既将妖猴收伏，众神各归本位。",
    "第三章里说到……",
    "第三章里说到他",
    "第二天，他很早就起来了。",
    "第十回说的是…",
    "第十回说的是唐太宗入冥的事",
    "第三回合，两人仍未分出胜负。",
    "第三回合",
    "第一部分的内容到此为止。",
    "第一部分",
    "第一集团军开进城里",
    "第1章的内容写得很好，但是后面太拖沓了，我建议作者……",
    "第一卷完",
    "第一卷 完",
    "第二闻声清与浊，听他真语及狂言。三问病原经几日，如何饮食怎生眠。",
    "第三日包管有十万枝箭。",
    "第一镇后将军、南阳太守袁术。",
    "第X章 不是数字",
    "第一二三四五六七八九十百千万章 数字太长",
    "他说第3章 其实不是标题",
]


@pytest.mark.parametrize("line", NOT_HEADINGS)
def test_prose_that_starts_like_a_heading_does_not_split_a_chapter(line: str) -> None:
    text = f"第1章 开始\n{BODY}\n{line}\n{BODY}\n第2章 继续\n{BODY}\n"
    book = parse_book(text)
    assert [c.number for c in book.chapters] == [1, 2]
    assert book.chapters[0].body == f"{BODY}\n{line}\n{BODY}"
    assert book.volumes == ()


# ---------------------------------------------------------------------------- run-on bodies


@dataclass(frozen=True)
class RunOnCase:
    name: str
    line: str
    number: int
    title: str
    heading: str
    body: str


RUN_ONS = [
    RunOnCase(
        "couplet glued to the body (upstream corpus form)",
        "第一百二回　司马懿占北原渭桥　诸葛亮造木牛流马却说谯周官居太史，颇明天文；见孔明又欲出师。",
        102,
        "司马懿占北原渭桥　诸葛亮造木牛流马",
        "第一百二回　司马懿占北原渭桥　诸葛亮造木牛流马",
        "却说谯周官居太史，颇明天文；见孔明又欲出师。",
    ),
    RunOnCase(
        "short couplet glued to a short first line",
        "第一百回　径回东土　五圣成真且不言他四众脱身。",
        100,
        "径回东土　五圣成真",
        "第一百回　径回东土　五圣成真",
        "且不言他四众脱身。",
    ),
    RunOnCase(
        "couplet glued to verse",
        "第一回　灵根育孕源流出　心性修持大道生诗曰：",
        1,
        "灵根育孕源流出　心性修持大道生",
        "第一回　灵根育孕源流出　心性修持大道生",
        "诗曰：",
    ),
    RunOnCase(
        "couplet, then a space, then the body",
        "第一百二回　司马懿占北原渭桥　诸葛亮造木牛流马　却说谯周官居太史，颇明天文。",
        102,
        "司马懿占北原渭桥　诸葛亮造木牛流马",
        "第一百二回　司马懿占北原渭桥　诸葛亮造木牛流马",
        "却说谯周官居太史，颇明天文。",
    ),
    RunOnCase(
        "couplet with a lost character, glued",
        "第一百十三回　丁奉定计斩孙 　姜维斗阵破邓艾却说孙綝既杀吕据、王惇，权势愈盛。",
        113,
        "丁奉定计斩孙　姜维斗阵破邓艾",
        "第一百十三回　丁奉定计斩孙 　姜维斗阵破邓艾",
        "却说孙綝既杀吕据、王惇，权势愈盛。",
    ),
    RunOnCase(
        "couplet with ASCII spaces, glued",
        "第一回 宴桃园豪杰三结义 斩黄巾英雄首立功话说天下大势，分久必合，合久必分。",
        1,
        "宴桃园豪杰三结义　斩黄巾英雄首立功",
        "第一回 宴桃园豪杰三结义 斩黄巾英雄首立功",
        "话说天下大势，分久必合，合久必分。",
    ),
    RunOnCase(
        "chapter title, space, long body",
        "第1章 重逢 他推开门，看见她站在窗前，手里拿着那封信，信纸已经发黄了，边角卷起。",
        1,
        "重逢",
        "第1章 重逢",
        "他推开门，看见她站在窗前，手里拿着那封信，信纸已经发黄了，边角卷起。",
    ),
    RunOnCase(
        "chapter title, space, short sentence with a full stop",
        "第2章 夜雨 雨下了一整夜。",
        2,
        "夜雨",
        "第2章 夜雨",
        "雨下了一整夜。",
    ),
    RunOnCase(
        "title with spaces kept up to the last space before the first clause",
        "第3章 风起 上 他没有回头，径直走进了雨里，身后的门在风中来回摇晃，吱呀作响。",
        3,
        "风起 上",
        "第3章 风起 上",
        "他没有回头，径直走进了雨里，身后的门在风中来回摇晃，吱呀作响。",
    ),
    RunOnCase(
        "no title: the body starts right after the marker",
        "第4章 他推开门，看见她站在窗前，手里拿着那封信，信纸已经发黄了，边角卷起。",
        4,
        "",
        "第4章",
        "他推开门，看见她站在窗前，手里拿着那封信，信纸已经发黄了，边角卷起。",
    ),
]


@pytest.mark.parametrize("case", RUN_ONS, ids=lambda c: c.name)
def test_heading_with_body_on_the_same_line(case: RunOnCase) -> None:
    book = parse_book(f"{case.line}\n{BODY}\n")
    [chapter] = book.chapters
    assert (chapter.number, chapter.title, chapter.heading) == (
        case.number,
        case.title,
        case.heading,
    )
    assert chapter.body == f"{case.body}\n{BODY}"


# ---------------------------------------------------------------------------- structure


def test_front_matter_before_the_first_heading() -> None:
    text = f"书名：青云问道\n作者：无名氏\n\n简介：一个少年的故事。\n\n第1章 开始\n{BODY}\n"
    book = parse_book(text)
    assert book.front_matter == "书名：青云问道\n作者：无名氏\n\n简介：一个少年的故事。"
    assert [c.number for c in book.chapters] == [1]


def test_no_front_matter_is_empty() -> None:
    assert parse_book(f"\n\n第1章 开始\n{BODY}\n").front_matter == ""


def test_text_without_headings_is_all_front_matter() -> None:
    book = parse_book(f"\n{BODY}\n{BODY}\n")
    assert book == ParsedBook(f"{BODY}\n{BODY}".strip(), (), (), (), (), ())


def test_volumes_and_their_chapters() -> None:
    text = "\n".join(
        [
            "前言",
            "第1章 楔子",
            BODY,
            "第一卷 潜龙在渊",
            "第2章 出山",
            BODY,
            "第3章 下山",
            BODY,
            "第二卷 风起云涌",
            "本卷讲述主角离开宗门之后的故事。",
            "第4章 入城",
            BODY,
        ]
    )
    book = parse_book(text)
    assert book.front_matter == "前言"
    assert [(v.number, v.title, v.line_no) for v in book.volumes] == [
        (1, "潜龙在渊", 4),
        (2, "风起云涌", 9),
    ]
    assert [(c.number, c.volume_position, c.line_no) for c in book.chapters] == [
        (1, None, 2),
        (2, 1, 5),
        (3, 1, 7),
        (4, 2, 11),
    ]
    # Text between a volume heading and its first chapter stays with the preceding chapter.
    assert book.chapters[2].body == f"{BODY}\n本卷讲述主角离开宗门之后的故事。"
    assert book.chapters[3].body == BODY


def test_volume_introduction_before_any_chapter_is_front_matter() -> None:
    book = parse_book(f"书名\n第一卷 潜龙在渊\n本卷简介。\n第1章 开始\n{BODY}\n")
    assert book.front_matter == "书名\n本卷简介。"
    assert [c.volume_position for c in book.chapters] == [1]


def test_author_notes_stay_in_the_preceding_chapter() -> None:
    notes = "（作者的话：今天只有一更，明天补上。）\nPS：求月票！"
    book = parse_book(f"第1章 开始\n{BODY}\n\n{notes}\n\n第2章 继续\n{BODY}\n")
    assert [c.number for c in book.chapters] == [1, 2]
    assert book.chapters[0].body == f"{BODY}\n\n{notes}"
    assert book.chapters[1].body == BODY


def test_empty_chapter_is_kept_with_an_empty_body() -> None:
    book = parse_book(f"第1章 开始\n{BODY}\n第2章 空章\n\n　　\n第3章 继续\n{BODY}")
    assert [(c.number, c.title, c.body) for c in book.chapters] == [
        (1, "开始", BODY),
        (2, "空章", ""),
        (3, "继续", BODY),
    ]


def test_body_keeps_its_inner_lines_and_drops_outer_blank_lines() -> None:
    inner = "　　第一段。\n\n　　第二段。\n诗句一，\n诗句二。"
    book = parse_book(f"第1章 开始\n\n \n{inner}\n\n\n　\n第2章 继续\n{BODY}\n\n")
    assert book.chapters[0].body == inner
    assert book.chapters[1].body == BODY


def test_line_numbers_are_one_based_lines_of_the_text() -> None:
    book = parse_book(f"序\n\n第1章 开始\n{BODY}\n\n\n第2章 继续\n{BODY}")
    assert [c.line_no for c in book.chapters] == [3, 7]


def test_table_of_contents_is_front_matter_not_chapters() -> None:
    toc = "目录\n第一卷 潜龙在渊\n第1章 开始\n第2章 继续\n\n第3章 结束\n"
    text = (
        f"书名\n{toc}\n第一卷 潜龙在渊\n第1章 开始\n{BODY}\n第2章 继续\n{BODY}\n第3章 结束\n{BODY}"
    )
    book = parse_book(text)
    assert book.front_matter == f"书名\n{toc.strip()}"
    assert [(v.number, v.line_no) for v in book.volumes] == [(1, 9)]
    assert [(c.number, c.line_no, c.body) for c in book.chapters] == [
        (1, 10, BODY),
        (2, 12, BODY),
        (3, 14, BODY),
    ]
    assert book.duplicates == ()


def test_two_empty_chapters_are_not_a_table_of_contents() -> None:
    book = parse_book(f"第1章 上\n第2章 下\n第1章 上\n{BODY}\n第2章 下\n{BODY}")
    assert [c.number for c in book.chapters] == [1, 2, 1, 2]
    assert book.duplicates == (1, 2)


# ---------------------------------------------------------------------------- numbering


@dataclass(frozen=True)
class NumberingCase:
    name: str
    numbers: tuple[int, ...]
    gaps: tuple[tuple[int, int], ...]
    duplicates: tuple[int, ...]
    out_of_order: tuple[int, ...]


NUMBERING = [
    NumberingCase("clean", (1, 2, 3), (), (), ()),
    NumberingCase("excerpt starting late has no gap", (98, 99, 100), (), (), ()),
    NumberingCase("one missing", (1, 2, 4), ((3, 3),), (), ()),
    NumberingCase("a missing range", (1, 2, 3, 4, 8, 9), ((5, 7),), (), ()),
    NumberingCase("two gaps", (1, 3, 6), ((2, 2), (4, 5)), (), ()),
    NumberingCase("duplicate", (1, 2, 2, 3), (), (2,), ()),
    NumberingCase("repeat of an earlier number is a duplicate", (1, 2, 3, 2, 4), (), (2,), ()),
    NumberingCase("duplicates sorted", (5, 5, 1, 1, 2, 3, 4), (), (1, 5), ()),
    NumberingCase("out of order", (1, 2, 4, 3, 5), (), (), (3,)),
    NumberingCase("out of order filling a gap", (1, 5, 3), ((2, 2), (4, 4)), (), (3,)),
    NumberingCase("chapter 0", (0, 1, 2), (), (), ()),
]


@pytest.mark.parametrize("case", NUMBERING, ids=lambda c: c.name)
def test_numbering_problems_are_reported_not_repaired(case: NumberingCase) -> None:
    text = "\n".join(f"第{n}章 标题{i}\n{BODY}" for i, n in enumerate(case.numbers))
    book = parse_book(text)
    assert tuple(c.number for c in book.chapters) == case.numbers
    assert tuple(c.title for c in book.chapters) == tuple(
        f"标题{i}" for i in range(len(case.numbers))
    )
    assert (book.gaps, book.duplicates, book.out_of_order) == (
        case.gaps,
        case.duplicates,
        case.out_of_order,
    )


# ---------------------------------------------------------------------------- the corpus


@dataclass(frozen=True)
class CorpusCase:
    fixture: str
    numbers: tuple[int, ...]
    titles: tuple[str, ...]
    line_nos: tuple[int, ...]
    body_starts: tuple[str, ...]
    body_ends: tuple[str, ...]


CORPUS = [
    CorpusCase(
        "xiyouji_head.txt",
        (1, 2, 3),
        (
            "灵根育孕源流出　心性修持大道生",
            "悟彻菩提真妙理　断魔归本合元神",
            "四海千山皆拱伏　九幽十类尽除名",
        ),
        (1, 49, 83),
        ("诗曰：\n\n混沌未分天地乱", "话表美猴王得了姓名", "却说美猴王荣归故里"),
        ("甚么道果，且听下回分解。", "终始如何，且听下回分解。", "甚么官爵，且听下回分解。"),
    ),
    CorpusCase(
        "sanguoyanyi_head.txt",
        (1, 2, 3),
        (
            "宴桃园豪杰三结义　斩黄巾英雄首立功",
            "张翼德怒鞭督邮　何国舅谋诛宦竖",
            "议温明董卓叱丁原　馈金珠李肃说吕布",
        ),
        (1, 27, 54),
        ("话说天下大势，分久必合", "且说董卓字仲颖", "且说曹操当日对何进曰"),
        ("性命如何，且听下文分解。", "出甚话来，且听下文分解。", "性命如何，且听下文分解。"),
    ),
    CorpusCase(
        "xiyouji_tail_merged.txt",
        (99, 100),
        ("九九数完魔刬尽　三三行满道归根", "径回东土　五圣成真"),
        (1, 34),
        ("话表八金刚既送唐僧回国，不题。", "且不言他四众脱身，随金刚驾风而起。"),
        ("见那唐王，且听下回分解。", "摩诃萨，摩诃般若波罗密。"),
    ),
]


@pytest.mark.parametrize("case", CORPUS, ids=lambda c: c.fixture)
def test_corpus_excerpt(case: CorpusCase) -> None:
    book = parse_book(fixture(case.fixture))
    assert tuple(c.number for c in book.chapters) == case.numbers
    assert tuple(c.title for c in book.chapters) == case.titles
    assert tuple(c.line_no for c in book.chapters) == case.line_nos
    for chapter, start, end in zip(book.chapters, case.body_starts, case.body_ends, strict=True):
        assert chapter.body.startswith(start)
        assert chapter.body.endswith(end)
        assert chapter.heading not in chapter.body
        assert chapter.title.split("　")[0] not in chapter.body.split("\n", 1)[0]
    assert (book.front_matter, book.volumes) == ("", ())
    assert (book.gaps, book.duplicates, book.out_of_order) == ((), (), ())


def test_merged_corpus_headings_are_the_heading_part_only() -> None:
    book = parse_book(fixture("xiyouji_tail_merged.txt"))
    assert [c.heading for c in book.chapters] == [
        "第九十九回　九九数完魔刬尽　三三行满道归根",
        "第一百回　径回东土　五圣成真",
    ]


def test_no_text_is_lost_from_the_corpus_excerpts() -> None:
    for name in ("xiyouji_head.txt", "sanguoyanyi_head.txt", "xiyouji_tail_merged.txt"):
        text = fixture(name)
        book = parse_book(text)
        kept = sum(count_han(c.heading) + count_han(c.body) for c in book.chapters)
        assert kept + count_han(book.front_matter) == count_han(text), name


# ---------------------------------------------------------------------------- synthetic book


def test_synthetic_book_comes_back_exactly() -> None:
    text = synthetic_web_novel(chapters=30, han_per_chapter=300, chapters_per_volume=10)
    book = parse_book(text)
    assert [c.number for c in book.chapters] == list(range(1, 31))
    assert [c.volume_position for c in book.chapters] == [1] * 10 + [2] * 10 + [3] * 10
    assert [(v.number, v.title) for v in book.volumes] == [
        (1, "潜龙在渊"),
        (2, "风起云涌"),
        (3, "剑指苍穹"),
    ]
    headings = [line for line in text.split("\n") if line.startswith("第") and "章 " in line]
    assert [c.heading for c in book.chapters] == headings
    assert [c.heading for c in book.chapters][6] == f"第七章 {book.chapters[6].title}"
    assert book.front_matter.startswith("书名：")
    assert all(count_han(c.body) >= 300 for c in book.chapters)
    kept = sum(count_han(c.heading) + count_han(c.body) for c in book.chapters)
    kept += count_han(book.front_matter) + sum(count_han(v.heading) for v in book.volumes)
    assert kept == count_han(text)
    assert (book.gaps, book.duplicates, book.out_of_order) == ((), (), ())


def test_synthetic_book_is_deterministic() -> None:
    assert synthetic_web_novel(5, 200, seed=3) == synthetic_web_novel(5, 200, seed=3)
    assert synthetic_web_novel(5, 200, seed=3) != synthetic_web_novel(5, 200, seed=4)


def test_parses_a_five_million_character_book_quickly() -> None:
    text = synthetic_web_novel()
    started = time.perf_counter()
    book = parse_book(text)
    elapsed = time.perf_counter() - started
    assert len(book.chapters) == 2000 and len(book.volumes) == 10
    # The target is 1–2 s on the 2-core reference machine; a quadratic slip blows far past 5 s.
    assert elapsed < 5.0


# ---------------------------------------------------------------------------- no text is lost

_FRAGMENTS = [
    "第1章 开始",
    "第二章",
    "第3回　上联四字　下联四字",
    "第一百回　径回东土　五圣成真且不言他四众脱身，随金刚驾风而起。",
    "第4章 重逢 他推开门，看见她站在窗前，手里拿着那封信，信纸已经发黄了，边角卷起。",
    "第一卷 潜龙在渊",
    "第二卷 风起 第5章 少年",
    "第一卷 完",
    "第四回中，既将妖猴收伏。",
    "第二天，他很早就起来了。",
    "（作者的话：今天只有一更。）",
    "PS：求月票！",
    BODY,
    "",
    "　　",
]


@given(st.lists(st.sampled_from(_FRAGMENTS), max_size=40))
def test_every_han_character_lands_somewhere(lines: list[str]) -> None:
    text = "\n".join(lines)
    book = parse_book(text)
    kept = count_han(book.front_matter)
    kept += sum(count_han(c.heading) + count_han(c.body) for c in book.chapters)
    kept += sum(count_han(v.heading) for v in book.volumes)
    assert kept == count_han(text)
    assert all(
        c.volume_position is None or 1 <= c.volume_position <= len(book.volumes)
        for c in book.chapters
    )
