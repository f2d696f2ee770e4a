"""Narrative baseline of the consecutive chapters (spec 000 §8: scene count, dialogue share,
paragraph length, hook type), measured mechanically from the text."""

from __future__ import annotations

import re
from statistics import mean

from muse.context.contracts import NarrativeBaseline
from muse.core.text import count_han
from muse.works import ChapterText

_DIALOGUE = re.compile(r"[“「『\"]([^”」』\"]*)[”」』\"]")
_SCENE_BREAK = re.compile(r"\n\s*(?:\*\s*\*\s*\*|＊{3,}|—{3,}|-{3,}|◇+|☆+)\s*\n")
_TIME_SHIFT = re.compile(
    r"(?:^|\n)(?:次日|第二天|翌日|当夜|是夜|却说|且说|话分两头|与此同时|数日后)"
)


def hook_type(text: str) -> str:
    """A coarse label for how a chapter ends (the last paragraph)."""
    tail = text.strip().rsplit("\n", 1)[-1]
    if "下回分解" in tail or "且听" in tail:
        return "说书套语"
    if tail.endswith(("？", "?")):
        return "悬问"
    if tail.endswith(("！", "!")):
        return "惊叹"
    if _DIALOGUE.search(tail):
        return "对白收尾"
    return "叙述收尾"


def measure(chapters: list[ChapterText]) -> NarrativeBaseline:
    if not chapters:
        return NarrativeBaseline(
            chapters=(), scene_count=0, dialogue_share=0, mean_paragraph_chars=0, hook_types=()
        )
    scenes, shares, paragraphs = [], [], []
    for c in chapters:
        scenes.append(1 + len(_SCENE_BREAK.findall(c.text)) + len(_TIME_SHIFT.findall(c.text)))
        han = count_han(c.text) or 1
        shares.append(sum(count_han(m) for m in _DIALOGUE.findall(c.text)) / han)
        paragraphs += [count_han(p) for p in c.text.split("\n") if p.strip()]
    return NarrativeBaseline(
        chapters=tuple(c.number for c in chapters),
        scene_count=round(mean(scenes), 2),
        dialogue_share=round(mean(shares), 3),
        mean_paragraph_chars=round(mean(paragraphs), 1) if paragraphs else 0,
        hook_types=tuple(hook_type(c.text) for c in chapters),
    )
