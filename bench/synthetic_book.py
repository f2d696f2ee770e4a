"""A deterministic synthetic web novel for import benchmarks and tests.

    .venv/bin/python bench/synthetic_book.py OUT.txt [CHAPTERS]

The defaults give what an import must survive: about 5 million Han characters in 2,000
chapters, a front matter, a volume heading ``第一卷 …`` every 200 chapters, headings
``第N章 标题`` mostly with Arabic numbers and every seventh with Chinese numerals, and
indented paragraphs of prose with “” dialogue. Speed matters (the benchmark regenerates it),
so the prose is drawn from a few hundred sentences built once per call, not word by word.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

from muse.works.chinese_numerals import format_chinese_number

_NAMES = ["林远", "苏晴", "陈默", "叶青", "萧寒", "顾长风", "沈月", "韩立", "秦川", "白芷"]
_PLACES = ["青云宗", "落霞山", "天水城", "藏经阁", "后山禁地", "演武场", "听雨楼", "寒潭"]
_VERBS = [
    "握紧了手中的长剑",
    "缓缓抬起头",
    "沉默了片刻",
    "皱起眉头",
    "深吸一口气",
    "望向远处的山峦",
    "轻轻叹了口气",
    "停下了脚步",
    "转身走向门外",
    "嘴角微微上扬",
]
_SCENES = [
    "夜色渐深，山风吹过竹林，发出沙沙的声响",
    "晨雾还没有散去，石阶上满是露水",
    "远处传来钟声，一声接着一声",
    "灯火摇曳，把两人的影子拉得很长",
    "雨点打在屋檐上，溅起细碎的水花",
    "街上人来人往，叫卖声此起彼伏",
]
_THOUGHTS = [
    "这件事远没有表面上那么简单",
    "他早就料到会有这么一天",
    "谁也不知道明天会发生什么",
    "那块玉佩的来历始终是个谜",
    "三年前的那场大火烧掉了所有线索",
    "修行之路本就没有捷径可走",
]
_LINES = [
    "你真的想好了吗",
    "我不会再让你失望了",
    "这里不是你该来的地方",
    "师父说过的话你还记得吗",
    "明天一早就出发",
    "此事到此为止",
]
_TITLE_WORDS = [
    "初入",
    "风起",
    "夜探",
    "对峙",
    "突破",
    "重逢",
    "试炼",
    "暗流",
    "惊变",
    "归来",
    "剑心",
    "血誓",
    "迷局",
    "问道",
    "残卷",
    "雷劫",
]
_VOLUME_TITLES = [
    "潜龙在渊",
    "风起云涌",
    "剑指苍穹",
    "山河入梦",
    "万古长夜",
    "踏天而行",
    "群星坠落",
    "一念成魔",
    "逆流而上",
    "终焉之地",
]


def synthetic_web_novel(
    chapters: int = 2000,
    han_per_chapter: int = 2500,
    seed: int = 7,
    *,
    chapters_per_volume: int = 200,
) -> str:
    """Return the text of a synthetic web novel; the same arguments give the same text."""
    rng = random.Random(seed)
    sentences = _sentence_pool(rng)
    parts = [
        "书名：《青云问道》",
        "作者：无名氏",
        "",
        "简介：一个少年，一柄断剑，一条漫长的修行路。",
        "",
    ]
    for number in range(1, chapters + 1):
        if chapters_per_volume and (number - 1) % chapters_per_volume == 0:
            volume = (number - 1) // chapters_per_volume + 1
            volume_title = _VOLUME_TITLES[(volume - 1) % len(_VOLUME_TITLES)]
            parts += [f"第{format_chinese_number(volume)}卷 {volume_title}", ""]
        parts += [_heading(number, rng), ""]
        parts += _chapter_body(rng, sentences, han_per_chapter)
        parts.append("")
    return "\n".join(parts)


def _heading(number: int, rng: random.Random) -> str:
    written = format_chinese_number(number) if number % 7 == 0 else str(number)
    return f"第{written}章 {''.join(rng.sample(_TITLE_WORDS, 2))}"


def _sentence_pool(rng: random.Random) -> list[tuple[str, int]]:
    """A few hundred sentences with their Han counts (all their characters but punctuation)."""
    pool = []
    for _ in range(400):
        name, other = rng.sample(_NAMES, 2)
        kind = rng.randrange(4)
        if kind == 0:
            text = f"{name}{rng.choice(_VERBS)}，{rng.choice(_THOUGHTS)}。"
        elif kind == 1:
            text = f"{rng.choice(_SCENES)}，{name}在{rng.choice(_PLACES)}{rng.choice(_VERBS)}。"
        elif kind == 2:
            text = f"{name}看着{other}，说道：“{rng.choice(_LINES)}。”"
        else:
            text = f"“{rng.choice(_LINES)}？”{other}{rng.choice(_VERBS)}，低声问道。"
        pool.append((text, sum(1 for ch in text if "\u4e00" <= ch <= "\u9fff")))
    return pool


def _chapter_body(rng: random.Random, sentences: list[tuple[str, int]], han: int) -> list[str]:
    paragraphs, count = [], 0
    while count < han:
        picked = rng.choices(sentences, k=rng.randint(2, 6))
        paragraphs.append("\u3000\u3000" + "".join(text for text, _ in picked))
        count += sum(n for _, n in picked)
    return paragraphs


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: synthetic_book.py OUT.txt [CHAPTERS]")
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    Path(sys.argv[1]).write_text(synthetic_web_novel(count), encoding="utf-8")
