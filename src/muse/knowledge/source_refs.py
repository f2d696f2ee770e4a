"""Source references: verified pointers from a card (or a fact) into canonical prose.

A reference is (chapter, code point offsets ``[start, end)``, sha256 of that span, the chapter's
revision). It is only ever created against the current canonical text, so a reference that exists
was true when made. Canonical text changes by new revisions; :func:`revalidate_source_refs`
re-checks every reference of a work and marks the ones whose span no longer holds the same text
as stale, with the reason. A stale reference is never silently kept as proof: the as-of view
drops it and the milestone it alone proved (see card_state.py).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import Connection, Row, Select, func, select

from muse.core.canonical import sha256_hex
from muse.core.clock import utc_now
from muse.core.errors import ContractViolation, NotFound
from muse.core.ids import new_id
from muse.core.text import normalize_text
from muse.knowledge.contracts import RevalidationReport, SourceRef, StaleRef
from muse.knowledge.tables import source_refs
from muse.works import ChapterText, get_chapter_text, iter_chapter_texts


class ChapterTexts:
    """Canonical chapter texts of one work, read once each (imports resolve many references)."""

    def __init__(self, conn: Connection, work_id: int) -> None:
        self.conn = conn
        self.work_id = work_id
        self._cache: dict[int, ChapterText] = {}

    def get(self, chapter: int) -> ChapterText:
        if chapter not in self._cache:
            try:
                self._cache[chapter] = get_chapter_text(self.conn, self.work_id, chapter)
            except NotFound:
                raise ContractViolation(f"出处指向第 {chapter} 章，但作品中没有这一章。") from None
        return self._cache[chapter]


def _ref(chapter: ChapterText, start: int, end: int) -> SourceRef:
    if not 0 <= start < end <= len(chapter.text):
        raise ContractViolation(
            f"出处位置 [{start}, {end}) 超出第 {chapter.number} 章的范围（共 {len(chapter.text)} 字符）。"
        )
    span = chapter.text[start:end]
    return SourceRef(
        chapter=chapter.number,
        start=start,
        end=end,
        sha256=sha256_hex(span),
        revision=chapter.revision,
        quote=span,
    )


def make_source_ref(texts: ChapterTexts, chapter: int, start: int, end: int) -> SourceRef:
    """A reference to ``[start, end)`` of the current canonical text of ``chapter``."""
    return _ref(texts.get(chapter), start, end)


def locate_quote(
    texts: ChapterTexts, chapter: int, quote: str, *, occurrence: int = 1
) -> SourceRef:
    """A reference to the ``occurrence``-th verbatim occurrence of ``quote`` (after NFC) in ``chapter``."""
    needle = normalize_text(quote)
    text = texts.get(chapter).text
    start = -1
    for _ in range(max(occurrence, 1)):
        start = text.find(needle, start + 1) if needle else -1
        if start < 0:
            raise ContractViolation(
                f"引文「{_short(needle)}」不在第 {chapter} 章的原文中（须逐字一致）。"
            )
    return _ref(texts.get(chapter), start, start + len(needle))


def resolve_ref(
    texts: ChapterTexts,
    chapter: int,
    *,
    quote: str | None = None,
    start: int | None = None,
    end: int | None = None,
    sha256: str | None = None,
) -> SourceRef:
    """Build a reference from what an author or a model wrote; every given part must agree."""
    if start is None and end is None:
        if not quote:
            raise ContractViolation("出处需要「引文」，或者「起」「止」位置。")
        ref = locate_quote(texts, chapter, quote)
    elif start is None or end is None:
        raise ContractViolation("出处的「起」「止」必须同时给出。")
    else:
        ref = make_source_ref(texts, chapter, start, end)
        if quote is not None and normalize_text(quote) != ref.quote:
            raise ContractViolation(
                f"第 {chapter} 章 [{start}, {end}) 处的原文是「{_short(ref.quote)}」，与引文不符。"
            )
    if sha256 is not None and sha256 != ref.sha256:
        raise ContractViolation(
            f"第 {chapter} 章 [{ref.start}, {ref.end}) 的哈希与原文不符：原文已修改。"
        )
    return ref


def verify_source_ref(texts: ChapterTexts, ref: SourceRef) -> SourceRef:
    """Check ``ref`` against the current canonical text; returns it re-anchored, or raises."""
    fresh = resolve_ref(texts, ref.chapter, start=ref.start, end=ref.end, sha256=ref.sha256)
    return fresh


def _short(text: str, limit: int = 24) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


# --- storage -------------------------------------------------------------------------------


def ref_rows(
    work_id: int, owner_kind: str, owner_id: str, target: str, refs: Sequence[SourceRef]
) -> list[dict[str, Any]]:
    """Rows of ``source_refs`` for ``refs`` (insert many at once with :func:`insert_ref_rows`)."""
    now = utc_now()
    return [
        dict(
            id=new_id("ref"),
            work_id=work_id,
            owner_kind=owner_kind,
            owner_id=owner_id,
            target=target,
            position=i,
            chapter=r.chapter,
            start_offset=r.start,
            end_offset=r.end,
            span_sha256=r.sha256,
            chapter_revision=r.revision,
            quote=r.quote,
            stale=r.stale,
            stale_reason=r.stale_reason,
            checked_at=now,
        )
        for i, r in enumerate(refs)
    ]


def insert_ref_rows(conn: Connection, rows: list[dict[str, Any]]) -> None:
    if rows:
        conn.execute(source_refs.insert(), rows)


def save_refs(
    conn: Connection,
    work_id: int,
    owner_kind: str,
    owner_id: str,
    target: str,
    refs: Sequence[SourceRef],
) -> None:
    insert_ref_rows(conn, ref_rows(work_id, owner_kind, owner_id, target, refs))


def delete_refs(
    conn: Connection, owner_kind: str, owner_id: str, target: str | None = None
) -> None:
    query = source_refs.delete().where(
        source_refs.c.owner_kind == owner_kind, source_refs.c.owner_id == owner_id
    )
    if target is not None:
        query = query.where(source_refs.c.target == target)
    conn.execute(query)


def ref_from_row(
    chapter: int,
    start: int,
    end: int,
    sha256: str,
    revision: int,
    quote: str,
    stale: bool,
    stale_reason: str | None = None,
) -> SourceRef:
    """A SourceRef from a source_refs row's columns, in table order."""
    return SourceRef(
        chapter=chapter,
        start=start,
        end=end,
        sha256=sha256,
        revision=revision,
        quote=quote,
        stale=bool(stale),
        stale_reason=stale_reason,
    )


