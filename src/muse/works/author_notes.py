"""Author notes in web-novel files (作者的话): found at import, kept out of the canonical prose.

Serialised web novels carry lines that are not the story: 「（作者的话：……）」, 「PS：……」,
「求月票」「求推荐票」 between chapters. Imported as prose they would reach the writer's context
and the style profile as if they were the book. :func:`split_notes` removes whole lines only —
never part of a line of prose — of these kinds:

* a line opening with 作者的话 / 作者有话说 (bracketed or not); an opening bracket that is not
  closed on its line runs on until the line that closes it;
* a line opening with PS / P.S. followed by a colon or comma;
* a short line (at most ``SHORT_LINE`` characters) asking for votes or support: 求月票, 求推荐
  (票), 求收藏, 求订阅, 求打赏, 求票, 月票加更.

The import report lists every note (``--dry-run`` shows them first); with ``--keep-notes`` the
author keeps them in the prose. Removed notes are kept with the chapter's import attribution.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SHORT_LINE = 60
_OPENING = re.compile(r"^[（(【\[]?\s*(?:作者的话|作者有话说|作者有话要说)")
_PS = re.compile(r"^(?:[pP]\.?\s?[sS]\.?)\s*[：:，,]")
_PLEA = re.compile(r"求(?:月票|推荐票?|收藏|订阅|打赏|票)|月票加更")
_CLOSERS = "）)】]"


@dataclass(frozen=True)
class AuthorNote:
    chapter: int
    line: int  # 1-based line within the chapter body
    text: str


def _is_note(line: str) -> bool:
    stripped = line.strip()
    if not stripped:
        return False
    if _OPENING.match(stripped) or _PS.match(stripped):
        return True
    return len(stripped) <= SHORT_LINE and bool(_PLEA.search(stripped))


def _opens_unclosed(line: str) -> bool:
    stripped = line.strip()
    return stripped[:1] in "（(【[" and not stripped.endswith(tuple(_CLOSERS))


def split_notes(chapter: int, body: str) -> tuple[str, list[AuthorNote]]:
    """``body`` without its author-note lines, and the notes (in order)."""
    kept: list[str] = []
    notes: list[AuthorNote] = []
    lines = body.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if not _is_note(line):
            kept.append(line)
            i += 1
            continue
        start, block = i, [line]
        if _OPENING.match(line.strip()) and _opens_unclosed(line):
            while i + 1 < len(lines) and not lines[i].strip().endswith(tuple(_CLOSERS)):
                i += 1
                block.append(lines[i])
        notes.append(AuthorNote(chapter, start + 1, "\n".join(b.strip() for b in block)))
        i += 1
    if not notes:
        return body, []
    return _tidy("\n".join(kept)), notes


def _tidy(text: str) -> str:
    """No run of blank lines left where a note was, no blank edge."""
    return re.sub(r"\n{3,}", "\n\n", text).strip("\n")
