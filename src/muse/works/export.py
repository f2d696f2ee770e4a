"""Writing the canonical book back out as plain text or Markdown."""

from __future__ import annotations

from sqlalchemy import Connection, select

from muse.core.errors import InvalidInput
from muse.works.catalog import get_work_row, iter_chapter_texts
from muse.works.tables import chapters, volumes

FORMATS = ("txt", "md")


def export_book(conn: Connection, work_id: int, fmt: str = "txt") -> str:
    """The whole canonical book: front matter, volume headings, chapter headings and text."""
    if fmt not in FORMATS:
        raise InvalidInput(f"不支持的导出格式「{fmt}」，可选：txt、md。")
    work = get_work_row(conn, work_id)
    volume_of = {
        row.number: f"第{row.volume_number}卷 {row.title}".rstrip()
        for row in conn.execute(
            select(chapters.c.number, volumes.c.number.label("volume_number"), volumes.c.title)
            .select_from(chapters.join(volumes, volumes.c.id == chapters.c.volume_id))
            .where(chapters.c.work_id == work_id)
        )
    }
    parts: list[str] = [f"# {work['title']}" if fmt == "md" else work["title"]]
    if work["front_matter"]:
        parts.append(work["front_matter"])
    current_volume = None
    for chapter in iter_chapter_texts(conn, work_id):
        volume = volume_of.get(chapter.number)
        if volume and volume != current_volume:
            parts.append(f"## {volume}" if fmt == "md" else volume)
            current_volume = volume
        heading = _heading(chapter.number, chapter.title)
        parts.append(f"{'###' if volume_of else '##'} {heading}" if fmt == "md" else heading)
        if chapter.text:
            parts.append(chapter.text)
    return "\n\n".join(parts) + "\n"


def _heading(number: int, title: str) -> str:
    return f"第{number}章 {title}".rstrip() if title else f"第{number}章"
