"""A deterministic 100-chapter web novel for the continuation test (written for the tests).

Names recur in varied sentences (so discovery sees them as the book uses them), a newcomer
appears only from chapter 40, and the last chapter ends with plain state sentences the stub
extractor quotes.
"""

from __future__ import annotations

import random

PEOPLE = ["林远", "苏晴", "沈烈"]
NEWCOMER = "石敢"  # first appears in chapter NEWCOMER_FROM
NEWCOMER_FROM = 40
PLACES = ["青云宗", "藏经阁", "落霞峰"]
TEMPLATES = [
    "{a}笑道：“今日风大，你且小心。”",
    "{a}望着远处的{p}，沉默了许久。",
    "山道上，{a}与{b}并肩而行，谁也没有说话。",
    "“你来得正好。”{a}对{b}说道。",
    "{a}推开门，屋里的灯火已经熄了。",
    "{b}皱眉道：“{a}，这件事没有那么简单。”",
    "夜里，{a}独自来到{p}，翻看那本旧书。",
    "众人散去之后，{a}才慢慢站起身来。",
    "{a}叫住{b}：“等一等。”",
    "{b}回头看了{a}一眼，转身走向{p}。",
    "那一战之后，{a}在{p}养了三个月的伤。",
    "{a}问道：“{b}去了哪里？”",
    "雨停了，{a}收起伞，抬头看天。",
    "{b}冷冷道：“我不信。”{a}只是笑了笑。",
]
FILLER = "山风吹过松林，落叶纷纷。远处传来钟声，一声接着一声。"
LAST_CHAPTER_END = "林远走进藏经阁。此时已是深夜。"


def chapter_text(n: int, rng: random.Random) -> str:
    people = PEOPLE + ([NEWCOMER] if n >= NEWCOMER_FROM else [])
    lines = []
    for _ in range(24):
        a, b = rng.sample(people, 2)
        line = rng.choice(TEMPLATES).format(a=a, b=b, p=rng.choice(PLACES))
        lines.append(line + FILLER * rng.randint(1, 3))
    if n == NEWCOMER_FROM:
        lines.insert(3, f"一个名叫{NEWCOMER}的少年拦住了去路。")
    if n == 100:
        lines.append(LAST_CHAPTER_END)
    return "\n".join(lines)


def book_text(chapters: int = 100) -> str:
    rng = random.Random(15)
    return "\n\n".join(f"第{n}章 风起{n}\n\n{chapter_text(n, rng)}" for n in range(1, chapters + 1))
