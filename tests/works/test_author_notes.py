"""Author notes in web-novel files are found at import and kept out of the canonical prose."""

from __future__ import annotations

from pathlib import Path

import pytest

from muse.works.author_notes import split_notes
from muse.works.catalog import get_chapter_text, resolve_work
from muse.works.importer import analyse, import_book

BOOK = (Path(__file__).parents[1] / "fixtures" / "books" / "webnovel_notes.txt").read_bytes()


@pytest.mark.parametrize(
    "line, is_note",
    [
        ("（作者的话：新书上传，求收藏！）", True),
        ("作者有话说：今天请假。", True),
        ("PS：今天两更。", True),
        ("ps: 感谢打赏", True),
        ("P.S.，明天见", True),
        ("求月票！", True),
        ("月票加更送上", True),
        ("——本章完——", True),
        ("--(本章结束)-多多电子书--", True),
        ("下载：多多电子书(www.duoduomi.com)", True),
        ("手机阅读请访问 m.example.com", True),
        ("（本章约3200字）", True),
        ("感谢书友“风中”的打赏！", True),
        ("【作者题外话】：感谢打赏", True),
        ("新书求支持！", True),
        ("今天两更，晚上还有一章。", True),
        ("明天请假，后天补更。", True),
        ("更新时间：2023-05-01 12:00", True),
        ("作者：青山不语", True),
        ("手机用户请浏览阅读，更优质的阅读体验。", True),
        ("（完）", True),
        ("【写作说明】本章重点描写了主角的心理变化。", True),
        ("本章要点：林远获得传承", True),
        ("下一章：决战之夜", True),
        ("前情提要：林远离开了青石镇。", True),
        ("（注：此处为伏笔）", True),
        # more shapes serial sites and models give (issue 18)
        ("第二更送到！", True),
        ("（第一更）", True),
        ("今天就更到这里，明天见。", True),
        ("更新时间 2023-05-01 12:00:00", True),
        (
            "（未完待续。如果您喜欢这部作品，欢迎您来起点投推荐票、月票，您的支持，就是我最大的动力。）",
            True,
        ),
        ("完结感言", True),
        ("写在最后：谢谢一路陪伴的书友", True),
        ("本书首发起点中文网", True),
        ("（本章未完，请点击下一页继续阅读）", True),
        ("上一章 目录 下一章", True),
        ("（这一章写得不好，见谅）", True),
        # a third round of shapes, each missed before (issue 18)
        ("ps.今天两更", True),
        ("PS今天有事，只有一更。", True),
        ("编者按：以下内容纯属虚构。", True),
        ("（作者：风中追风）", True),
        ("本文纯属虚构，如有雷同，纯属巧合。", True),
        ("（文中诗词引自《全唐诗》）", True),
        ("[1]青州，古九州之一。", True),
        ("备注：青州为虚构地名。", True),
        ("注释：青州，古九州之一。", True),
        ("感谢大家，鞠躬！", True),
        ("感谢大家的支持！", True),
        ("字数统计：3000", True),
        ("今天请假一天，明天补上。", True),
        ("请假条", True),
        ("第三更到！", True),
        ("今日三更完毕。", True),
        ("码字不易，喜欢的话点个赞吧。", True),
        ("欢迎加入书友群：123456789", True),
        ("QQ群：12345", True),
        ("推荐一本好友的新书《剑来》，书号123456", True),
        ("新书《长夜》已发布，求支持！", True),
        ("本章完，下章预告：林远舟将前往青州。", True),
        ("（本章完，请继续阅读下一章）", True),
        ("预告：下一章，决战！", True),
        ("【下一章更精彩】", True),
        ("更多精彩，尽在下一章", True),
        ("本章节由某某小说网首发", True),
        ("看最新章节请到笔趣阁", True),
        ("本小说由网友上传，仅供试读。", True),
        ("（第一卷终）", True),
        ("（卷一完）", True),
        # a fourth round (issue 18), each missed before
        ("今天有事，只有一更。", True),
        ("第一更，还有一更晚点。", True),
        ("更新晚了，抱歉。", True),
        ("【加更】", True),
        ("（第二卷·完）", True),
        ("www.biquge.com 笔趣阁", True),
        ("天才一秒记住本站地址：", True),
        ("章节错误，点此举报(免注册)", True),
        ("加入书签，方便阅读", True),
        ("[图片]", True),
        ("【插图】", True),
        ("【细纲】林动进入秘境", True),
        ("伏笔：玉佩发光", True),
        ("离天亮还有三更。", False),
        ("今天只有一更天的工夫。", False),
        ("第三更，大家都睡了。", False),
        ("系统更新晚了三天。", False),
        ("更晚了，他还没回来。", False),
        ("他一秒记住了她的名字。", False),
        ("他在www.example.com上阅读新闻。", False),
        ("大纲写好了，他却迟迟不动笔。", False),
        ("（图中人物正是他父亲）", False),
        ("加入书签的时候，他愣住了。", False),
        ("今天请假一天，去城里看看母亲。", False),
        ("他把她拉进了微信群。", False),
        ("纯属虚构的传言，他并不相信。", False),
        ("感谢上苍，他还活着。", False),
        ("新书铺子开张了。", False),
        ("他推荐了一本好书给她。", False),
        ("码头上人来人往。", False),
        ("更多的人涌了过来。", False),
        ("今日三更时分，城东见。", False),
        ("书友们都在楼下等他。", False),
        ("他点开了最新章节。", False),
        ("那一卷书，他读了三遍。", False),
        ("约莫第三更时分，他悄悄起身。", False),
        ("火越烧越旺，更到这里的人都退了出去。", False),
        ("他的首发弟子到了青云宗。", False),
        ("（这一章的故事，要从十年前说起。）", False),
        ("上一章他还在山中。", False),
        ("他向朝廷求支持，却无人理会。", False),
        ("今晚三更，城东见。", False),
        ("大家替我向先生请假。", False),
        ("往火里加更多的柴，这一章就烧完了。", False),
        ("完了。", False),
        ("作者这东西，他从来不信。", False),
        ("注意到门外的脚步声，他停下了笔。", False),
        ("他翻到下一章，读了起来。", False),
        ("林动说道：“求你了。”", False),
        ("“本章完了吗？”他问。", False),
        ("他在浏览器里输入了www.example.com，回车。", False),
        ("毕竟不知怎生结果，且听下回分解。", False),
        ("PSP 游戏机放在桌上。", False),
        ("那年他为了求推荐票" + "，在山下跑了整整一个月" * 6 + "。", False),  # long prose
    ],
)
def test_note_lines(line, is_note):
    body, notes = split_notes(1, f"林动来了。\n{line}\n他走了。")
    assert bool(notes) is is_note
    assert (line not in body) is is_note


