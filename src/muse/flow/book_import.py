"""Importing a book file and building its search index in one command (``muse import``, the
workbench's 导入).

The import is one transaction (:func:`muse.works.importer.import_book`); the index is derived
data built right after, in its own transaction, so the first ``write`` does not pay for it
(issue 12). Should the index fail, the import stands and the first write (or ``muse index
rebuild``) builds it. Cross-domain (works + context), so it lives in ``flow``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine

from muse.context import rebuild_index
from muse.core.errors import InvalidInput
from muse.works import (
    ImportReport,
    Purpose,
    SourceKind,
    find_imported_work,
    import_book,
    source_version_of,
)

Progress = Callable[[int, int], None]

SOURCE_CHOICES: dict[str, SourceKind] = {
    "own": SourceKind.own,
    "public-domain": SourceKind.public_domain,
    "licensed": SourceKind.licensed,
}


def source_kind_of(source: str) -> SourceKind:
    """The author's word for where the text comes from (``--source``, the page's 来源)."""
    if source not in SOURCE_CHOICES:
        raise InvalidInput(f"未知来源「{source}」，可选：own、public-domain、licensed。")
    return SOURCE_CHOICES[source]


@dataclass(frozen=True)
class ImportLimits:
    renumber: bool = False
    max_chapter_chars: int | None = None
    keep_notes: bool = False

    def kwargs(self) -> dict[str, Any]:
        out: dict[str, Any] = {"renumber": self.renumber, "keep_notes": self.keep_notes}
        if self.max_chapter_chars is not None:
            out["max_chapter_chars"] = self.max_chapter_chars
        return out


def import_and_index(
    engine: Engine,
    data: bytes,
    *,
    title: str,
    source_kind: SourceKind,
    purposes: Sequence[Purpose] | None,
    limits: ImportLimits,
    import_progress: Progress | None = None,
    index_progress: Progress | None = None,
) -> tuple[ImportReport, dict[str, Any]]:
    """The committed import and what the index build reported (``{"error": …}`` if it failed)."""
    report = import_book(
        engine,
        data,
        title=title,
        source_kind=source_kind,
        purposes=purposes,
        progress=import_progress,
        **limits.kwargs(),
    )
    assert report.work_id is not None
    try:
        with engine.begin() as conn:
            index = rebuild_index(conn, report.work_id, progress=index_progress)
    except Exception as err:  # the import is committed; the index is derived and can wait
        return report, {"error": str(err)}
    return report, {
        "indexVersion": index.index_version,
        "chapters": index.chapters,
        "chunks": index.chunks,
        "seconds": index.seconds,
    }


def already_imported(engine: Engine, data: bytes, title: str) -> int | None:
    """The work an identical import (same file, same title) already made, if any: a confirmed
    import submitted twice (a double click) imports once."""
    with engine.connect() as conn:
        return find_imported_work(conn, title.strip(), source_version_of(data))
