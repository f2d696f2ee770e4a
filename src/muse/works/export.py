"""Writing the canonical book back out as plain text, Markdown or EPUB.

Headings are written as they were imported (``第一回　灵根孕育源流出　心性修持大道生``, not
``第1章``): the importer keeps each heading line in ``chapters.heading`` / ``volumes.heading``.
A chapter Muse wrote has no imported heading; it gets one in the book's own style (the marker,
numerals and separator most of its headings use), so the whole book reads alike and an exported
``.txt`` or ``.md`` imports back to the same chapters (numbers, titles, text).

EPUB (via EbookLib): one XHTML document per chapter, volumes as sections of the table of
contents, the title, author and language in the metadata, and an identifier derived from the
work so the same book exports to the same identifier.
"""

from __future__ import annotations

import hashlib
import html
import re
from collections import Counter
from dataclasses import dataclass

from sqlalchemy import Connection, select

from muse.core.errors import InvalidInput
from muse.works.catalog import get_work_row, iter_chapter_texts
from muse.works.chinese_numerals import format_chinese_number
from muse.works.tables import chapters, volumes

FORMATS = ("txt", "md", "epub")
TEXT_FORMATS = ("txt", "md")
UNKNOWN_AUTHOR = "佚名"

_STYLE = re.compile(
    r"第(?P<number>[^章回]{1,12}?)(?P<marker>[章回])(?P<separator>[ \u3000:：、.．-]?)"
)


@dataclass(frozen=True)
class ExportedChapter:
    number: int
    heading: str
    text: str
    volume: str | None  # the volume heading, None outside any volume


@dataclass(frozen=True)
class HeadingStyle:
    """How the book writes a chapter heading: 第<numerals><marker><separator><title>."""

    marker: str = "章"
    chinese: bool = False
    separator: str = " "

    def heading(self, number: int, title: str) -> str:
        numerals = format_chinese_number(number) if self.chinese else str(number)
        head = f"第{numerals}{self.marker}"
        return f"{head}{self.separator or ' '}{title}" if title else head


def heading_style(headings: list[str]) -> HeadingStyle:
    """The style most of ``headings`` use (the default ``第5章 标题`` when there are none)."""
    found = [m for m in (_STYLE.match(h) for h in headings) if m]
    if not found:
        return HeadingStyle()

    def most(values: list[str]) -> str:
        return Counter(values).most_common(1)[0][0]

    return HeadingStyle(
        marker=most([m["marker"] for m in found]),
        chinese=most([str(not m["number"].strip().isdigit()) for m in found]) == "True",
        separator=most([m["separator"] for m in found]),
    )


def book_chapters(conn: Connection, work_id: int) -> list[ExportedChapter]:
    """Every canonical chapter in order, with the heading to write and its volume heading."""
    rows = conn.execute(
        select(
            chapters.c.number,
            chapters.c.heading,
            volumes.c.number.label("volume_number"),
            volumes.c.title.label("volume_title"),
            volumes.c.heading.label("volume_heading"),
        )
        .select_from(chapters.outerjoin(volumes, volumes.c.id == chapters.c.volume_id))
        .where(chapters.c.work_id == work_id)
    ).all()
    by_number = {r.number: r for r in rows}
    style = heading_style([r.heading for r in rows if r.heading])
    out = []
    for chapter in iter_chapter_texts(conn, work_id):
        row = by_number[chapter.number]
        volume = None
        if row.volume_number is not None:
            volume = row.volume_heading or f"第{row.volume_number}卷 {row.volume_title}".rstrip()
        heading = row.heading or style.heading(chapter.number, chapter.title)
        out.append(ExportedChapter(chapter.number, heading, chapter.text, volume))
    return out


def export_book(conn: Connection, work_id: int, fmt: str = "txt") -> str:
    """The whole canonical book as text: title, front matter, volume and chapter headings."""
    if fmt not in TEXT_FORMATS:
        raise InvalidInput(
            f"不支持的文本导出格式「{fmt}」，可选：txt、md（EPUB 请导出到文件：--format epub）。"
        )
    work = get_work_row(conn, work_id)
    items = book_chapters(conn, work_id)
    has_volumes = any(c.volume for c in items)
    parts: list[str] = [f"# {work.title}" if fmt == "md" else work.title]
    if work.front_matter:
        parts.append(work.front_matter)
    current_volume = None
    for chapter in items:
        if chapter.volume and chapter.volume != current_volume:
            parts.append(f"## {chapter.volume}" if fmt == "md" else chapter.volume)
            current_volume = chapter.volume
        level = "###" if has_volumes else "##"
        parts.append(f"{level} {chapter.heading}" if fmt == "md" else chapter.heading)
        if chapter.text:
            parts.append(chapter.text)
    return "\n\n".join(parts) + "\n"


def export_epub(conn: Connection, work_id: int, *, author: str | None = None) -> bytes:
    """The whole canonical book as an EPUB 3 file (bytes)."""
    from muse.works.epub import build_epub

    work = get_work_row(conn, work_id)
    items = book_chapters(conn, work_id)
    identity = hashlib.sha256(
        "\n".join([work.title, *(f"{c.number}:{c.heading}" for c in items)]).encode()
    ).hexdigest()[:24]
    return build_epub(
        title=work.title,
        author=(author or "").strip() or UNKNOWN_AUTHOR,
        identifier=f"urn:muse:{identity}",
        front_matter=work.front_matter or "",
        chapters=items,
    )


def paragraphs_html(text: str) -> str:
    """Prose as XHTML paragraphs, one per non-blank line, every character escaped."""
    return "\n".join(f"<p>{html.escape(line)}</p>" for line in text.split("\n") if line.strip())


def round_trip_differences(conn: Connection, work_id: int, fmt: str) -> list[str]:
    """Export the book as ``fmt`` (txt or md), parse it back as an import would, and list every
    chapter that does not come back the same (number, title, heading, text); [] when faithful."""
    from muse.works.book_decoding import decode_book
    from muse.works.book_parser import parse_book

    exported = export_book(conn, work_id, fmt)
    parsed = parse_book(decode_book(exported.encode("utf-8")).text).chapters
    stored = {c.number: c for c in iter_chapter_texts(conn, work_id)}
    headings = {c.number: c.heading for c in book_chapters(conn, work_id)}
    problems = [] if len(parsed) == len(stored) else [f"章数 {len(stored)} → {len(parsed)}"]
    for chapter in parsed:
        original = stored.get(chapter.number)
        if original is None:
            problems.append(f"第 {chapter.number} 章：原书没有这一章")
        elif (chapter.title, chapter.heading, chapter.body) != (
            original.title,
            headings[chapter.number],
            original.text,
        ):
            problems.append(f"第 {chapter.number} 章：标题或正文不一致")
    return problems
