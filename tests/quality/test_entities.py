"""The proper-noun heuristic on its own: each rule of ``entities.py`` and exact offsets."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from muse.core.segmentation import shared_jieba
from muse.quality.entities import ordinary_pair, tagged_entities

SAMPLE = Path(__file__).parent / "fixtures" / "ner_sample.txt"


@dataclass(frozen=True)
class Case:
    text: str
    found: tuple[str, ...]
    rule: str


CASES = (
    Case("他在药铺里听到天剑门要收徒。", ("天剑门",), "a coined name not in jieba's dictionary"),
    Case("林远站在青石镇的街口。", ("林远", "青石镇"), "noun + place suffix joins: 青石 + 镇"),
    Case("喊道：奉云岚宗宗主之命！", ("云岚宗",), "a glued leading 奉 is trimmed"),
    Case("奉宗主慕容秋之命。", ("慕容秋",), "a compound surname is joined back: 慕容 + 秋之命"),
    Case("拱手道：在下夏侯雪衣，久仰。", ("夏侯雪衣",), "a compound surname and a 2-char name"),
    Case("那夜月明湛湛，开根之时马上遥望。", (), "HMM words without surname or suffix are noise"),
    Case("只见一个长安城来的人。", (), "a dictionary place name is a common word"),
    Case("他掏出一块玉佩，天亮的时候东西都在。", (), "2-char dictionary proper tags are noise"),
    Case("搜查叛徒赵无极的下落。", ("赵无极",), "a 3-char dictionary name is kept"),
    Case("睿曰：“司马太尉善能用兵。”", (), "a surname and a title is no new name"),
    Case("一女轻天下，欲易刘郎鼎峙心。", (), "a surname and a form of address"),
    Case("后我宣王、景王，累建大功。", (), "a surname-like title: X王"),
    Case("卞氏生四子。", (), "surname + 氏"),
    Case("曹、朱二人引心腹军百余骑。", (), "a surname and a head count"),
    Case("林一凡推门而入。", ("林一凡",), "a numeral inside a given name is still a name"),
    Case("贾范谏曰：“不可。”", (), "a name with a speech verb glued on is no name of its own"),
    Case("蒋奇之兵到了。", (), "a name with a particle glued on is no name of its own"),
    # issue 18, the advice on real chapters of 三国演义 (chapters 5, 55, 119)
    Case("遂拨精兵五千，星夜赴关迎敌。", (), "a surname-like character and a dictionary verb"),
    Case("更兼诸葛用谋，必非善意。", (), "a compound surname and a clause (用 …)"),
    Case("会视之，艾亦大骂。", (), "a short name and the sentence going on (亦 …)"),
    Case("在下秦无衣，见过诸位。", ("秦无衣",), "a given name opening with a verb stays a name"),
    Case("林远舟推门而入。", ("林远舟",), "a given name opening with an adjective stays a name"),
    # issue 18: 三国演义 chapter 55; jieba's dictionary tags 管家婆 a person
    Case(
        "玄德见孙夫人房中，两边枪刀森列，侍婢皆佩剑，不觉失色。管家婆进曰：“贵人休得惊惧。”",
        (),
        "a common noun and a form of address is a role: 管家 + 婆",
    ),
    # 三国演义 chapters 89 and 95: 诸葛 alone is 诸葛亮, and what follows it is no given name
    Case(
        "又望北指曰：“任诸葛神机妙算，难以施设！”",
        (),
        "no given name cut out of a longer dictionary word: 诸葛 + 神机妙算",
    ),
    Case("瑶琴三尺胜雄师，诸葛西城退敌时。", (), "no given name that is a dictionary place"),
    # 西游记 chapters 54 and 67: a verb or an adjective and a suffix is no place
    Case("似此招赘之事，天下虽有，托国之富，世上实稀。", (), "a verb and 国: 托国之富"),
    Case("村舍人家皆闭户，满庄儿女尽藏头。", (), "an adjective and 庄: 满庄儿女"),
    # a surname jieba cut from its given name, named once and then a gesture
    Case("顾长歌推门而入，向众人点了点头。", ("顾长歌",), "顾长 + 歌, then a gesture"),
    Case("苏晚晴推门而入，向众人点了点头。", ("苏晚晴",), "苏 + 晚晴, then a gesture"),
    Case("全不知一毫礼体！索性不开口便也罢了。", (), "a dictionary word is no cut surname: 索性"),
    # 三国演义 chapters 11, 53, 107 and 113
    Case("当日献计曰：“某愿亲往北海郡，求孔融起兵救援。”", (), "a dictionary place and 郡: 北海"),
    Case("孔明就在马上袖占一课，曰：“长沙郡已得。”", (), "a dictionary place and 郡: 长沙"),
    Case("霸曰：“若等羌兵到，麴山二城皆陷矣。”", (), "a count of places: 麴山 + 二城"),
    Case(
        "出屯武昌，又尽将武库内军器与之。于是将军魏邈、武卫士施朔二人密奏孙休曰："
        "“调兵在外，又搬尽武库内军器，早晚必为变矣。”",
        ("魏邈", "施朔", "孙休"),
        "a common noun and a locative: 武库 + 内",
    ),
    # 红楼梦 chapters 8, 10, 12, 16 and 18: forms of address, a pronoun, a demonstrative
    Case("你就认得什么薛大爷了？那薛大爷不过是个呆子。", (), "a surname and a kin address: 薛大爷"),
    Case("因说道：“林姐儿，你不要助着他。”林姐儿笑了。", (), "a surname and 姐儿"),
    Case(
        "贾蔷道：“你若谢我，放你不值什么。”又道：“你若谢我，便罢。”", (), "谢 + 我: a verb and 我"
    ),
    Case("还只当他去那府中看戏。", (), "那 + 府: that mansion, no place name"),
    Case("大爷派了侄儿，带领着来管家。", (), "大爷 + 派: someone addressed and a verb"),
    Case("写毕，向诸姊妹笑道：“诸姊妹且看。”", (), "诸 + 姊妹: all the sisters"),
    Case("来到陈家庄，又见林姐姐。", ("陈家庄",), "a place with a kin word beside it still is one"),
    # 水浒传 chapters 4, 6 and 7: an honorific and a suffix, a place and a locative, a post
    Case("智深道：“欲借贵庄投宿一宵。敢问贵庄今夜有甚事？”", (), "贵 + 庄: your manor"),
    Case("两个来到樊楼前，寻个阁儿坐下。", (), "樊楼 + 前: a place and where by it"),
    Case("张教头道：“贤婿，甚么话。”张教头越不肯应承。", (), "a surname and a post: 张教头"),
    # 水浒传 chapters 12, 19 and 38: a side and a limb, "a certain Wu", an old man addressed
    Case("他把左肩一拍。又把左肩一拍。", (), "左 + 肩: a side and a limb"),
    Case("吴某不才，愿往。吴某去也。", (), "吴 + 某: a certain Wu, the speaker himself"),
    Case("宋老儿道：“好。”宋老儿去了。", (), "a surname and 老儿: an old man addressed"),
    # 封神演义 chapters 25 and 41: a compound surname and a locative, a clan and a ruler's title
    Case("这些在轩辕坟内狐狸，采天地之灵气。", (), "轩辕 + 坟内: a locative is no given name"),
    Case("乃轩辕皇帝之后，轩辕皇帝之德。", (), "轩辕 + 皇帝: a clan and a ruler's title"),
    Case("司马长风走进轩辕坟内。", ("司马长风",), "a compound surname and a given name still"),
    Case("只见张天君乘鹿而来，张天君大呼曰：", (), "张天 + 君大呼: a title cut in two"),
    # 阿Q正传 chapter 4: a numeral word that opens with a surname's character
    Case("却是许多日以后的事。确乎有许多日，没有人来。", (), "许多 + 日: many days"),
    # a modern chapter (tests/fixtures/prose/modern_webnovel.txt, chapters 3 and 4)
    Case(
        "陆沉看着周子昂。周子昂盯着陆沉看了很久。",
        ("周子昂", "周子昂"),
        "陆沉 + 看: a name and a look",
    ),
    Case("第二天，全部门的人都知道了。", (), "全部 + 门: the whole department"),
    # 西游记 chapter 36: a hall or a room and 门 is its door
    Case("长老掩上禅堂门，高剔银缸，铺开经本。", (), "禅堂 + 门: the hall's door"),
    Case("方丈门里，只见那僧官脱了衣。", (), "方丈 + 门: the abbot's door"),
    Case("他拜入天剑门已有三年。", ("天剑门",), "天剑 + 门: a sect"),
    # 儒林外史 chapters 8-13: 蘧公孙 is called 公孙, and the sentence goes on after it
    Case("公孙慌忙走了出来。", (), "公孙 + 慌忙: an adverb is no given name"),
    Case("公孙把书递了过去。", (), "公孙 + 把: a preposition is no given name"),
    Case("公孙一连三日不出门。", (), "公孙 + 一连: nor a numeral word"),
    Case("公孙上前作揖。", (), "公孙 + 上前: nor a time word of two characters"),
    Case(
        "公孙道：“不敢。”公孙便坐下，公孙把茶接了，公孙进来，公孙送他出门。",
        (),
        "公孙 before four different words, speaking and going on: the surname stands alone",
    ),
    Case(
        "公孙瓒引兵来。公孙瓒大喜。公孙瓒拔剑。公孙瓒笑了。",
        ("公孙瓒", "公孙瓒", "公孙瓒", "公孙瓒"),
        "公孙 + 瓒 every time: a name",
    ),
    # 啼笑因缘 chapters 5, 17 and 18: a verb and where it goes, a measure word, speech
    Case("因此又换了衣服，戴上帽子。眼镜她已戴上了。", (), "戴 + 上: a verb and a locative"),
    Case("却露出一张支票。望了那张支票笑道：", (), "一张 + 支票: a measure word"),
    Case("张支票推门而入。张支票坐下。", ("张支票", "张支票"), "张 + 支票 uncounted: a name"),
    Case("道：「钱呀，钱呀，有时候你」", (), "钱 + 呀: a particle of speech"),
    Case("微笑道：「这地方景致很好。」", (), "景 + 致很: 很 follows, never ends a name"),
)


@pytest.mark.parametrize("case", CASES, ids=[c.rule for c in CASES])
def test_rules(case: Case) -> None:
    assert tuple(e.text for e in tagged_entities(case.text)) == case.found


@pytest.mark.parametrize(
    ("word", "ordinary"),
    [
        ("白甲", True),  # 「制办白旗白甲」: adjective + noun
        ("黄胖", True),  # 「食痨病黄胖和尚」: adjective + adjective
        ("盛水", True),  # 「为无盛水之具」: verb + noun
        ("尚温", True),  # 「其酒尚温」: adverb first
        ("宗祖", True),  # 「祭祀宗祖」: 祖宗 reversed
        ("茅庵", True),  # 「草舍茅庵」: noun + noun
        ("高览", True),  # a real general, read as ordinary words: the chapter decides (names.py)
        ("范疆", False),
        ("张达", False),
        ("李意", False),
        ("韩烈", False),
        ("林远舟", False),  # two characters only
    ],
)
def test_ordinary_pair(word: str, ordinary: bool) -> None:
    assert ordinary_pair(shared_jieba(), word) is ordinary


def test_offsets_address_the_text_and_shift() -> None:
    text = SAMPLE.read_text(encoding="utf-8")
    spans = tagged_entities(text, 100)
    assert spans
    for span in spans:
        assert text[span.start - 100 : span.end - 100] == span.text


def test_same_text_same_entities() -> None:
    text = SAMPLE.read_text(encoding="utf-8")
    assert tagged_entities(text) == tagged_entities(text)


def test_the_book_so_far_is_read_once_and_follows_the_canon(engine) -> None:
    """The book's vocabulary: read once per work, extended by a new chapter, read again when an
    earlier chapter changes; the chapters up to the freeze point, as UTF-8 bytes."""
    from muse.quality.entities import _BOOKS, book_chapters_as_of
    from muse.works.canonical import add_chapter, write_revision
    from muse.works.catalog import create_work

    def chapters(book: tuple[bytes, ...]) -> list[str]:
        return [t.decode() for t in book]

    with engine.begin() as conn:
        work = create_work(conn, "词汇之书")
        for n, text in enumerate(("林远下山。", "苏晴进城。", "韩立来了。"), 1):
            add_chapter(conn, work, n, f"第{n}章", text)
        cases = [chapters(book_chapters_as_of(conn, work, as_of)) for as_of in (0, 1, 2, 3)]
        assert cases == [
            [],
            ["林远下山。"],
            ["林远下山。", "苏晴进城。"],
            chapters(_BOOKS[work].texts),
        ]
        first = _BOOKS[work]
        add_chapter(conn, work, 4, "第4章", "叶青拜师。")
        assert chapters(book_chapters_as_of(conn, work, 4))[-1] == "叶青拜师。"
        assert _BOOKS[work].texts[:3] == first.texts and _BOOKS[work].texts[0] is first.texts[0]
        write_revision(conn, work, 2, "苏晴出城。", expected_revision=1, origin="edit")
        assert chapters(book_chapters_as_of(conn, work, 2)) == ["林远下山。", "苏晴出城。"]
        assert not any("进城".encode() in t for t in _BOOKS[work].texts)


def test_the_book_is_the_chapters_in_number_order_on_real_prose(engine) -> None:
    """Cold (one query for hashes and texts), extended and read again, the book is exactly the
    chapters up to the freeze point in number order; in_book and chapters_using on it answer as
    a search of those chapters' text does."""
    from muse.quality.entities import _BOOKS, EntityLexicon, book_chapters_as_of
    from muse.works.canonical import add_chapter, write_revision
    from muse.works.catalog import create_work

    fixtures = Path(__file__).parents[1] / "fixtures"
    prose = (fixtures / "books" / "xiyouji_head.txt").read_text(encoding="utf-8")
    lines = [line for line in prose.splitlines() if line.strip()]
    texts = ["\n".join(lines[i : i + 12]) for i in range(0, len(lines), 12)][:12]

    def expected(as_of: int, chapters: list[str]) -> tuple[bytes, ...]:
        return tuple(t.encode() for t in chapters[:as_of])

    with engine.begin() as conn:
        work = create_work(conn, "西游之书")
        for n, text in enumerate(texts[:-1], 1):
            add_chapter(conn, work, n, f"第{n}章", text)
        _BOOKS.pop(work, None)
        for as_of in range(len(texts)):
            assert book_chapters_as_of(conn, work, as_of) == expected(as_of, texts[:-1])
        add_chapter(conn, work, len(texts), "末章", texts[-1])
        assert book_chapters_as_of(conn, work, len(texts)) == expected(len(texts), texts)
        texts[3] = texts[3].replace("猴", "猿")
        write_revision(conn, work, 4, texts[3], expected_revision=1, origin="edit")
        words = sorted({line[i : i + 2] for line in lines for i in range(0, len(line) - 1, 7)})
        for as_of in (0, 3, 4, 9, len(texts)):
            book = book_chapters_as_of(conn, work, as_of)
            assert book == expected(as_of, texts)
            lexicon = EntityLexicon(work, as_of, {}, book)
            assert lexicon.chapters_so_far() == min(as_of, len(texts))
            for word in [*words, "猴王", "猿王", "不在书里"]:
                assert lexicon.in_book(word) is any(word in t for t in texts[:as_of])
                using = sum(word in t for t in texts[:as_of])
                for stop in (0, 2, 50):  # counting stops once past ``stop``
                    assert lexicon.chapters_using(word, stop) == min(using, stop + 1)


