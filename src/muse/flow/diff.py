"""A character-aware diff of two candidate versions, for Chinese prose.

Line-based diffs fail on Chinese novels: a paragraph is one long line, so a changed comma marks
the whole paragraph changed. Muse diffs in two levels. First the texts are cut into sentence
units (after 。！？…；, keeping closing quotes with their sentence; every line break is a unit of
its own, so a paragraph split is visible), and the unit sequences are aligned. Then each replaced
run of units is diffed character by character, so the author sees exactly the inserted and
deleted spans. Offsets are Unicode code points, lines count from 1, as everywhere in Muse.

Concatenating the ``old`` side of every change with the unchanged text gives the old version,
and the ``new`` side the new one: the diff loses nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any

SENTENCE_END = frozenset("。！？!?…；;")
CLOSERS = frozenset("”’」』）)》】\"'")
NEWLINE_MARK = "↵"


@dataclass(frozen=True)
class Unit:
    """A sentence (or one line break) of a text, with its line and code point offset."""

    text: str
    line: int
    start: int

    @property
    def end(self) -> int:
        return self.start + len(self.text)


@dataclass(frozen=True)
class Span:
    op: str  # equal | insert | delete
    text: str

    def to_dict(self) -> dict[str, str]:
        return {"op": self.op, "text": self.text}


@dataclass(frozen=True)
class Change:
    """One changed run of sentences: ``old`` became ``new`` (either may be empty)."""

    op: str  # insert | delete | replace
    old_line: int
    new_line: int
    old_start: int
    old_end: int
    new_start: int
    new_end: int
    old: str
    new: str
    spans: tuple[Span, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "op": self.op,
            "oldLine": self.old_line,
            "newLine": self.new_line,
            "oldStart": self.old_start,
            "oldEnd": self.old_end,
            "newStart": self.new_start,
            "newEnd": self.new_end,
            "old": self.old,
            "new": self.new,
            "spans": [s.to_dict() for s in self.spans],
        }


@dataclass(frozen=True)
class TextDiff:
    old_units: tuple[Unit, ...]
    new_units: tuple[Unit, ...]
    changes: tuple[Change, ...]

    @property
    def identical(self) -> bool:
        return not self.changes

    @property
    def inserted_chars(self) -> int:
        return sum(len(s.text) for c in self.changes for s in c.spans if s.op == "insert")

    @property
    def deleted_chars(self) -> int:
        return sum(len(s.text) for c in self.changes for s in c.spans if s.op == "delete")

    def to_dict(self, old_label: str = "旧版", new_label: str = "新版") -> dict[str, Any]:
        return {
            "identical": self.identical,
            "insertedChars": self.inserted_chars,
            "deletedChars": self.deleted_chars,
            "changes": [c.to_dict() for c in self.changes],
            "unified": self.unified(old_label=old_label, new_label=new_label),
        }

    def unified(self, context: int = 1, old_label: str = "旧版", new_label: str = "新版") -> str:
        """A unified diff by sentence: ``-``/``+`` units, then ``~`` with the character edits
        inline as ``[-删去-]`` and ``{+新增+}``; ``context`` unchanged sentences around each."""
        if self.identical:
            return ""
        lines = [f"--- {old_label}", f"+++ {new_label}"]
        matcher = _matcher(self.old_units, self.new_units)
        for group in matcher.get_grouped_opcodes(context):
            old_line = _first_shown_line(self.old_units, [(t, i1, i2) for t, i1, i2, _, _ in group])
            new_line = _first_shown_line(self.new_units, [(t, j1, j2) for t, _, _, j1, j2 in group])
            lines.append(f"@@ -{old_line} +{new_line} @@")
            for tag, i1, i2, j1, j2 in group:
                lines.extend(self._hunk_lines(tag, i1, i2, j1, j2))
        return "\n".join(lines)

    def _hunk_lines(self, tag: str, i1: int, i2: int, j1: int, j2: int) -> Iterator[str]:
        if tag == "equal":
            yield from (" " + _show(u.text) for u in self.old_units[i1:i2] if u.text != "\n")
            return
        old = "".join(u.text for u in self.old_units[i1:i2])
        new = "".join(u.text for u in self.new_units[j1:j2])
        if old:
            yield "-" + _show(old)
        if new:
            yield "+" + _show(new)
        if old and new:
            yield "~" + inline(char_spans(old, new))


def segment(text: str) -> tuple[Unit, ...]:
    """Cut ``text`` into sentence units and line-break units; their texts concatenate to it."""
    units: list[Unit] = []
    start, line, i = 0, 1, 0
    while i < len(text):
        ch = text[i]
        if ch == "\n":
            if i > start:
                units.append(Unit(text[start:i], line, start))
            units.append(Unit("\n", line, i))
            line, start, i = line + 1, i + 1, i + 1
            continue
        if ch in SENTENCE_END:
            j = i + 1
            while j < len(text) and (text[j] in SENTENCE_END or text[j] in CLOSERS):
                j += 1
            units.append(Unit(text[start:j], line, start))
            start = i = j
            continue
        i += 1
    if start < len(text):
        units.append(Unit(text[start:], line, start))
    return tuple(units)


def char_spans(old: str, new: str) -> tuple[Span, ...]:
    """Character-level edit of ``old`` into ``new`` as equal / delete / insert spans."""
    spans: list[Span] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            spans.append(Span("equal", old[i1:i2]))
            continue
        if i2 > i1:
            spans.append(Span("delete", old[i1:i2]))
        if j2 > j1:
            spans.append(Span("insert", new[j1:j2]))
    return tuple(spans)


def inline(spans: tuple[Span, ...]) -> str:
    marks = {"equal": "{}", "delete": "[-{}-]", "insert": "{{+{}+}}"}
    return "".join(marks[s.op].format(_show(s.text)) for s in spans)


def diff_texts(old: str, new: str) -> TextDiff:
    old_units, new_units = segment(old), segment(new)
    changes = []
    for tag, i1, i2, j1, j2 in _matcher(old_units, new_units).get_opcodes():
        if tag == "equal":
            continue
        old_text = "".join(u.text for u in old_units[i1:i2])
        new_text = "".join(u.text for u in new_units[j1:j2])
        changes.append(
            Change(
                op=tag,
                old_line=_line_at(old_units, i1),
                new_line=_line_at(new_units, j1),
                old_start=_offset_at(old_units, i1),
                old_end=_offset_at(old_units, i1) + len(old_text),
                new_start=_offset_at(new_units, j1),
                new_end=_offset_at(new_units, j1) + len(new_text),
                old=old_text,
                new=new_text,
                spans=char_spans(old_text, new_text),
            )
        )
    return TextDiff(old_units, new_units, tuple(changes))


def _matcher(old: tuple[Unit, ...], new: tuple[Unit, ...]) -> SequenceMatcher[str]:
    return SequenceMatcher(None, [u.text for u in old], [u.text for u in new], autojunk=False)


def _line_at(units: tuple[Unit, ...], index: int) -> int:
    """The line of unit ``index``; past the end, the line after the last unit."""
    if index < len(units):
        return units[index].line
    if not units:
        return 1
    last = units[-1]
    return last.line + 1 if last.text == "\n" else last.line


def _first_shown_line(units: tuple[Unit, ...], ranges: list[tuple[str, int, int]]) -> int:
    """The line of the first unit a hunk shows: equal line breaks are not shown, so a hunk whose
    context starts on the break that ends line N starts on line N + 1, not N."""
    for tag, start, end in ranges:
        for index in range(start, end):
            if tag != "equal" or units[index].text != "\n":
                return units[index].line
    return _line_at(units, ranges[0][1])


def _offset_at(units: tuple[Unit, ...], index: int) -> int:
    if index < len(units):
        return units[index].start
    return units[-1].end if units else 0


def _show(text: str) -> str:
    return text.replace("\n", NEWLINE_MARK)
