"""The stored revisions of one chapter, oldest first (``muse chapter history``)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from sqlalchemy import Connection, select

from muse.core.clock import iso
from muse.core.errors import NotFound
from muse.works import catalog
from muse.works.tables import chapters, prose_blocks


@dataclass(frozen=True)
class RevisionInfo:
    revision: int
    origin: str
    created_at: str | None
    han_count: int
    content_sha256: str
    current: bool
    attribution: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def chapter_history(conn: Connection, work_id: int, number: int) -> list[RevisionInfo]:
    """Every stored revision of chapter ``number``, oldest first."""
    chapter = conn.execute(
        select(chapters.c.id, chapters.c.current_revision).where(
            chapters.c.work_id == work_id, chapters.c.number == number
        )
    ).first()
    if chapter is None:
        catalog.get_work_row(conn, work_id)
        raise NotFound(
            f"作品 {work_id} 没有第 {number} 章。", hint="用 muse chapters 查看章节列表。"
        )
    rows = conn.execute(
        select(
            prose_blocks.c.revision,
            prose_blocks.c.origin,
            prose_blocks.c.created_at,
            prose_blocks.c.han_count,
            prose_blocks.c.content_sha256,
            prose_blocks.c.attribution,
        )
        .where(prose_blocks.c.chapter_id == chapter.id)
        .order_by(prose_blocks.c.revision)
    )
    return [
        RevisionInfo(
            revision=r.revision,
            origin=r.origin,
            created_at=iso(r.created_at),
            han_count=r.han_count,
            content_sha256=r.content_sha256,
            current=r.revision == chapter.current_revision,
            attribution=dict(r.attribution or {}),
        )
        for r in rows
    ]