@pytest.mark.parametrize(
    ("term", "chapters", "known"),
    [("林远", 2, True), ("林远", 1, True), ("苏晴", 1, False), ("远苏", 2, False)],
)
def test_in_book_reads_only_the_book_so_far(term: str, chapters: int, known: bool) -> None:
    from muse.quality.entities import EntityLexicon

    book = ("林远".encode(), "苏晴".encode())[:chapters]
    assert EntityLexicon(work_id=1, as_of=chapters, terms={}, book=book).in_book(term) is known


def test_the_book_is_read_on_the_first_question_and_only_once() -> None:
    from muse.quality.entities import EntityLexicon

    reads: list[int] = []
    book = ("林远下山。".encode(), "苏晴进城。".encode())

    def read_book() -> tuple[bytes, ...]:
        reads.append(1)
        return book

    lexicon = EntityLexicon(work_id=1, as_of=2, terms={}, read_book=read_book)
    assert reads == []  # built, never asked: never read
    assert lexicon.in_book("苏晴") and not lexicon.in_book("韩立")
    assert lexicon.chapters_using("。", 5) == 2 and lexicon.chapters_so_far() == 2
    assert reads == [1]


def test_a_compound_surname_used_alone_is_judged_over_the_whole_text() -> None:
    from muse.quality.compound_names import used_alone

    # 儒林外史: 公孙 before four different characters stands alone
    assert used_alone("公孙道：“不敢。”公孙便坐下，公孙把茶接了，公孙进来。") == {"公孙"}
    assert used_alone("公孙瓒来。公孙瓒去。公孙渊到。") == frozenset()
    # 三国演义 119: a clan's names in a row, none speaking: 司马 does not stand alone there
    assert used_alone("司马钧，钧生司马量，量生司马隽，隽生司马防，防生司马懿。") == frozenset()
    # the caller judges it over the text around the known names (names.py): a segment of it
    # is tagged as the whole text says
    text = "拱手道：在下夏侯雪衣，久仰。"
    assert [e.text for e in tagged_entities(text)] == ["夏侯雪衣"]
    assert [e.text for e in tagged_entities(text, alone=frozenset({"夏侯"}))] == []
