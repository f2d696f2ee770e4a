"""Importing an existing novel (拆书, the part without models).

Decoding and chapter splitting are pure (``book_decoding``, ``book_parser``); this module turns a
parsed book into rows in ONE transaction: a failure at any point leaves nothing behind. Numbering
gaps and out-of-order numbers are reported; duplicate numbers stop the import (two chapters cannot
share a number), and nothing is ever renumbered behind the author's back.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from sqlalchemy import Connection, CursorResult, Engine, select

from muse.core.canonical import sha256_hex
from muse.core.clock import utc_now
from muse.core.errors import ImportFailed
from muse.core.limits import MAX_CHAPTER_CHARS
from muse.core.prose_chars import removal_summary, strip_refused
from muse.core.text import count_han
from muse.works.author_notes import AuthorNote, kinds_summary, split_notes
from muse.works.book_decoding import decode_book
from muse.works.book_parser import ParsedBook, parse_book
from muse.works.catalog import create_work
from muse.works.contracts import Purpose, SourceKind
from muse.works.tables import chapters, prose_blocks, volumes

Progress = Callable[[int, int], None]  # (chapters done, chapters total)
_BATCH = 200


@dataclass(frozen=True)
class DetectedChapter:
    number: int
    title: str
    volume: str | None
    han_count: int
    line_no: int


@dataclass(frozen=True)
class ImportReport:
    title: str
    encoding: str
    source_version: str
    chapters: tuple[DetectedChapter, ...]
    volumes: tuple[str, ...]
    front_matter_han: int
    gaps: tuple[tuple[int, int], ...]
    out_of_order: tuple[int, ...]
    duplicates: tuple[int, ...]
    dry_run: bool
    work_id: int | None = None
    warnings: tuple[str, ...] = field(default=())
    author_notes: tuple[AuthorNote, ...] = field(default=())
    notes_kept: bool = False

    @property
    def han_count(self) -> int:
        return sum(c.han_count for c in self.chapters)

    def to_dict(self) -> dict[str, Any]:
        return {
            "workId": self.work_id,
            "title": self.title,
            "dryRun": self.dry_run,
            "encoding": self.encoding,
            "sourceVersion": self.source_version,
            "chapterCount": len(self.chapters),
            "hanCount": self.han_count,
            "frontMatterHan": self.front_matter_han,
            "volumes": list(self.volumes),
            "gaps": [list(g) for g in self.gaps],
            "outOfOrder": list(self.out_of_order),
            "duplicates": list(self.duplicates),
            "warnings": list(self.warnings),
            "authorNotes": [
                {"chapter": n.chapter, "line": n.line, "text": n.text, "kind": n.kind}
                for n in self.author_notes
            ],
            "authorNotesKept": self.notes_kept,
            "chapters": [
                {
                    "number": c.number,
                    "title": c.title,
                    "volume": c.volume,
                    "hanCount": c.han_count,
                    "line": c.line_no,
                }
                for c in self.chapters
            ],
        }


def _new_id(result: CursorResult[Any]) -> int:
    """The primary key of the row an INSERT just wrote."""
    key = result.inserted_primary_key
    assert key is not None
    return int(key[0])


def _report(
    book: ParsedBook, title: str, encoding: str, version: str, dry_run: bool
) -> ImportReport:
    names = tuple(v.title or f"第{v.number}卷" for v in book.volumes)
    detected = tuple(
        DetectedChapter(
            number=c.number,
            title=c.title,
            han_count=count_han(c.body),
            line_no=c.line_no,
            volume=names[c.volume_position - 1] if c.volume_position else None,
        )
        for c in book.chapters
    )
    warnings = []
    if book.gaps:
        spans = "、".join(f"{a}" if a == b else f"{a}–{b}" for a, b in book.gaps)
        warnings.append(f"章号有缺口：缺第 {spans} 章（按原号导入，未重新编号）。")
    if book.out_of_order:
        warnings.append(
            "章号顺序倒退：" + "、".join(map(str, book.out_of_order)) + "（按原号导入）。"
        )
    return ImportReport(
        title=title,
        encoding=encoding,
        source_version=version,
        chapters=detected,
        volumes=names,
        front_matter_han=count_han(book.front_matter),
        gaps=book.gaps,
        out_of_order=book.out_of_order,
        duplicates=book.duplicates,
        dry_run=dry_run,
        warnings=tuple(warnings),
    )


# A web-novel chapter is 2,000–10,000 characters; a "chapter" of MAX_CHAPTER_CHARS is a file
# whose headings were not recognised (or not a novel at all). ``--max-chapter-chars`` raises it.


def analyse(
    data: bytes,
    title: str,
    *,
    renumber: bool = False,
    max_chapter_chars: int = MAX_CHAPTER_CHARS,
    keep_notes: bool = False,
) -> tuple[ParsedBook, ImportReport]:
    """Decode and split a book file without writing anything (``--dry-run``).

    ``renumber`` is the author's explicit request to number chapters by position (for books that
    restart numbering in every volume); the report then lists every changed number. Characters
    prose may not contain (``core.prose_chars``) are removed and reported; a chapter longer than
    ``max_chapter_chars`` stops the import.
    """
    decoded = decode_book(data)
    text, removed = strip_refused(decoded.text)
    original = parse_book(text)
    book = _renumbered(original) if renumber else original
    book, notes = _without_notes(book, keep=keep_notes)
    if not book.chapters:
        raise ImportFailed(
            "没有识别到任何章节标题（如「第1章 标题」「第一回」）。",
            hint="检查文件是否为小说正文，章节标题是否独占一行。",
        )
    _refuse_absurd_chapters(book, max_chapter_chars)
    version = source_version_of(data)
    report = _report(book, title, decoded.encoding, version, dry_run=True)
    if removed:
        note = f"已去除正文不允许的不可见或控制字符：{removal_summary(removed)}。"
        report = replace(report, warnings=(*report.warnings, note))
    report = replace(report, author_notes=tuple(notes), notes_kept=keep_notes)
    if notes:
        action = "按 --keep-notes 保留在正文中" if keep_notes else "已排除在正式正文之外"
        report = replace(
            report,
            warnings=report.warnings
            + (f"检测到不属于正文的行 {len(notes)} 处（{kinds_summary(notes)}），{action}。",),
        )
    if renumber:
        report = replace(report, warnings=report.warnings + _renumber_warnings(original, book))
    return book, report


def source_version_of(data: bytes) -> str:
    """The imported file's version as a work records it (``works.source_version``)."""
    return "sha256:" + hashlib.sha256(data).hexdigest()[:16]