def test_a_site_footer_is_named_for_what_it_is():
    body, [note] = split_notes(3, "他走了。\n\n--(本章结束)-多多电子书--")
    assert body == "他走了。" and note.kind == "章末套话" and note.line == 3


def test_a_bracketed_note_runs_until_it_closes():
    body, [note] = split_notes(2, "开头。\n（作者的话：\n感谢打赏，\n明天加更。）\n结尾。")
    assert body == "开头。\n结尾。" and note.line == 2 and note.text.endswith("明天加更。）")


def test_dry_run_lists_the_notes_and_writes_nothing():
    _, report = analyse(BOOK, "青阳")
    assert [(n.chapter, n.text[:6]) for n in report.author_notes] == [
        (1, "（作者的话："),
        (2, "PS：今天两"),
        (2, "求月票！"),
        (2, "（作者的话："),
    ]
    assert any("不属于正文的行 4 处（作者的话 3、求票 1）" in w for w in report.warnings)
    assert [n.kind for n in report.author_notes] == ["作者的话", "作者的话", "求票", "作者的话"]
    assert report.to_dict()["authorNotes"][0]["chapter"] == 1


def test_notes_stay_out_of_canonical_prose_unless_kept(engine):
    report = import_book(engine, BOOK, title="青阳")
    kept = import_book(engine, BOOK, title="青阳（保留）", keep_notes=True)
    with engine.connect() as conn:
        two = get_chapter_text(conn, report.work_id, 2).text
        three = get_chapter_text(conn, report.work_id, 3).text
        two_kept = get_chapter_text(conn, resolve_work(conn, kept.work_id), 2).text
    assert "PS" not in two and "求月票" not in two and "作者的话" not in two
    assert "握紧了手中的长剑" in two and "求推荐票" in three  # prose untouched
    assert "PS：今天两更" in two_kept and kept.notes_kept
