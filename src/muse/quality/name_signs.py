"""Whether a word the tagger found reads as a name in the chapter: the signs the unknown-entity
advice (``names.py``) asks of a candidate before it is reported (issue 18, "little noise").

A word is reported when the chapter treats it as a name: it recurs, it is introduced as one, it
carries a compound surname, or a person's speech or action follows it. What reads as something
else is not: a poem or a piece by its kind (《春夜即事》, 「第二本是《满床笏》」), two people named by
their single names around a speech verb (权问肃曰), a count of people (徐、丁二将), a post or a
compound surname before a name the chapter also writes alone (司马鲁芝), a household (王兴家的),
a man or a people reviled by surname and an epithet (诸葛村夫, 吴狗).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from muse.core.segmentation import shared_jieba
from muse.quality.entities import ordinary_pair
from muse.quality.entity_words import (
    AFTER_NAME,
    CUE_LEAD,
    GESTURE_WORDS,
    NUMERALS,
    PERSON_TAGS,
    char_tag,
    word_tag,
)
from muse.quality.surnames import COMPOUND, TITLES, surname_of

# 《春景诗》《喜词》《省亲颂》《海棠春睡图》: a poem, essay, song or painting of the prose by its
# genre, no setting of the book (a manual, 《焚诀》《太玄经》, is one and is still reported)
POEM_ENDS = (
    *"诗词赋颂文记图曲歌序铭赞吟咏谣辞叹",
    "即事",
    "题咏",
    "怀古",
    "有感",
)  # 《春夜即事》 (红楼梦)
# a piece performed or sung, counted by its kind: 「第三出《仙缘》」「一支《寄生草》」「一套北《点绛唇》」
# 「第二本是《满床笏》」「填一只《寄生草》」
PERFORMED = re.compile(
    r"(?:(?:[一二两三四五六七八九十百几第]+|这|那|有)[出折支只套首阕段]|第[一二三四五六七八九十]+本)"
    r"[南北]?(?:是|为)?[，、：:]?$"
)
# a piece played right before its title: 「遂击鼓为《渔阳三挝》」「弹了一曲《寒江月》」
PLAYED = re.compile(
    r"(?:奏|弹|唱|吹|演|舞|击鼓为|鼓为)(?:了|起|着|罢|毕)?(?:一曲|一支|一首|一套|一出)?[，、：:]?$"
)
# what a man or a people is called when reviled, after a surname: 「诸葛村夫，安敢如此」(诸葛亮),
# 「汝等吴狗」(the men of 吴), 「曹贼」; a surname and an epithet is no new name
EPITHETS = frozenset(
    {"村夫", "匹夫", "老贼", "小儿", "竖子", "鼠辈", "狂徒", "逆贼", "反贼", "奸贼", "老狗"}
    | set("狗贼奴寇")
)
# a speech verb between two single characters: 「权问肃曰」 is 权 asking 肃, not one 权问肃
SPOKEN = frozenset("问谓曰答告请劝叱责")
# words that introduce a name right before it: 「在下慕容秋」「一个名叫林远的少年」
NAMING_CUE = re.compile(
    r"(?:在下|名叫|叫做|叫作|名唤|唤作|唤做|自称|自号|人称|号称|名为|我乃|我是|我叫|姓)$"
)
# what a person does right after being named: 「沈青禾推门而入」「顾长歌冷笑道」; a word the tagger
# mistook for a name is rarely followed by a speech or action verb (一, 了 … are no verbs here)
# (the gestures of entities.GESTURE, more speech and movement, and one-character speech verbs)
ACTION_CUE = re.compile(
    f"{CUE_LEAD}(?:{GESTURE_WORDS}|喝道|叫道|骂道|叹道|走到|走上|走过|[道曰说问答笑叹喝骂])"
)
COUNTED = frozenset("将人位名员骑")  # what follows a number of people: 二将、三人
# the last character of a post right before a name: 部将潘凤、太守王匡、主簿阎象、仓官王垕
POST_END = frozenset("将守史尉督簿官")


def poem_or_piece(body: str, title: str, start: int) -> bool:
    """Whether the 《title》 at ``start`` (its first character) names a poem, an essay, a painting
    or a piece performed: a work of the prose, no setting of the book."""
    return (
        title.endswith(POEM_ENDS)
        or PERFORMED.search(body, max(0, start - 9), start - 1) is not None
        or PLAYED.search(body, max(0, start - 9), start - 1) is not None
    )


def worth_reporting(body: str, term: str, start: int, title: bool) -> bool:
    """A tagged word is reported when it reads as a name: it recurs (a person a writer invents
    comes back), it is introduced as one (在下…, 名叫…), it carries a compound surname, or it
    has a surname and a one- or two-character given name and speaks or acts right after it
    (林远舟推门而入, 韩烈冷笑道). A word the tagger found once, with no such sign, is the
    tagger's noise far more often than a name on real prose (bench/detector_recall.py).

    A surname and one character that together read as an ordinary word (``ordinary_pair``:
    白甲, 宗祖, 尚温) must in addition be read as a name somewhere in the chapter
    (``read_as_name``), however often they recur: 「白旗白甲」 is armour, 「张飞…部将范疆、张达」
    are people."""
    end = start + len(term)
    surname = surname_of(term)
    given = term[len(surname) :] if surname else ""
    if given and all(c in NUMERALS for c in given) and body[end : end + 1] in COUNTED:
        return False  # 「徐、丁二将」: two generals, 徐 and 丁, not one 丁二
    if title:
        return True
    if given in EPITHETS:
        return False  # 「诸葛村夫」「汝等吴狗」: someone reviled, not someone new
    if given == "老" and len(term) == 2:
        return False  # 「魏老，勿是倪说话」: an elder addressed by his surname (周老, 张老)
    if len(term) == 2 and term[1] in "名字" and body[start - 1 : start] == "姓":
        return False  # 「姓梁名世昌」: the surname and 名, the name follows
    if len(term) == 3 and term[1] in SPOKEN:
        return False  # 「权问肃曰」「祖问衡曰」: one asks the other
    ordinary = len(given) == 1 and len(term) == 2 and ordinary_pair(shared_jieba(), term)
    if ordinary and not read_as_name(body, term):
        return False  # 「白旗白甲」「祭祀宗祖」: no sign of a name anywhere in the chapter
    if len(term) >= 3 and name_then_verb(body, term):
        return False
    if body.count(term) >= 2:
        return True
    if surname in COMPOUND:
        return True
    shaped = surname is not None and 2 <= len(term) <= len(surname) + 2
    if shaped and ACTION_CUE.match(body, end):
        return True
    return NAMING_CUE.search(body, max(0, start - 4), start) is not None


def post_before(term: str, terms: set[str]) -> bool:
    """Whether ``term`` is a post or a compound surname before another reported name
    (司马 + 鲁芝, where the chapter also names 鲁芝 alone): that name is the one to report."""
    return any(
        len(t) >= 2 and t != term and term.endswith(t) and term[: -len(t)] in COMPOUND | TITLES
        for t in terms
    )


def household(term: str, terms: set[str], unseen: Callable[[str], bool]) -> bool:
    """Whether ``term`` is a name and 家, and that name is reported or already known: 「王兴家的」
    is 王兴's wife (红楼梦 names servants' wives so), not a third person beside 王兴."""
    head = term[:-1]
    return term.endswith("家") and len(head) >= 2 and (head in terms or not unseen(head))


def name_then_verb(body: str, term: str) -> bool:
    """「韩嵩进曰」「薛兰守兖州」: the word is a name the chapter also writes alone as a name
    (韩嵩来观动静), then a verb (进): the sentence going on, not a longer name."""
    jieba, head = shared_jieba(), term[:-1]
    if head in COMPOUND:  # 公孙 + 修: a surname alone is no name (公孙渊 and 公孙修 are two)
        return False
    if jieba.has_word(head) and word_tag(jieba, head) not in PERSON_TAGS:
        return False  # 黄袍 + 怪: a common word, and 黄袍怪 a name made of it
    if char_tag(jieba, term[-1]) != "v":
        return False
    # the head written alone, and read as a name there (韩嵩来观动静; not 黄风 of 黄风岭)
    return read_as_name(body.replace(term, "\0" * len(term)), head)


def read_as_name(body: str, term: str) -> bool:
    """Whether the chapter treats ``term`` as a name somewhere: introduced as one (在下…), after a
    post (太守王匡) or a form of address, in a list (范疆、张达), or followed by what follows a
    person (曰、道、为、领 …, or a speech or action verb)."""
    at = body.find(term)
    while at >= 0:
        end = at + len(term)
        before, after = body[at - 1 : at] if at else "", body[end : end + 1]
        if after in AFTER_NAME or "、" in (before, after) or ACTION_CUE.match(body, end):
            return True
        if before in POST_END or body[max(0, at - 2) : at] in TITLES:
            return True
        if NAMING_CUE.search(body, max(0, at - 4), at):
            return True
        at = body.find(term, end)
    return False
