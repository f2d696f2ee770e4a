"""Splitting a novel's text into front matter, volumes and chapters (拆书, pure part).

A heading is a line ``第<number><marker><rest>`` (indentation and a ``正文`` prefix allowed):
marker 章 or 回 for chapters, 卷 (and 部/集) for volumes; the number is Arabic, full-width or
Chinese (``chinese_numerals``). Prose often starts the same way (``第四回中，既将…``,
``第三章里说到…``, ``第三回合，…``), so a line is a heading only when after the marker comes

* nothing, or
* a separator (whitespace, ``：`` ``、`` ``.`` ``-`` ``—`` ``·``) and then the title, or
* directly a short title (≤ 30 characters) with no sentence punctuation that does not read as
  prose about a chapter (``里…``, ``的…``, ``说到…``, ``之后…``; and never 回合).

A Markdown heading mark before the heading (``### 第一回　…``, as ``muse export --format md``
writes it) is not part of the heading.

部 and 集 need the separator (``第一部分…``, ``第一集团军…`` are prose); ``第一卷 完`` closes a
volume rather than opening one. ``第一卷 潜龙在渊 第1章 少年`` is a volume and a chapter.

**Run-on bodies.** Some files glue the first body line onto the heading line (the upstream
form of the corpus: ``第一百二回　司马懿占北原渭桥　诸葛亮造木牛流马却说谯周…``). Heading lines
are short, so a rest of at most 40 characters without a ``。`` is all title, and otherwise:

* 回目 (a 回 heading with two halves, split at the first U+3000, else at the first space): the
  halves of a couplet have the same length, so the second half is exactly as long as the
  first; what follows is body when it has sentence punctuation or the line is long.
* any other heading: the title ends at the last whitespace before the first clause ends
  (``第1章 重逢 他推开门，…`` → ``重逢``); with no whitespace there the heading has no title
  and the whole rest is body (``第1章 他推开门，…`` → ``''``). Nothing is ever dropped.

**Titles.** A couplet's halves are joined by exactly one U+3000, whatever separated them (the
corpus has ``斩孙 　姜维…`` with a stray ASCII space); other titles are only stripped.

**What goes where.** Text before the first heading is front matter, and so is a table of
contents (目录): a leading block of at least three bare chapter headings repeated, in the same
order, by the chapters that follow it. Text that follows a volume heading but precedes the
next chapter stays with the preceding chapter (or the front matter before the first chapter),
like author notes between chapters (``（作者的话：…）``, ``PS：…``): the file order is kept and
nothing is lost. Numbering problems — gaps, duplicates, numbers
that go backwards — are reported, never repaired. Gaps are counted between the smallest and
the largest number present, so an excerpt starting at chapter 98 reports no gap 1–97.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from itertools import pairwise

from muse.works.chinese_numerals import parse_chapter_number


@dataclass(frozen=True)
class ParsedVolume:
    number: int
    title: str  # without the 第N卷 part ('' if none)
    heading: str  # the heading line, surrounding whitespace stripped
    line_no: int  # 1-based line of the heading in the normalised text


@dataclass(frozen=True)
class ParsedChapter:
    number: int  # as written in the heading, never renumbered
    title: str  # without the 第N章/回 part; couplet halves joined by one U+3000
    heading: str  # the heading line, or only its heading part when the body ran on
    body: str  # without the heading; leading/trailing blank lines stripped
    volume_position: int | None  # 1-based index into ParsedBook.volumes; None before any
    line_no: int  # 1-based line of the heading in the normalised text


@dataclass(frozen=True)
class ParsedBook:
    front_matter: str
    volumes: tuple[ParsedVolume, ...]
    chapters: tuple[ParsedChapter, ...]
    gaps: tuple[tuple[int, int], ...]  # missing number ranges, inclusive
    duplicates: tuple[int, ...]  # numbers occurring more than once, sorted
    out_of_order: tuple[int, ...]  # numbers smaller than their predecessor, in file order


_SPACE = " \t\u3000"
_SEPARATORS = _SPACE + ":：、.．-—·_"
_NUMBER_CHARS = "0-9０-９零〇一二两三四五六七八九十百千万廿卅卌"
_HEADING = re.compile(
    rf"[{_SPACE}]*(?:正文[{_SPACE}]*)?第[{_SPACE}]*(?P<number>[{_NUMBER_CHARS}]{{1,12}})"
    rf"[{_SPACE}]*(?P<marker>[章回卷部集])(?P<rest>.*)"
)
_HEADING_PREFIX = 16  # 第 never starts a heading later than this in the line
_MARKDOWN_PREFIX = re.compile(r"[ \t]*#{1,6}[ \t]+")
_CHAPTER_MARKERS = "章回"
_NEEDS_SEPARATOR = "部集"
_MAX_TITLE = 40
_MAX_ATTACHED_TITLE = 30
_SENTENCE_PUNCTUATION = re.compile(r"[，。！？；：…“”‘’「」『』,!?;]")
_FIRST_CLAUSE_END = re.compile(r"[，。！？；…“”「」,!?;]")
# Prose that refers to a chapter: 第三章里说到, 第十回说的是, 第二章之后 …
_PROSE_AFTER_MARKER = re.compile(
    r"的|里|中[的里]|[说讲写提]到|[说讲写]的|之[前后中]|以[前后]|[前后]面|开头|结尾|末尾"
)
_WHITESPACE_RUN = re.compile(rf"[{_SPACE}]+")
_COUPLET_SEPARATOR = re.compile(r"[ \t]*\u3000[\s]*")
_CLOSING_WORDS = frozenset({"完", "终", "完结", "完本", "（完）", "(完)"})
_MIN_TOC_ENTRIES = 3
_LEADING_BLANK_LINES = re.compile(rf"\A(?:[{_SPACE}]*\n)+")
_EMBEDDED_CHAPTER = re.compile(
    rf"[{_SPACE}]+(?=第[{_SPACE}]*[{_NUMBER_CHARS}]{{1,12}}[{_SPACE}]*[章回])"
)


@dataclass(frozen=True)
class _Heading:
    """A heading line as recognised, before bodies are assembled."""

    index: int  # 0-based line index
    is_chapter: bool
    number: int
    title: str
    heading: str
    run_on: str  # body text that shared the heading line ('' if none)


@dataclass
class _ChapterDraft:
    heading: _Heading
    volume_position: int | None
    lines: list[str] = field(default_factory=list)


def parse_book(text: str) -> ParsedBook:
    """Split normalised book text into front matter, volumes and chapters (see module doc)."""
    lines = text.split("\n")
    headings = [h for i, line in enumerate(lines) for h in _recognise(i, line)]
    headings = _drop_table_of_contents(headings, lines)
    if not headings:
        return ParsedBook(text.strip(), (), (), (), (), ())
    front = lines[: headings[0].index]
    volumes: list[ParsedVolume] = []
    drafts: list[_ChapterDraft] = []
    for position, heading in enumerate(headings):
        end = headings[position + 1].index if position + 1 < len(headings) else len(lines)
        following = ([heading.run_on] if heading.run_on else []) + lines[heading.index + 1 : end]
        if heading.is_chapter:
            drafts.append(_ChapterDraft(heading, len(volumes) or None, following))
        else:
            volumes.append(_volume(heading))
            (drafts[-1].lines if drafts else front).extend(following)
    chapters = tuple(_chapter(d) for d in drafts)
    numbers = [c.number for c in chapters]
    duplicates = _duplicates(numbers)
    return ParsedBook(
        front_matter="\n".join(front).strip(),
        volumes=tuple(volumes),
        chapters=chapters,
        gaps=_gaps(numbers),
        duplicates=duplicates,
        out_of_order=_out_of_order(numbers, set(duplicates)),
    )


def _drop_table_of_contents(headings: list[_Heading], lines: list[str]) -> list[_Heading]:
    """Treat a leading block of bare headings as a table of contents (目录), not chapters.

    The block counts only if it lists at least three chapters and the chapters right after it
    carry the same numbers in the same order; its lines then become front matter text. Volume
    headings after the block's last chapter are real (they open the text proper).
    """
    block_end = 0
    for position, heading in enumerate(headings):
        end = headings[position + 1].index if position + 1 < len(headings) else len(lines)
        if heading.run_on or any(line.strip() for line in lines[heading.index + 1 : end]):
            break
        block_end = position + 1
    else:
        return headings  # nothing but headings: no text proper to compare the block with
    listed = [h.number for h in headings[:block_end] if h.is_chapter]
    if len(listed) < _MIN_TOC_ENTRIES:
        return headings
    proper = [h.number for h in headings[block_end:] if h.is_chapter][: len(listed)]
    if proper != listed:
        return headings
    last_listed = max(i for i, h in enumerate(headings[:block_end]) if h.is_chapter)
    return headings[last_listed + 1 :]


def _recognise(index: int, line: str) -> list[_Heading]:
    """The headings on one line: none, one, or a volume and its first chapter."""
    if "第" not in line[:_HEADING_PREFIX]:
        return []  # the cheap test that keeps parsing linear and fast
    markdown = _MARKDOWN_PREFIX.match(line)
    if markdown is not None:  # `## 第一卷 …` / `### 第一回 …` of a Markdown export
        line = line[markdown.end() :]
    match = _HEADING.match(line)
    if match is None:
        return []
    marker, rest = match["marker"], match["rest"].rstrip()
    if marker in _NEEDS_SEPARATOR and rest and rest[0] not in _SEPARATORS:
        return []
    if marker == "回" and rest.startswith("合"):
        return []  # 第三回合: a round of a fight
    try:
        number = parse_chapter_number(match["number"])
    except ValueError:
        return []
    is_chapter = marker in _CHAPTER_MARKERS
    chapter: list[_Heading] = []
    embedded = None if is_chapter else _EMBEDDED_CHAPTER.search(rest)
    if embedded is not None:  # 第一卷 潜龙在渊 第1章 少年: a volume and its first chapter
        chapter = _recognise(index, rest[embedded.end() :])
        if chapter:
            rest = rest[: embedded.start()]
    split = _split_rest(rest, couplet=marker == "回")
    if split is None:
        return []
    title, run_on_at = split
    if not is_chapter and title in _CLOSING_WORDS:
        return []  # 第一卷 完 closes a volume; a chapter may well be called 完
    heading_end = match.start("rest") + (run_on_at if run_on_at is not None else len(rest))
    found = _Heading(
        index=index,
        is_chapter=is_chapter,
        number=number,
        title=title,
        heading=line[:heading_end].strip(),
        run_on=rest[run_on_at:].strip() if run_on_at is not None else "",
    )
    return [found, *chapter]


def _split_rest(rest: str, *, couplet: bool) -> tuple[str, int | None] | None:
    """Return (title, where the run-on body starts in ``rest`` or None); None: no heading."""
    if not rest.strip(_SEPARATORS):
        return "", None
    if rest[0] not in _SEPARATORS:
        # Title glued to the marker: only a short one that does not read like prose.
        if (
            len(rest) > _MAX_ATTACHED_TITLE
            or _SENTENCE_PUNCTUATION.search(rest)
            or _PROSE_AFTER_MARKER.match(rest)
        ):
            return None
        return _clean_title(rest, couplet=couplet), None
    start = len(rest) - len(rest.lstrip(_SEPARATORS))
    if couplet and (found := _split_couplet(rest, start)):
        return found
    if len(rest) - start <= _MAX_TITLE and "。" not in rest:
        return _clean_title(rest[start:], couplet=couplet), None
    return _split_long_rest(rest, start, couplet=couplet)


def _split_couplet(rest: str, start: int) -> tuple[str, int] | None:
    """Split ``上联　下联<body>``: the second half is exactly as long as the first.

    The halves are separated by U+3000 when there is one (an ASCII space next to it or inside
    a half stands for a lost rare character and counts), else by the first whitespace.
    """
    if "\u3000" in rest[start:]:
        gap = rest.index("\u3000", start)
    elif space := _WHITESPACE_RUN.search(rest, start):
        gap = space.start()
    else:
        return None
    first = rest[start:gap]
    second_at = len(rest) - len(rest[gap:].lstrip(_SPACE))
    second = rest[second_at : second_at + len(first)]
    remainder = rest[second_at + len(first) :]
    if len(first.strip()) < 2 or not remainder.strip():
        return None  # one half only, or nothing beyond the couplet: an ordinary title
    if _SENTENCE_PUNCTUATION.search(first + second):
        return None
    if len(rest) - start <= _MAX_TITLE and not _SENTENCE_PUNCTUATION.search(remainder):
        return None  # short and no prose after it: a longer title (第十回　甲　乙　（上）)
    return f"{first.strip()}\u3000{second.strip()}", second_at + len(first)


def _split_long_rest(rest: str, start: int, *, couplet: bool) -> tuple[str, int]:
    """A long rest is title + body: the title ends at the last whitespace before the first
    clause ends; without such whitespace the heading has no title and all of it is body."""
    clause = _FIRST_CLAUSE_END.search(rest, start)
    limit = clause.start() if clause else len(rest)
    spaces = list(_WHITESPACE_RUN.finditer(rest, start, limit))
    if not spaces or spaces[-1].start() - start > _MAX_TITLE:
        return "", start
    return _clean_title(rest[start : spaces[-1].start()], couplet=couplet), spaces[-1].end()


def _clean_title(title: str, *, couplet: bool) -> str:
    title = title.strip(_SEPARATORS)
    if not couplet:
        return title
    if "\u3000" in title:
        return "\u3000".join(_COUPLET_SEPARATOR.split(title))
    halves = _WHITESPACE_RUN.split(title)
    if len(halves) == 2 and min(len(h) for h in halves) >= 2:
        return "\u3000".join(halves)  # 回目 written with ASCII spaces
    return title


def _volume(heading: _Heading) -> ParsedVolume:
    return ParsedVolume(
        number=heading.number,
        title=heading.title,
        heading=heading.heading,
        line_no=heading.index + 1,
    )


def _chapter(draft: _ChapterDraft) -> ParsedChapter:
    heading = draft.heading
    body = _LEADING_BLANK_LINES.sub("", "\n".join(draft.lines)).rstrip()
    return ParsedChapter(
        number=heading.number,
        title=heading.title,
        heading=heading.heading,
        body=body,
        volume_position=draft.volume_position,
        line_no=heading.index + 1,
    )


def _duplicates(numbers: list[int]) -> tuple[int, ...]:
    return tuple(sorted(n for n, count in Counter(numbers).items() if count > 1))


def _out_of_order(numbers: list[int], duplicates: set[int]) -> tuple[int, ...]:
    return tuple(n for previous, n in pairwise(numbers) if n < previous and n not in duplicates)


def _gaps(numbers: list[int]) -> tuple[tuple[int, int], ...]:
    present = sorted(set(numbers))
    return tuple((a + 1, b - 1) for a, b in pairwise(present) if b > a + 1)
