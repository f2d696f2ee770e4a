"""Meta text anywhere in the body blocks; real prose that only looks like a heading does not
(issue 18). Real lines come from small excerpts of the corpus novels in tests/fixtures/prose."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from muse.quality.meta_text import garbled_findings, meta_text_findings

PROSE = Path(__file__).parents[1] / "fixtures" / "prose"
REAL = [
    line
    for name in ("xiyouji_excerpt.txt", "sanguoyanyi_excerpt.txt")
    for line in (PROSE / name).read_text(encoding="utf-8").splitlines()
    if line.strip()
]
BODY = "\n".join(REAL)
# a modern web-novel sample written for these tests: four chapters, no meta text in them
MODERN = [
    [line for line in chapter.splitlines()[1:] if line.strip()]
    for chapter in re.split(
        r"\n\n(?=第[一二三四]章　)", (PROSE / "modern_webnovel.txt").read_text(encoding="utf-8")
    )
]


@dataclass(frozen=True)
class Case:
    rule: str
    lines: tuple[str, ...]
    flagged: tuple[str, ...]  # the lines reported, in order


def mid(line: str) -> tuple[str, ...]:
    return (*REAL[:2], line, *REAL[2:])


CASES = (
    Case("real prose is no meta text", tuple(REAL), ()),
    Case("a body line that starts like a heading", ("第四回中，悟空早已名满天下。", *REAL), ()),
    Case(
        "a classic closing formula is the story's", (*REAL, "毕竟不知怎生结果，且听下回分解。"), ()
    ),
    Case(
        "a chapter title at the start",
        ("第一回　灵根育孕源流出", *REAL),
        ("第一回　灵根育孕源流出",),
    ),
    Case("chatter at the start", ("好的，以下是本章正文：", *REAL), ("好的，以下是本章正文：",)),
    Case("以下是 at the start", ("以下是第五章：", *REAL), ("以下是第五章：",)),
    Case("frontmatter at the start", ("---", "title: 第一章", "---", *REAL), ("---", "---")),
    Case("an author's note mid-body", mid("作者的话：今天加更。"), ("作者的话：今天加更。",)),
    Case("a PS at the end", (*REAL, "PS：求收藏。"), ("PS：求收藏。",)),
    Case("a markdown heading mid-body", mid("## 第二节　风云"), ("## 第二节　风云",)),
    Case("本章完 at the end", (*REAL, "（本章完）"), ("（本章完）",)),
    Case("未完待续 at the end", (*REAL, "（未完待续）"), ("（未完待续）",)),
    Case("求月票 at the end", (*REAL, "求月票！求推荐票！"), ("求月票！求推荐票！",)),
    Case(
        "chatter at the end",
        (*REAL, "以上就是本章内容，希望你喜欢。"),
        ("以上就是本章内容，希望你喜欢。",),
    ),
    Case("以下是 mid-body is prose", mid("以下是他的回答，众人都听呆了。"), ()),
    # the shapes serial sites and models give these notes: bracketed, without a colon, mid-body
    *(
        Case(f"{line} mid-body", mid(line), (line,))
        for line in (
            "（作者的话：今天加更。）",
            "【作者的话】今天两更",
            "作者有话要说：明天请假",
            "作者的话",
            "PS 今天两更",
            "P.S. 明天见",
            "——本章完——",
            "（第十章完）",
            "求一波月票！",
            "各位书友，月底了，求个月票！",
            "感谢书友“风中”的打赏！",
            "（本章约3200字）",
            "**第十章　风起**",
            "【第十章】",
            "第十章　风起",
            "* * *",
            "```",
            "> 引用的话",
            "- 列表一项",
            "<br>",
            "他**愣住**了，半晌说不出话。",
            "【作者题外话】：感谢打赏",
            "新书求支持",
            "今天两更，晚上还有一章。",
            "更新时间：2023-05-01 12:00",
            "作者：某某某",
            "手机用户请浏览阅读，更优质的阅读体验。",
            "Chapter 5",
            "（完）",
            "（注：此处为伏笔）",
            "下一章：决战之夜",
            "本章要点：林远获得传承",
            "总结：本章写了林远的成长。",
            "【写作说明】本章重点描写了主角的心理变化。",
            "第二更送到！",
            "（第一更）",
            "更新时间 2023-05-01 12:00:00",
            "（未完待续。如果您喜欢这部作品，欢迎您来起点投推荐票、月票，您的支持，就是我最大的动力。）",
            "本书首发起点中文网",
            "（本章未完，请点击下一页继续阅读）",
            "上一章 目录 下一章",
            "<!-- 注释 -->",
            "番外：林远舟的童年",
            "小剧场",
            "后记",
            "完结感言",
        )
    ),
    *(
        Case(f"{line} at the start", (line, *REAL), (line,))
        for line in (
            "当然可以！下面是第十章的正文：",
            "Sure, here is chapter 10:",
            "正文：",
            "标题：风起",
            "【正文】",
            "本章正文如下：",
        )
    ),
    *(
        Case(f"{line} at the end", (*REAL, line), (line,))
        for line in (
            "以上为本章内容。",
            "希望这一章符合您的预期！",
            "希望您满意。",
            "注：本章地名均为虚构。",
            "好了，这一章就写到这里。",
        )
    ),
    # notes glued to a line of prose: only the note is reported
    Case("本章完 after the last sentence", (*REAL, "他转身离去。（本章完）"), ("（本章完）",)),
    Case("未完待续 after the last sentence", (*REAL, "他转身离去。未完待续"), ("未完待续",)),
    Case(
        "本章完 after an ASCII closing quote",
        (*REAL, '他想道："难道他们还没有知道么？"（本章完）'),
        ("（本章完）",),
    ),
    Case(
        "an author's note inside a paragraph",
        mid("他笑了笑。（作者的话：今天加更。）继续往前走。"),
        ("（作者的话：今天加更。）",),
    ),
    Case("a PS after a sentence", (*REAL, "他走了。PS：明天见。"), ("PS：明天见。",)),
    Case("本章完 asked in dialogue", mid("“本章完了吗？”他问。"), ()),
    Case("本章完 as a title in prose", mid("他把《本章完》念了一遍。"), ()),
    # prose that shares words with those notes
    Case("a ticket begged in the story", mid("他求了一张船票，便上了船。"), ()),
    Case("a letter of recommendation begged", mid("他去求个推荐信，好进京赶考。"), ()),
    Case("thanks for a reward in dialogue", mid("掌柜笑道：“多谢大人打赏。”"), ()),
    Case("a chapter named in a sentence", mid("第十章里的那场大战，他至今记得。"), ()),
    Case("a night watch in the story", mid("今晚三更，城东见。"), ()),
    Case("support begged in a sentence", mid("他向朝廷求支持，却无人理会。"), ()),
    Case("完了 is prose", mid("完了。"), ()),
    Case("a watch of the night in the story", mid("约莫第三更时分，他悄悄起身。"), ()),
    Case("an afterword named in prose", mid("后记里他写下了那年的事。"), ()),
    Case("a bonus story named in prose", mid("番外篇的故事他早就读过。"), ()),
    Case("a pause of the story", mid("…………"), ()),
    Case("the next chapter of a book in the story", mid("他翻到下一章，读了起来。"), ()),
    Case("a note of the story, not of the writing", mid("注意到门外的脚步声，他停下了笔。"), ()),
    # what download sites put into TXT books (the importer removes the same lines)
    Case(
        "a site's chapter-end footer",
        (*REAL, "--(本章结束)-多多电子书--"),
        ("--(本章结束)-多多电子书--",),
    ),
    Case(
        "a site's advertisement mid-body",
        mid("更多精彩小说请访问 www.example-books.com"),
        ("更多精彩小说请访问 www.example-books.com",),
    ),
    Case("a bare web address", mid("（www.example.com）"), ("（www.example.com）",)),
    Case("a web address a character types", mid("他在浏览器里输入了www.example.com，回车。"), ()),
    Case("a vote plea with a bonus chapter", (*REAL, "今天月票加更！"), ("今天月票加更！",)),
    *(
        Case(f"modern chapter {n} is no meta text", tuple(lines), ())
        for n, lines in enumerate(MODERN, 1)
    ),
    Case("a story opening with 这是", ("这是陆沉来到青州的第三天。", *MODERN[1]), ()),
    Case("a story opening with 好的，", ("好的，这下全完了。", *MODERN[1]), ()),
    Case(
        "这是 chatter", ("这是根据细纲续写的第三章：", *MODERN[1]), ("这是根据细纲续写的第三章：",)
    ),
    Case("当然 chatter", ("当然！下面是本章正文。", *MODERN[1]), ("当然！下面是本章正文。",)),
    # the gate's own shapes (the importer keeps these lines), each missed before
    *(
        Case(f"{rule} mid-body", mid(line), (line,))
        for rule, line in (
            ("a scene divider with words", "————分割线————"),
            ("two hyphens", "--"),
            ("an HTML entity", "&nbsp;&nbsp;他抬起头来。"),
            ("a volume heading", "卷二：风起青州"),
            ("a 楔子 heading", "楔子"),
            ("a 尾声 heading", "尾声"),
            ("a 序章 heading", "序章：风起"),
            ("以下是 chatter", "以下是第十二章的正文："),
            ("好的 chatter", "好的，以下是续写的内容："),
            ("这是 chatter", "这是根据细纲写的第十二章："),
            ("以上 chatter", "以上就是第十二章的全部内容。"),
            ("a hope for the chapter", "希望这一章符合你的要求！"),
            ("an offer to adjust", "如果需要调整风格，请告诉我。"),
            ("an offer to go on", "需要我继续写下一章吗？"),
            # a fourth round, each missed before
            ("an offer to write on", "好的，我将为你续写。"),
            ("the plot to come", "接下来的情节可以是：林动进入秘境。"),
            ("a model speaking as one", "作为一个AI语言模型，我无法继续这个情节。"),
            ("a note that AI wrote it", "以下内容为AI生成。"),
            ("content left out", "（此处省略一千字）"),
            ("a structured reply's field", '{"candidate_body": "林动走了进去。"}'),
            ("a structured reply's key", '"claims": []'),
        )
    ),
    *(
        Case(f"{rule} is prose", edge, ())
        for rule, line in (
            ("下面是 a view", "下面是一片漆黑的深渊。"),
            ("以下是 an answer", "以下是他的回答。"),
            ("以上是 all he knew", "以上是他所知道的全部。"),
            ("如果需要 help", "如果需要帮忙，就来找我。"),
            ("这是根据 a custom", "这是根据祖上传下来的规矩。"),
            ("这是第三回合 a bout", "这是第三回合了。"),
            ("尾声 of a sound", "尾声渐渐远去，大殿里一片寂静。"),
            ("卷二十三 a ledger", "卷二十三的账册摊在桌上。"),
            ("a dash pause", "——"),
            ("a poem for someone", "我会为你写一首诗。"),
            ("a letter's narrator", "我为你写下这些文字，是想告诉你真相。"),
            ("a machine in a story", "人工智能模型无法理解人类的情感，他想。"),
            ("an assistant in a story", "作为一个AI助手，它从不睡觉。"),
            ("days to come", "接下来的日子里，他每天练剑。"),
            ("a greeting in ASCII quotes", '"Hello"，他说。'),
        )
        for edge in ((line, *REAL), mid(line), (*REAL, line))
    ),
    Case(
        "web-novel notes after a modern chapter",
        (*MODERN[0], "PS：今天两更，欢迎加入书友群。", "（本章完）"),
        ("PS：今天两更，欢迎加入书友群。", "（本章完）"),
    ),
    Case(
        "an author's note between modern paragraphs",
        (*MODERN[2][:3], "作者有话说：明天请假一天。", *MODERN[2][3:]),
        ("作者有话说：明天请假一天。",),
    ),
)


@pytest.mark.parametrize("case", CASES, ids=[c.rule for c in CASES])
def test_meta_text(case: Case) -> None:
    body = "\n".join(case.lines)
    findings = meta_text_findings(body)
    assert tuple(f.quote for f in findings) == case.flagged
    for f in findings:
        assert f.severity == "high" and f.kind == "meta_text"
        assert body[f.start : f.end] == f.quote
        assert f.line == body[: f.start].count("\n") + 1


@pytest.mark.parametrize(
    ("rule", "line", "garbled"),
    [
        ("the replacement character", "他抬头望去，只见\ufffd\ufffd一片。", "\ufffd"),
        ("mojibake of a broken decoding", "锟斤拷烫烫烫，他说不出话来。", "锟斤拷"),
        ("a control character", "他推开门\x07走了进去。", "\x07"),
        ("a private-use character", "他拔出\ue001剑来。", "\ue001"),
        ("a zero-width space inside a name", "萧\u200b炎推门而入。", "\u200b"),
        ("a bidi control", "他说：\u202e来过我\u202c。", "\u202e"),
        ("a word joiner", "林\u2060远站了起来。", "\u2060"),
        ("a soft hyphen", "他\u00ad走了。", "\u00ad"),
        ("real prose with a dialogue dash and ellipsis", "“你……”他张了张嘴——终究没说。", None),
        ("a tab-indented line is prose", "\t他推开门走了进去。", None),
    ],
)
def test_garbled_text(rule: str, line: str, garbled: str | None) -> None:
    body = "\n".join((*REAL[:2], line, *REAL[2:]))
    findings = garbled_findings(body)
    assert [f.quote for f in findings] == ([garbled] if garbled else [])
    for f in findings:
        assert f.kind == "garbled_text" and f.severity == "high"
        assert body[f.start : f.end] == f.quote and f.line == 3
