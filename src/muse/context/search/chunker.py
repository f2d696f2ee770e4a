"""Cutting a chapter into search chunks: paragraph-aligned, about 200–400 Han characters.

A chunk is a source pointer, so it is a contiguous code point range ``[start, end)`` of the
chapter's canonical text, never a rewritten copy: ``text[start:end]`` is the chunk, whitespace at
its edges excluded. Paragraphs are never split, except a huge one (over ``HUGE_HAN``), which is
cut at sentence ends (and a sentence longer than ``MAX_HAN`` at every ``MAX_HAN`` code points).

Size is measured as ``max(Han characters, code points // 2)``, so a paragraph of Latin letters or
digits cannot grow a chunk without bound. Packing is greedy: paragraphs join the current chunk
until the next one would take it over ``MAX_HAN``; a chunk still under ``MIN_HAN`` may grow to
``HUGE_HAN`` instead. A last chunk under half of ``MIN_HAN`` joins its predecessor when they fit
in ``HUGE_HAN`` together.
"""

from __future__ import annotations

from dataclasses import dataclass

import regex

from muse.core.canonical import sha256_hex

CHUNKER_VERSION = "c1"  # bump on any change to where chunks start and end
MIN_HAN = 200
MAX_HAN = 400
HUGE_HAN = 600

_HAN_RUN = regex.compile(r"\p{Script=Han}+")
_PARAGRAPH = regex.compile(r"[^\n]+")
_SENTENCE = regex.compile(
    r"[^。！？!?…；;]+(?:[。！？!?…；;]+[”’」』）)\]]*)?|[。！？!?…；;]+[”’」』）)\]]*"
)


@dataclass(frozen=True)
class Chunk:
    seq: int  # position in the chapter, from 0
    start: int  # code point offset into the chapter text, inclusive
    end: int  # exclusive
    text: str  # chapter_text[start:end]
    han_count: int
    sha256: str


def _han(text: str, start: int = 0, end: int | None = None) -> int:
    return sum(map(len, _HAN_RUN.findall(text, start, len(text) if end is None else end)))


def _weight(start: int, end: int, han: int) -> int:
    return max(han, (end - start) // 2)


# A span is (start, end, han): a code point range and its Han count, which adds up when spans
# are joined (the whitespace between paragraphs holds no Han).


def _units(text: str) -> list[tuple[int, int, int]]:
    """Every paragraph as a span; a huge one cut into sentence groups."""
    units: list[tuple[int, int, int]] = []
    for match in _PARAGRAPH.finditer(text):
        start, end = _strip(text, match.start(), match.end())
        if start == end:
            continue
        han = _han(text, start, end)
        if _weight(start, end, han) <= HUGE_HAN:
            units.append((start, end, han))
        else:
            units += _sentence_groups(text, start, end)
    return units


def _strip(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _sentence_groups(text: str, start: int, end: int) -> list[tuple[int, int, int]]:
    pieces: list[tuple[int, int]] = []
    for match in _SENTENCE.finditer(text, start, end):
        s, e = match.start(), match.end()
        pieces += [(p, min(p + MAX_HAN, e)) for p in range(s, e, MAX_HAN)]
    groups: list[tuple[int, int, int]] = []
    for s, e in pieces:
        han = _han(text, s, e)
        if groups:
            first, _, total = groups[-1]
            if _weight(first, e, total + han) <= MAX_HAN:
                groups[-1] = (first, e, total + han)
                continue
        groups.append((s, e, han))
    stripped = [(*_strip(text, s, e), han) for s, e, han in groups]
    return [(s, e, han) for s, e, han in stripped if s < e]


def _pack(units: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    spans: list[tuple[int, int, int]] = []
    for start, end, han in units:
        if spans:
            first, _, total = spans[-1]
            size = _weight(first, end, total + han)
            if size <= MAX_HAN or (_weight(*spans[-1]) < MIN_HAN and size <= HUGE_HAN):
                spans[-1] = (first, end, total + han)
                continue
        spans.append((start, end, han))
    if len(spans) > 1 and _weight(*spans[-1]) < MIN_HAN // 2:
        (first, _, before), (_, end, last) = spans[-2], spans[-1]
        if _weight(first, end, before + last) <= HUGE_HAN:
            spans[-2:] = [(first, end, before + last)]
    return spans


def chunk_chapter(text: str) -> list[Chunk]:
    """The chunks of one chapter's canonical (normalised) text, in order."""
    chunks = []
    for seq, (start, end, han) in enumerate(_pack(_units(text))):
        body = text[start:end]
        chunks.append(Chunk(seq, start, end, body, han, sha256_hex(body)))
    return chunks
