"""A minimal ``AsOfReader`` for the tests of the read-only tools and the dispatcher alone.

Canonical chapters ≤ ``as_of`` from the works tables (the current revision's prose block) and a
naive substring search; cards, outline, style and patterns read as empty. Production reads go
through ``muse.context.explore.tool_reader`` over the real ``AsOfView``; this one lived in
``muse.agents.asof_reader`` until it was found to be used by tests only.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, Engine, select

from muse.agents.errors import AsOfViolation
from muse.core.errors import InvalidInput
from muse.works.tables import chapters, prose_blocks

SNIPPET_RADIUS = 60
MAX_SEARCH_LIMIT = 50


class MinimalAsOfReader:
    """Canonical prose ≤ ``as_of`` of one work; nothing else yet."""

    def __init__(self, engine_or_conn: Engine | Connection, work_id: int, as_of: int) -> None:
        self._db = engine_or_conn
        self.work_id = work_id
        self.as_of = as_of

    def _rows(self, *conditions: Any) -> list[Any]:
        query = (
            select(
                chapters.c.number,
                chapters.c.title,
                prose_blocks.c.revision,
                prose_blocks.c.text,
                prose_blocks.c.content_sha256,
            )
            .join(
                prose_blocks,
                (prose_blocks.c.chapter_id == chapters.c.id)
                & (prose_blocks.c.revision == chapters.c.current_revision),
            )
            .where(chapters.c.work_id == self.work_id, chapters.c.number <= self.as_of, *conditions)
            .order_by(chapters.c.number)
        )
        if isinstance(self._db, Connection):
            return list(self._db.execute(query))
        with self._db.connect() as conn:
            return list(conn.execute(query))

    def read_chapter(self, number: int) -> dict[str, Any] | None:
        if number > self.as_of:
            raise AsOfViolation(
                f"第 {number} 章在冻结点（第 {self.as_of} 章）之后，拒绝读取。",
                hint="探索与回放只能读冻结点及之前的正式正文。",
            )
        rows = self._rows(chapters.c.number == number)
        if not rows:
            return None
        row = rows[0]
        return {
            "number": row.number,
            "title": row.title,
            "revision": row.revision,
            "text": row.text,
            "contentSha256": row.content_sha256,
        }

    def search_prose(self, query: str, limit: int = 10) -> list[dict[str, Any]]:
        query = query.strip()
        if not query:
            raise InvalidInput("检索词不能为空。")
        limit = max(1, min(limit, MAX_SEARCH_LIMIT))
        hits: list[dict[str, Any]] = []
        for row in self._rows():
            start = row.text.find(query)
            while start != -1 and len(hits) < limit:
                end = start + len(query)
                hits.append(
                    {
                        "chapter": row.number,
                        "revision": row.revision,
                        "start": start,
                        "end": end,
                        "snippet": row.text[max(0, start - SNIPPET_RADIUS) : end + SNIPPET_RADIUS],
                    }
                )
                start = row.text.find(query, end)
            if len(hits) >= limit:
                break
        return hits

    def get_card(self, name: str) -> dict[str, Any] | None:
        return None

    def get_outline(self) -> dict[str, Any] | None:
        return None

    def get_style(self) -> dict[str, Any] | None:
        return None

    def get_patterns(self) -> list[dict[str, Any]]:
        return []
