"""Writing canonical text: a new prose revision, moved in by compare-and-set on the revision.

Canonical text is never updated in place: each change inserts a ``prose_blocks`` row with the
next revision and moves ``chapters.current_revision`` from the revision the caller read. Two
writers who read the same revision race on that UPDATE; exactly one wins, the other gets
:class:`RevisionConflict` and its whole transaction rolls back.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import Connection, CursorResult, select

from muse.core.canonical import sha256_hex
from muse.core.clock import utc_now
from muse.core.errors import InvalidInput, NotFound, RevisionConflict
from muse.core.prose_chars import refusal_message
from muse.core.text import count_han, normalize_text
from muse.store.cas import compare_and_set
from muse.works.tables import chapters, prose_blocks

ORIGINS = ("import", "accept", "edit", "revert")


def _new_id(result: CursorResult[Any]) -> int:
    """The primary key of the row an INSERT just wrote."""
    key = result.inserted_primary_key
    assert key is not None
    return int(key[0])


def insert_prose_block(
    conn: Connection,
    chapter_id: int,
    revision: int,
    text: str,
    origin: str,
    attribution: Mapping[str, Any],
) -> str:
    """Store one revision of a chapter's text; returns its sha256."""
    if origin not in ORIGINS:
        raise ValueError(f"unknown prose origin {origin!r}")
    text = normalize_text(text)
    problem = refusal_message(text)  # every canonical revision passes here (core.prose_chars)
    if problem:
        raise InvalidInput(problem)
    digest = sha256_hex(text)
    conn.execute(
        prose_blocks.insert().values(
            chapter_id=chapter_id,
            revision=revision,
            text=text,
            content_sha256=digest,
            han_count=count_han(text),
            origin=origin,
            attribution=dict(attribution),
            created_at=utc_now(),
        )
    )
    return digest


def add_chapter(
    conn: Connection,
    work_id: int,
    number: int,
    title: str,
    text: str,
    *,
    volume_id: int | None = None,
    origin: str = "import",
    attribution: Mapping[str, Any] | None = None,
) -> int:
    """Create a chapter with its first canonical revision; returns the chapter id."""
    now = utc_now()
    result = conn.execute(
        chapters.insert().values(
            work_id=work_id,
            number=number,
            title=title,
            volume_id=volume_id,
            current_revision=1,
            created_at=now,
            updated_at=now,
        )
    )
    chapter_id = _new_id(result)
    insert_prose_block(conn, chapter_id, 1, text, origin, attribution or {})
    return chapter_id


def write_revision(
    conn: Connection,
    work_id: int,
    number: int,
    text: str,
    *,
    expected_revision: int,
    origin: str,
    attribution: Mapping[str, Any] | None = None,
    title: str | None = None,
) -> int:
    """Make ``text`` the canonical text of chapter ``number``; returns the new revision.

    ``expected_revision`` is the revision the caller read; if the chapter has moved on since,
    nothing is written and :class:`RevisionConflict` is raised.
    """
    if not normalize_text(text).strip():
        raise InvalidInput(f"第 {number} 章的正文不能为空。")
    row = conn.execute(
        select(chapters.c.id, chapters.c.current_revision).where(
            chapters.c.work_id == work_id, chapters.c.number == number
        )
    ).first()
    if row is None:
        raise NotFound(f"作品 {work_id} 没有第 {number} 章。")
    new_revision = expected_revision + 1
    values: dict[str, Any] = {"current_revision": new_revision, "updated_at": utc_now()}
    if title is not None:
        values["title"] = title
    compare_and_set(
        conn,
        chapters,
        where={"id": row.id, "current_revision": expected_revision},
        values=values,
        error=RevisionConflict,
        message=(
            f"第 {number} 章已被改动（当前修订版 {row.current_revision}，"
            f"你基于的是 {expected_revision}），未写入。"
        ),
    )
    insert_prose_block(conn, row.id, new_revision, text, origin, attribution or {})
    return new_revision