def _refuse_absurd_chapters(book: ParsedBook, limit: int) -> None:
    for chapter in book.chapters:
        if len(chapter.body) > limit:
            raise ImportFailed(
                f"第 {chapter.number} 章（第 {chapter.line_no} 行起）有 {len(chapter.body):,} 个字符，"
                f"超过单章上限 {limit:,}：多半是章节标题没有被识别，或文件不是小说正文。",
                hint="检查章节标题是否独占一行；确实需要时用 --max-chapter-chars 调高上限。",
            )


def _without_notes(book: ParsedBook, *, keep: bool) -> tuple[ParsedBook, list[AuthorNote]]:
    """The book with author notes out of every chapter body (unless ``keep``), and the notes."""
    notes: list[AuthorNote] = []
    chapters = []
    for c in book.chapters:
        body, found = split_notes(c.number, c.body)
        notes += found
        chapters.append(c if keep or not found else replace(c, body=body))
    return replace(book, chapters=tuple(chapters)), notes


def _renumbered(book: ParsedBook) -> ParsedBook:
    chapters = tuple(replace(c, number=i) for i, c in enumerate(book.chapters, start=1))
    return replace(book, chapters=chapters, gaps=(), duplicates=(), out_of_order=())


def _renumber_warnings(original: ParsedBook, renumbered: ParsedBook) -> tuple[str, ...]:
    changed = [
        f"第{a.number}→{b.number}（第 {a.line_no} 行）"
        for a, b in zip(original.chapters, renumbered.chapters, strict=True)
        if a.number != b.number
    ]
    if not changed:
        return ()
    return (
        f"按作者要求（--renumber）按出现顺序重新编号 {len(changed)} 章："
        + "、".join(changed[:20])
        + ("……" if len(changed) > 20 else ""),
    )


def _refuse_duplicates(book: ParsedBook) -> None:
    if not book.duplicates:
        return
    lines: dict[int, list[str]] = {}
    for c in book.chapters:
        if c.number in book.duplicates:
            lines.setdefault(c.number, []).append(str(c.line_no))
    detail = "；".join(f"第 {n} 章出现在第 {'、'.join(ls)} 行" for n, ls in lines.items())
    raise ImportFailed(
        f"章号重复，无法导入：{detail}。",
        hint="请在原文件中修正重复的章号；若本书每卷重新编号，可加 --renumber 明确要求按出现顺序编号。"
        "Muse 不会自动重新编号。",
    )


