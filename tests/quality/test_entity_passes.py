"""The tagger's fast passes (tokens that can give no name skipped in C, a token's verdict kept,
the overlap of a recurring name found by bisection) find what a walk over every token finds.

The walk below is the tagger as it was before those passes: every token tested, every recurring
name checked against every span kept so far. Texts are drawn from names, surnames, suffixes,
gestures and ordinary words, so that every kind of span (coined, dictionary, suffix, recurring,
a compound surname joined) and their overlaps occur.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from muse.core.segmentation import shared_jieba
from muse.quality import entities
from muse.quality.compound_names import joined_surnames, used_alone
from muse.quality.entities import EntitySpan, tagged_entities
from muse.quality.entity_words import PLACE_ORG_SUFFIXES, PROPER_TAGS
from muse.quality.surnames import title_straddled

_PIECES = [
    *"林苏顾赵慕容夏侯司马诸葛欧阳上官公孙",
    "晚晴",
    "长歌",
    "远",
    "秋",
    "雪衣",
    "无极",
    "岚",
    "青石",
    "落霞",
    "天剑",
    "云岚",
    "黑风",
    *"镇城峰宗门派寨国郡州",
    "推门而入",
    "冷笑",
    "说道",
    "拱手",
    "点了点头",
    "他",
    "走进",
    "来到",
    "一张支票",
    "戴上帽子",
    "禅堂",
    "长沙",
    "的",
    "了",
    "和",
    "在",
    "，",
    "。",
    "\n",
    "《",
    "》",
    "慌忙",
    "把",
    "便",
]
_TEXT = st.lists(st.sampled_from(_PIECES), min_size=1, max_size=40).map("".join)


def _walked(text: str, offset: int = 0) -> list[EntitySpan]:
    jieba = shared_jieba()
    alone = used_alone(text)
    tokens = list(joined_surnames(jieba, jieba.tag(text, hmm=True), alone))
    spans: list[EntitySpan] = []
    previous = None
    pos = offset
    for word, tag in tokens:
        merged = (
            entities._suffixed(jieba, previous, word, pos)
            if len(word) == 1 and word in PLACE_ORG_SUFFIXES
            else None
        )
        if merged is not None:
            if spans and spans[-1].start == merged.start:
                spans.pop()
            spans.append(merged)
        elif (
            tag in PROPER_TAGS
            and (span := entities._entity_at(jieba, word, tag, pos)) is not None
            and not title_straddled(text, span.end - offset)
        ):
            spans.append(span)
        previous = (word, tag, pos)
        pos += len(word)
    starts = [offset]
    for word, _ in tokens:
        starts.append(starts[-1] + len(word))
    for extra in entities._recurring_names(jieba, text, tokens, starts):
        if not any(s.start < extra.end and extra.start < s.end for s in spans):
            spans.append(extra)
    spans.sort(key=lambda s: s.start)
    return spans


@settings(max_examples=300, deadline=None)
@given(text=_TEXT, offset=st.integers(min_value=0, max_value=50))
def test_the_fast_passes_find_what_the_walk_finds(text, offset):
    assert tagged_entities(text, offset) == _walked(text, offset)


def test_every_kind_of_span_occurs_in_such_texts():
    """The pieces above make every kind of span the passes must keep."""
    text = "顾长歌推门而入。青石镇的赵无极来到云岚宗。"
    assert {(s.text, s.how) for s in tagged_entities(text)} == {
        ("顾长歌", "recurring"),
        ("青石镇", "suffix"),
        ("赵无极", "dictionary"),
        ("云岚宗", "coined"),
    }
    assert tagged_entities(text) == _walked(text)


def test_a_recurring_name_overlapping_a_span_or_a_kept_one_is_dropped():
    spans = [EntitySpan("青石镇", 10, 13, "suffix"), EntitySpan("天剑门", 20, 23, "coined")]
    extras = [
        EntitySpan("苏林", 0, 2, "recurring"),
        EntitySpan("林远", 1, 3, "recurring"),  # overlaps 苏林, kept before it
        EntitySpan("顾石", 9, 11, "recurring"),  # overlaps 青石镇
        EntitySpan("赵无", 14, 16, "recurring"),
        EntitySpan("门徒", 22, 24, "recurring"),  # overlaps 天剑门
        EntitySpan("顾远", 23, 25, "recurring"),  # touches 天剑门's end: apart
    ]
    kept = list(entities._free_of(spans, extras))
    assert [e.text for e in kept] == ["苏林", "赵无", "顾远"]
