"""Compound surnames that jieba cut off the given name (慕容 + 秋, 夏侯 + 雪衣), joined back.

jieba's dictionary holds the compound surnames as words (公孙 is also "grandson", 司马 a post), so
a coined name led by one comes out as two tokens. The entity tagger (:mod:`muse.quality.entities`)
joins them again, except where what follows carries the sentence on (公孙 + 慌忙, + 把) or where
the surname stands alone in the text as someone's short name (儒林外史's 蘧公孙, called 公孙).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from itertools import compress, count
from operator import itemgetter
from typing import TYPE_CHECKING

from muse.core.segmentation import shared_jieba
from muse.core.text import all_han, is_han
from muse.quality.entity_words import (
    AFTER_NAME,
    CARRYING,
    PARTICLES,
    PLACE_WORD_TAGS,
    char_tag,
    word_tag,
)
from muse.quality.surnames import COMPOUND

if TYPE_CHECKING:
    import rjieba


def joined_surnames(
    jieba: rjieba.Jieba, tokens: Iterable[tuple[str, str]], alone: frozenset[str] = frozenset()
) -> list[tuple[str, str]]:
    """jieba's tokens, with a compound surname joined to the given name it was cut from (not
    one of ``alone``, used alone in the text)."""
    tokens = list(tokens)
    out: list[tuple[str, str]] = []
    i, last = 0, len(tokens) - 1
    for head in led_by(tokens, _COMPOUND_HEADS):
        word, tag = tokens[head]
        # a compound surname (慕容) or one with a character glued on (慕容秋 cut as 慕容秋 + …);
        # a token already joined to the surname before it is no surname
        if head < i or not (word[:2] in COMPOUND and 2 <= len(word) <= 3) or word[:2] in alone:
            continue
        nxt, nxt_tag = tokens[head + 1] if head < last else ("", "")
        # a locative or a place word is where, not who: 轩辕 + 坟内 (「在轩辕坟内」)
        given = (
            _given_after(jieba, nxt)
            if (len(word) == 2 or len(nxt) == 1) and nxt_tag not in PLACE_WORD_TAGS
            else None
        )
        if given is not None:
            out.extend(tokens[i:head])
            out.append((word + given, "nr"))
            if given != nxt:
                out.append((nxt[len(given) :], nxt_tag))
            i = head + 2
    if i == 0:
        return tokens
    out.extend(tokens[i:])
    return out


def columns(tokens: list[tuple[str, str]]) -> tuple[list[str], list[str]]:
    """The words and the tags of ``tokens``."""
    return list(map(itemgetter(0), tokens)), list(map(itemgetter(1), tokens))


def led_by(tokens: list[tuple[str, str]], heads: frozenset[str]) -> Iterator[int]:
    """The indices of the tokens whose word starts with a character of ``heads``, in order,
    found at the speed of C (most tokens of prose start with none)."""
    firsts = map(itemgetter(0), map(itemgetter(0), tokens))
    return compress(count(), map(heads.__contains__, firsts))


def used_alone(text: str) -> frozenset[str]:
    """The compound surnames of ``text`` followed by ``ALONE_BEFORE`` different characters or
    more, twice or more by what carries a sentence on (a speech or action word of ``AFTER_NAME``,
    an adverb, a preposition …: ``CARRYING``): there the surname is someone's short name or a
    common noun (蘧公孙 called 公孙 in 儒林外史: 「公孙道」「公孙是」「公孙把」「公孙便」), not a
    name begun each time (慕容秋 is 慕容 + 秋 every time; 三国演义 119 lists the 司马 clan,
    司马钧、司马量、司马隽、司马防, names all)."""
    after: dict[str, set[str]] = {}
    for found in _COMPOUND_AT.finditer(text):
        after.setdefault(found.group(1), set()).add(found.group(2))
    jieba = shared_jieba()
    return frozenset(
        word
        for word, chars in after.items()
        if len(chars) >= ALONE_BEFORE
        and sum(text.count(word + c) for c in chars if _carries(jieba, c)) >= 2
    )


def _carries(jieba: rjieba.Jieba, char: str) -> bool:
    return char in AFTER_NAME or (is_han(char) and char_tag(jieba, char).startswith(CARRYING))


ALONE_BEFORE = 4
_COMPOUND_HEADS = frozenset(c[0] for c in COMPOUND)
_COMPOUND_AT = re.compile(f"({'|'.join(sorted(COMPOUND))})(?=(.))", re.S)


def _given_after(jieba: rjieba.Jieba, nxt: str) -> str | None:
    """The given name at the start of ``nxt`` (one or two characters), or None: none in a
    dictionary word of three or more characters (诸葛 + 神机妙算), none that is a dictionary
    place (诸葛 + 西城: 「诸葛西城退敌时」) and none that carries the sentence on (``CARRYING``:
    公孙 + 慌忙, 公孙 + 把)."""
    if not nxt or not all_han(nxt) or nxt[0] in AFTER_NAME or nxt[0] in PARTICLES:
        return None
    if len(nxt) >= 3 and jieba.has_word(nxt):
        return None
    given = nxt if len(nxt) <= 2 and nxt[-1] not in AFTER_NAME else nxt[:1]
    if len(given) == 2:
        tag = word_tag(jieba, given)
        return None if tag == "ns" or tag.startswith((*CARRYING, "t")) else given
    return None if char_tag(jieba, given).startswith(CARRYING) else given
