"""The words and tags the entity tagger (:mod:`muse.quality.entities`) judges a name by.

jieba's tags of what a name is made of and of what surrounds one, and the characters that end a
place, lead a sentence on or follow a name: fixed lists, kept apart from the tagging rules.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import rjieba

PROPER_TAGS = frozenset({"nr", "nrfg", "nrt", "ns", "nt", "nz"})
NOUN_TAGS = frozenset({"n", "ng", "nr", "nrfg", "nrt", "ns", "nt", "nz"})
# suffixes that make a coined place or organisation name (spec 000 §4: 地名、组织)
PLACE_ORG_SUFFIXES = frozenset("镇城村峰谷宗门派帮寨殿阁宫府岛洲州郡国庄堡寺观楼塔崖洞")
ROOMS = frozenset("门堂殿房室屋楼阁寺庙院厅舍庵丈宫府")  # 禅堂 + 门 「掩上禅堂门」: a door
DIVISIONS = frozenset("郡州城")  # 长沙郡 is 长沙 (but 武安国 a man, 昭阳宫 a palace)
# a single character the HMM tends to glue in front of a name: 「奉云岚宗」「过云岚宗」
LEADING_FUNCTION = frozenset("奉过从向往到在于自对把被给和与跟去来是连将让叫")
# 著: 着 as older print writes it (「嘴张著点儿」); 呀 … of speech (「钱呀，钱呀」)
PARTICLES = frozenset("之的了着著地得吗呢吧啊么呀啦嘛哇")
PRONOUNS = frozenset("我你您他她它咱俺某")  # 谢 + 我: 「你若谢我」; 吴 + 某: 「吴某不才」
BODY_PARTS = frozenset("肩手脚头眼耳口鼻腿臂背腰胸腹膝")  # 左 + 肩: 「把左肩一拍」
DEMONSTRATIVES = frozenset("这那此彼其该本")  # 那 + 府: 「他去那府中看戏」, that mansion
HONORIFICS = frozenset("贵敝宝尊寒舍令")  # 贵 + 庄: 「欲借贵庄投宿」, your manor
# words for "all of them" that a place suffix follows as a noun: 全部 + 门 「全部门的人」
DETERMINERS = frozenset({"全部", "全体", "所有", "整个", "各个", "每个", "其他", "其它", "一些"})
LOCATIVES = frozenset("内中里外上下前后")  # where in a thing: 武库 + 内
LEADING_VERB = frozenset("取攻至保守入出到往向在于自从现过近离回奔投围破据")
PERSON_TAGS = frozenset({"nr", "nrfg", "nrt"})
PLACE_WORD_TAGS = frozenset({"f", "s"})  # jieba's locatives (坟内, 之后) and place words (城外)
FUNCTION_WORD_TAGS = frozenset({"m", "q", "r", "d", "c", "p", "f"})  # numeral, measure … locative
# what follows a name in a sentence, never the end of a given name: 「慕容秋说罢」
AFTER_NAME = frozenset(
    "说道曰云笑问答叫喊见来去了着过也又便就却都皆亦乃遂到至为者率领令闻听谓与同及其所以而于在自"
    "从往向入出回归拜叹喜惊怒两百千万等众辈俱只曾已将欲可能当即何别谢寻有谏很"
    "看想走瞧瞪瞥盯"  # a modern chapter's looks and thoughts: 「他盯着陆沉看了很久」
)
MAX_CHARS = 6
# what only a person does, right after their name: 「顾长歌推门而入」「苏晚晴冷笑一声」; the
# multi-character part of names.py's action cue (a one-character 道、曰、问 … after a surname
# and a character joins far more sentence pieces than names: 孔融叱、宫谓邈、左右喝)
CUE_LEAD = r"(?:[又便却也正忽已都才就还只先])?(?:连忙|急忙|赶紧|微微|轻轻|缓缓|冷冷|淡淡)?"
GESTURE_WORDS = (
    "说道|笑道|问道|答道|冷笑|苦笑|点头|点了点头|摇头|摇了摇头|皱眉|抬头|低头|起身|站起|"
    "转身|推门|走进|拱手|抱拳|拔剑|挥手|伸手|开口"
)
GESTURE = re.compile(f"{CUE_LEAD}(?:{GESTURE_WORDS})")
ADDRESS = frozenset("郎公氏婆翁叟伯叔兄弟妹姐娘嫂王帝侯妃爷")
NUMERALS = frozenset("一二三四五六七八九十两百千万几众诸")  # 二人、两位: not 一凡、三丰
# jieba's tags of words that carry the sentence on, never a given name: adverbs, prepositions,
# conjunctions, pronouns, numerals, locatives, particles (公孙 + 慌忙 / 一连 / 把, 戴 + 上); for
# two characters also time words (公孙 + 上前; one character of a season names people: 慕容 + 秋)
CARRYING = ("d", "ad", "vd", "p", "c", "r", "m", "f", "u", "y")
# surnames that are also measure words, and what counts with them: 「一张支票」「那张支票」
MEASURES = frozenset("张封管包段宗")
COUNTERS = frozenset("一二三四五六七八九十两几这那每半整")


# Both kept per jieba and text: the process's jieba is never changed (muse.core.segmentation), and
# the same characters and words are looked up again and again in a book.
@lru_cache(maxsize=16384)
def char_tag(jieba: rjieba.Jieba, char: str) -> str:
    """jieba's dictionary tag of one character on its own."""
    return jieba.tag(char, hmm=False)[0][1]


@lru_cache(maxsize=16384)
def word_tag(jieba: rjieba.Jieba, word: str) -> str:
    """The dictionary's tag of ``word`` when it is one dictionary word, else ""."""
    if not jieba.has_word(word):
        return ""
    tags = jieba.tag(word, hmm=False)
    return tags[0][1] if len(tags) == 1 else ""
