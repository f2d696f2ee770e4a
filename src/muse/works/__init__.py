"""Works, chapters, canonical prose blocks with revisions, import (拆书) and export (spec 01)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from muse.core.faces import lazy_face

if TYPE_CHECKING:
    from muse.works.author_notes import (
        CHAPTER_END,
        CHAPTER_TITLE,
        CLOSE_BRACKET,
        NOTE_LINES,
        NOTE_WORDS,
        OPEN_BRACKET,
        note_label,
    )
    from muse.works.authorization import (
        PURPOSE_LABELS,
        get_snapshot,
        revalidate,
        set_source_status,
        take_snapshot,
    )
    from muse.works.book_decoding import decode_book
    from muse.works.canonical import add_chapter, write_revision
    from muse.works.catalog import (
        chapter_bytes_after,
        chapter_hashes,
        chapter_lengths,
        chapter_revisions,
        chapter_revisions_digest,
        create_work,
        current_revision,
        find_imported_work,
        get_chapter_text,
        get_revision_text,
        get_work_row,
        iter_chapter_texts,
        latest_chapter_number,
        list_chapters,
        list_works,
        prose_attributions,
        prose_slices,
        recent_chapter_lengths,
        resolve_work,
        work_ids,
        work_info,
    )
    from muse.works.contracts import (
        SOURCE_KIND_LABELS,
        STATUS_LABELS,
        AuthorizationSnapshot,
        ChapterText,
        Purpose,
        SourceKind,
    )
    from muse.works.export import FORMATS, export_book, export_epub
    from muse.works.history import chapter_history
    from muse.works.importer import ImportReport, analyse, import_book, source_version_of
    from muse.works.plain_reads import plain_chapter_list
    from muse.works.rows import WorkRow

__all__ = [
    "CHAPTER_END",
    "CHAPTER_TITLE",
    "CLOSE_BRACKET",
    "NOTE_LINES",
    "NOTE_WORDS",
    "OPEN_BRACKET",
    "note_label",
    "AuthorizationSnapshot",
    "ChapterText",
    "FORMATS",
    "ImportReport",
    "PURPOSE_LABELS",
    "Purpose",
    "SOURCE_KIND_LABELS",
    "STATUS_LABELS",
    "SourceKind",
    "add_chapter",
    "analyse",
    "chapter_hashes",
    "chapter_history",
    "chapter_revisions",
    "chapter_revisions_digest",
    "chapter_bytes_after",
    "create_work",
    "current_revision",
    "decode_book",
    "export_book",
    "export_epub",
    "find_imported_work",
    "get_chapter_text",
    "get_revision_text",
    "get_snapshot",
    "get_work_row",
    "WorkRow",
    "import_book",
    "iter_chapter_texts",
    "chapter_lengths",
    "latest_chapter_number",
    "list_chapters",
    "list_works",
    "plain_chapter_list",
    "prose_attributions",
    "prose_slices",
    "recent_chapter_lengths",
    "resolve_work",
    "revalidate",
    "set_source_status",
    "source_version_of",
    "take_snapshot",
    "work_ids",
    "work_info",
    "write_revision",
]

_FACE: dict[str, tuple[str, ...]] = {
    "author_notes": (
        "CHAPTER_END",
        "CHAPTER_TITLE",
        "CLOSE_BRACKET",
        "NOTE_LINES",
        "NOTE_WORDS",
        "OPEN_BRACKET",
        "note_label",
    ),
    "authorization": (
        "PURPOSE_LABELS",
        "get_snapshot",
        "revalidate",
        "set_source_status",
        "take_snapshot",
    ),
    "book_decoding": ("decode_book",),
    "canonical": ("add_chapter", "write_revision"),
    "rows": ("WorkRow",),
    "catalog": (
        "chapter_hashes",
        "chapter_revisions",
        "chapter_revisions_digest",
        "chapter_bytes_after",
        "create_work",
        "current_revision",
        "find_imported_work",
        "get_chapter_text",
        "get_revision_text",
        "get_work_row",
        "iter_chapter_texts",
        "chapter_lengths",
        "latest_chapter_number",
        "list_chapters",
        "list_works",
        "prose_attributions",
        "prose_slices",
        "recent_chapter_lengths",
        "resolve_work",
        "work_ids",
        "work_info",
    ),
    "contracts": (
        "AuthorizationSnapshot",
        "ChapterText",
        "Purpose",
        "SOURCE_KIND_LABELS",
        "STATUS_LABELS",
        "SourceKind",
    ),
    "export": ("FORMATS", "export_book", "export_epub"),
    "history": ("chapter_history",),
    "importer": ("ImportReport", "analyse", "import_book", "source_version_of"),
    "plain_reads": ("plain_chapter_list",),
}

__getattr__, __dir__ = lazy_face(globals(), _FACE)
