"""The characters prose may contain, decided once for every way text enters the book.

Prose is Unicode text of visible characters plus LF line breaks and TAB. Refused everywhere:

    C0 controls except LF and TAB (NUL, ESC and its terminal sequences …), DEL, C1 controls
    bidi controls      U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069
    zero-width         U+200B ZWSP, U+200C ZWNJ, U+200D ZWJ, U+2060 WJ, U+FEFF (inside text)
    lone surrogates    U+D800–U+DFFF (not text; no encoder takes them)
    noncharacters      U+FFFE, U+FFFF

(CR is not refused: normalisation turns CRLF/CR into LF first.) Why: NUL ends a string in
SQLite's ``length()`` and is refused by PostgreSQL; ESC sequences act on the author's terminal
and survive into the export; bidi overrides and zero-width characters make two texts that look
the same compare, hash and count differently (and can hide text from the author).

How each source is treated (one set, three entry points):

    a model reply   refused by the output contract (``WriterDraft``): the model gets one repair
                    request naming the character and where it is; then the call fails
    an author edit  refused with a Chinese message naming the character and where it is
    an import       stripped, and the import report says how many of which were removed
                    (books from the web routinely carry zero-width characters)
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

_RANGES = (
    "\x00-\x08\x0b-\x1f\x7f-\x9f"  # C0 without TAB/LF, DEL, C1
    "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"  # bidi controls
    "\u200b\u200c\u200d\u2060\ufeff"  # zero-width
    "\ud800-\udfff"  # lone surrogates
    "\ufffe\uffff"
)
DISALLOWED = re.compile(f"[{_RANGES}]")
# A terminal escape sequence goes as a whole when stripped (CSI "ESC [ … final", OSC "ESC ] …
# BEL/ST", and two-character ones), so no "[31m" is left behind in the prose.
_ESCAPE_SEQUENCE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]"
)

_NAMES = {
    "\x00": "NUL 空字符",
    "\x1b": "ESC 控制符",
    "\u200b": "零宽空格",
    "\u200c": "零宽非连接符",
    "\u200d": "零宽连接符",
    "\u2060": "零宽不折行符",
    "\ufeff": "零宽不换行空格（BOM）",
}


def char_name(char: str) -> str:
    """A Chinese name for a refused character, with its code point."""
    code = f"U+{ord(char):04X}"
    if char in _NAMES:
        return f"{_NAMES[char]}（{code}）"
    if "\u202a" <= char <= "\u202e" or "\u2066" <= char <= "\u2069" or char in "\u061c\u200e\u200f":
        return f"双向文字控制符（{code}）"
    if "\ud800" <= char <= "\udfff":
        return f"孤立代理项（{code}）"
    return f"控制字符（{code}）"


@dataclass(frozen=True)
class Refused:
    offset: int  # code point offset into the text
    char: str

    def describe(self) -> str:
        return f"第 {self.offset + 1} 个字符是{char_name(self.char)}"


def find_refused(text: str, limit: int = 5) -> list[Refused]:
    """The first ``limit`` refused characters of ``text`` (empty: the text is clean)."""
    found = []
    for match in DISALLOWED.finditer(text):
        found.append(Refused(match.start(), match.group()))
        if len(found) >= limit:
            break
    return found


def refusal_message(text: str, what: str = "正文") -> str | None:
    """None for clean text, else one Chinese sentence naming what is refused and where."""
    found = find_refused(text)
    if not found:
        return None
    total = len(DISALLOWED.findall(text))
    listed = "；".join(r.describe() for r in found)
    more = f"（共 {total} 处）" if total > len(found) else ""
    return f"{what}含有不允许的不可见或控制字符{more}：{listed}。请删除后重试。"


def strip_refused(text: str) -> tuple[str, Counter[str]]:
    """``text`` without any refused character, and how many of each were removed."""
    removed: Counter[str] = Counter(DISALLOWED.findall(text))
    if not removed:
        return text, removed
    return DISALLOWED.sub("", _ESCAPE_SEQUENCE.sub("\x1b", text)), removed


def removal_summary(removed: Counter[str]) -> str:
    return "、".join(f"{char_name(c)} × {n}" for c, n in removed.most_common())