def load_refs(
    conn: Connection,
    owner_kind: str,
    *,
    owner_ids: Iterable[str] | Select[*tuple[Any, ...]] | None = None,
    work_id: int | None = None,
) -> dict[tuple[str, str], list[SourceRef]]:
    """References grouped by (owner id, target), in their stored order."""
    c = source_refs.c
    query = select(
        c.owner_id,
        c.target,
        c.chapter,
        c.start_offset,
        c.end_offset,
        c.span_sha256,
        c.chapter_revision,
        c.quote,
        c.stale,
        c.stale_reason,
    ).where(c.owner_kind == owner_kind)
    if isinstance(owner_ids, Select):
        query = query.where(c.owner_id.in_(owner_ids))
    elif owner_ids is not None:
        query = query.where(c.owner_id.in_(list(owner_ids)))
    if work_id is not None:
        query = query.where(c.work_id == work_id)
    grouped: dict[tuple[str, str], list[SourceRef]] = defaultdict(list)
    # the database sorts; plain tuples, since named access on many rows costs more than the query
    rows = conn.execute(query.order_by(c.owner_id, c.target, c.position)).all()
    for owner_id, target, *ref in rows:
        grouped[(owner_id, target)].append(ref_from_row(*ref))
    return grouped


# --- revalidation --------------------------------------------------------------------------


