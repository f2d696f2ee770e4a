"""The chapter listing through the plain read path (:mod:`muse.store.plain`): no SQLAlchemy, no
pydantic, so ``muse chapters --json`` starts in a blink (issue 12).

It answers only the ordinary case: the work is found at once (the only work there is, an id that
exists, a title exactly one work has). For anything else it answers ``None`` and the command runs
:func:`muse.works.catalog.list_chapters` and :func:`~muse.works.catalog.resolve_work`, whose
messages the author then sees. The rows are the same dicts ``ChapterInfo.model_dump(mode="json")``
gives, in the same order (``tests/store/test_plain_reads.py`` compares both on both backends).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from muse.core.redaction import storable_text

MAX_ID = 2**63 - 1  # as catalog.MAX_ID (the catalog imports SQLAlchemy; a test checks they agree)

if TYPE_CHECKING:
    from muse.store.plain import PlainReader

# The canonical revision's block of each chapter, as catalog.list_chapters joins it; "+ 0" keeps
# SQLite on the covering index (migration 0026) instead of the table rows behind the text.
_CHAPTERS = (
    "SELECT c.number, c.title, v.title, b.han_count, c.current_revision, b.content_sha256"
    " FROM chapters c"
    " JOIN prose_blocks b ON b.chapter_id = c.id AND b.revision + 0 = c.current_revision"
    " LEFT OUTER JOIN volumes v ON v.id = c.volume_id"
    " WHERE c.work_id = ? ORDER BY c.number"
)
_FIELDS = ("number", "title", "volume", "han_count", "revision", "content_sha256")


def plain_work_id(reader: PlainReader, work: str | None) -> int | None:
    """The work ``work`` names, as ``resolve_work`` finds it; ``None`` where it would refuse
    (no work, several, none or several with that title, no such id) or would bind otherwise."""
    if work is None:
        found = reader.rows("SELECT id FROM works ORDER BY id LIMIT 2")
    elif work.isdecimal():
        if not 0 < int(work) <= MAX_ID:
            return None
        found = reader.rows("SELECT id FROM works WHERE id = ?", (int(work),))
    elif storable_text(work) == work:  # else the engine would bind a redacted, cleaned title
        found = reader.rows("SELECT id FROM works WHERE title = ? LIMIT 2", (work,))
    else:
        return None
    return int(found[0][0]) if len(found) == 1 else None


def plain_chapter_list(reader: PlainReader, work: str | None) -> list[dict[str, Any]] | None:
    """``[c.model_dump(mode="json") for c in list_chapters(conn, work_id)]``, or ``None``."""
    work_id = plain_work_id(reader, work)
    if work_id is None:
        return None
    return [dict(zip(_FIELDS, row, strict=True)) for row in reader.rows(_CHAPTERS, (work_id,))]