def import_book(
    engine: Engine,
    data: bytes,
    *,
    title: str,
    source_kind: SourceKind | str = SourceKind.own,
    purposes: Sequence[Purpose | str] | None = None,
    source_note: str | None = None,
    dry_run: bool = False,
    renumber: bool = False,
    keep_notes: bool = False,
    progress: Progress | None = None,
    max_chapter_chars: int = MAX_CHAPTER_CHARS,
) -> ImportReport:
    """Import a book file as a new work, in one transaction. ``dry_run`` writes nothing."""
    book, report = analyse(
        data,
        title,
        renumber=renumber,
        max_chapter_chars=max_chapter_chars,
        keep_notes=keep_notes,
    )
    if dry_run:
        return report
    _refuse_duplicates(book)
    with engine.begin() as conn:
        work_id = create_work(
            conn,
            title,
            source_kind=SourceKind(source_kind),
            allowed_purposes=[Purpose(p) for p in purposes] if purposes else None,
            source_version=report.source_version,
            source_note=source_note,
            default_chapter_chars=_default_chars(report),
            front_matter=book.front_matter,
        )
        volume_ids = _insert_volumes(conn, work_id, book)
        han_counts = [c.han_count for c in report.chapters]  # counted once, by the analysis
        removed = {} if keep_notes else _notes_by_chapter(report.author_notes)
        _insert_chapters(
            conn, work_id, book, volume_ids, report.source_version, han_counts, progress, removed
        )
    return ImportReport(**{**report.__dict__, "dry_run": False, "work_id": work_id})


def _notes_by_chapter(notes: Sequence[AuthorNote]) -> dict[int, list[str]]:
    out: dict[int, list[str]] = {}
    for n in notes:
        out.setdefault(n.chapter, []).append(n.text)
    return out


def _default_chars(report: ImportReport) -> int:
    """Work default length: the imported book's own median chapter length, else 3000."""
    counts = sorted(c.han_count for c in report.chapters if c.han_count >= 500)
    return counts[len(counts) // 2] if counts else 3000


def _insert_volumes(conn: Connection, work_id: int, book: ParsedBook) -> list[int]:
    ids = []
    for position, volume in enumerate(book.volumes, start=1):
        result = conn.execute(
            volumes.insert().values(
                work_id=work_id,
                number=volume.number,
                title=volume.title,
                heading=volume.heading,
                position=position,
            )
        )
        ids.append(_new_id(result))
    return ids


def _insert_chapters(
    conn: Connection,
    work_id: int,
    book: ParsedBook,
    volume_ids: list[int],
    version: str,
    han_counts: Sequence[int],
    progress: Progress | None,
    removed_notes: dict[int, list[str]],
) -> None:
    now = utc_now()
    total = len(book.chapters)
    for start in range(0, total, _BATCH):
        batch = book.chapters[start : start + _BATCH]
        conn.execute(
            chapters.insert(),
            [
                {
                    "work_id": work_id,
                    "number": c.number,
                    "title": c.title,
                    "heading": c.heading,
                    "volume_id": volume_ids[c.volume_position - 1] if c.volume_position else None,
                    "current_revision": 1,
                    "created_at": now,
                    "updated_at": now,
                }
                for c in batch
            ],
        )
        ids = dict(
            conn.execute(
                select(chapters.c.number, chapters.c.id).where(
                    chapters.c.work_id == work_id, chapters.c.number.in_([c.number for c in batch])
                )
            ).all()
        )
        conn.execute(
            prose_blocks.insert(),
            [
                {
                    "chapter_id": ids[c.number],
                    "revision": 1,
                    "text": c.body,
                    "content_sha256": sha256_hex(c.body),
                    "han_count": han,
                    "origin": "import",
                    "attribution": _attribution(version, c.line_no, removed_notes.get(c.number)),
                    "created_at": now,
                }
                for c, han in zip(batch, han_counts[start : start + _BATCH], strict=True)
            ],
        )
        if progress:
            progress(min(start + _BATCH, total), total)


def _attribution(version: str, line: int, notes: list[str] | None) -> dict[str, Any]:
    """Where the prose came from; the author notes taken out of it are kept here, not lost."""
    base: dict[str, Any] = {"file": version, "line": line}
    return {**base, "authorNotes": notes} if notes else base