def revalidate_source_refs(
    conn: Connection,
    work_id: int,
    *,
    chapters: Sequence[int] | None = None,
    recheck: bool = False,
) -> RevalidationReport:
    """Check every reference of the work (or of ``chapters``) against current canonical text.

    Same revision: nothing can have changed (unless ``recheck``: ``muse rebuild`` re-hashes every
    reference, trusting no stored flag). Newer revision and the same text at the same offsets:
    re-anchored to the new revision. Otherwise the reference becomes stale, with the reason; a
    stale reference whose text is back becomes valid again. Called by the chapter-edit flow
    inside its own transaction.
    """
    query = select(source_refs).where(source_refs.c.work_id == work_id)
    if chapters is not None:
        query = query.where(source_refs.c.chapter.in_(list(chapters)))
    rows = conn.execute(query).all()
    texts = {
        c.number: c
        for c in iter_chapter_texts(conn, work_id, numbers=sorted({r.chapter for r in rows}))
    }
    counts = {"reanchored": 0, "restored": 0}
    newly_stale: list[StaleRef] = []
    for row in rows:
        _revalidate_row(conn, row, texts.get(row.chapter), counts, newly_stale, recheck)
    return RevalidationReport(work_id=work_id, checked=len(rows), newly_stale=newly_stale, **counts)


def _revalidate_row(
    conn: Connection,
    row: Row[*tuple[Any, ...]],
    chapter: ChapterText | None,
    counts: dict[str, int],
    newly_stale: list[StaleRef],
    recheck: bool = False,
) -> None:
    unchanged = chapter is not None and chapter.revision == row.chapter_revision
    if unchanged and not row.stale and not recheck:
        return
    reason = _stale_reason(row, chapter)
    if reason is None and unchanged and not row.stale:
        return  # a recheck confirmed it
    values: dict[str, Any] = {"checked_at": utc_now()}
    if reason is None:
        counts["restored" if row.stale else "reanchored"] += 1
        values.update(stale=False, stale_reason=None, chapter_revision=chapter.revision)  # type: ignore[union-attr]
    elif not row.stale:
        values.update(stale=True, stale_reason=reason)
        newly_stale.append(
            StaleRef(
                ref_id=row.id,
                owner_kind=row.owner_kind,
                owner_id=row.owner_id,
                target=row.target,
                chapter=row.chapter,
                start=row.start_offset,
                end=row.end_offset,
                reason=reason,
            )
        )
    conn.execute(source_refs.update().where(source_refs.c.id == row.id).values(**values))


def _stale_reason(row: Row[*tuple[Any, ...]], chapter: ChapterText | None) -> str | None:
    if chapter is None:
        return f"第 {row.chapter} 章已不存在。"
    span = chapter.text[row.start_offset : row.end_offset]
    if row.end_offset <= len(chapter.text) and sha256_hex(span) == row.span_sha256:
        return None
    return (
        f"第 {row.chapter} 章已修改（修订版 {row.chapter_revision} → {chapter.revision}），"
        f"[{row.start_offset}, {row.end_offset}) 处不再是「{_short(row.quote)}」。"
    )


def refs_into_chapter(conn: Connection, work_id: int, chapter: int) -> list[dict[str, Any]]:
    """Every stored reference pointing into ``chapter``: who cites it, where, and whether it holds
    (the chapter page of the workbench shows them)."""
    c = source_refs.c
    rows = conn.execute(
        select(
            c.owner_kind,
            c.owner_id,
            c.target,
            c.start_offset,
            c.end_offset,
            c.chapter_revision,
            c.quote,
            c.stale,
            c.stale_reason,
        )
        .where(c.work_id == work_id, c.chapter == chapter)
        .order_by(c.start_offset, c.owner_kind, c.owner_id, c.position)
    ).mappings()
    return [dict(r) for r in rows]


def stale_ref_count(conn: Connection, work_id: int) -> int:
    """How many of the work's source references are marked stale."""
    return int(
        conn.execute(
            select(func.count())
            .select_from(source_refs)
            .where(source_refs.c.work_id == work_id, source_refs.c.stale.is_(True))
        ).scalar_one()
    )
