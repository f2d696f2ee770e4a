"""Writing the prose search index: per chapter, per work, and knowing when it is out of date.

The index is derived data, rebuilt from canonical text at any time. Two things make it stale:

* **A chapter changed.** :func:`index_chapter` replaces one chapter's chunks; call it in the same
  transaction as the canonical change, so that text and index move together. A chapter whose
  canonical revision differs from the indexed one is listed by :func:`stale_chapters`.
* **The user dictionary changed** (a card name or alias was confirmed). Every chapter may then cut
  differently, so the whole work is rebuilt (:func:`rebuild_index`). :func:`index_version` is
  the version a fresh index would have; the index records the version it was built with, and
  :func:`refresh_index` rebuilds when they differ, else re-indexes only stale chapters.

Between two rebuilds, :func:`index_chapter` and every query cut text with the dictionary the
index was *built* with (stored with it), so the index never mixes two dictionaries.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from typing import Any

from sqlalchemy import Connection, bindparam, delete, func, select, update

from muse.context.search.backend import (
    MAX_CHAPTER,
    RANKER_VERSION,
    chapter_id_range,
    chunk_row_id,
)
from muse.context.search.chunker import CHUNKER_VERSION, chunk_chapter
from muse.context.search.tables import search_chunks, search_index_chapters, search_index_works
from muse.context.search.tokenizer import TOKENIZER_VERSION, Tokenizer, normalize_terms
from muse.core.canonical import hash_value
from muse.core.clock import utc_now
from muse.core.segmentation import rjieba_version
from muse.store.digest import PairsDigest
from muse.store.jobs import enqueue
from muse.store.prepared import Prepared
from muse.works import (
    ChapterText,
    chapter_revisions,
    chapter_revisions_digest,
    get_chapter_text,
    get_work_row,
    iter_chapter_texts,
)

# The reader is part of the version (spec 000 §5.1 proseIndexVersion: 原文索引/读取器版本): a
# change of how hits are ranked changes what a plan retrieves, so it must change the plan's id.
INDEX_FORMAT = f"prose-fts-{TOKENIZER_VERSION}.{CHUNKER_VERSION}.{RANKER_VERSION}"
REFRESH_JOB = "search_index.refresh"
_BATCH_CHAPTERS = 50


@dataclass(frozen=True)
class IndexStatus:
    work_id: int
    built_version: str | None  # None: never indexed
    current_version: str  # what a fresh index would be (current dictionary)
    chapters: int  # canonical chapters
    indexed_chapters: int
    chunks: int
    stale: tuple[int, ...]  # canonical chapters not indexed at their current revision
    orphaned: tuple[int, ...]  # indexed chapters the work no longer has

    @property
    def fresh(self) -> bool:
        return self.built_version == self.current_version and not self.stale and not self.orphaned

    def to_dict(self) -> dict[str, Any]:
        return {
            **asdict(self),
            "stale": list(self.stale),
            "orphaned": list(self.orphaned),
            "fresh": self.fresh,
        }


@dataclass(frozen=True)
class RebuildReport:
    work_id: int
    index_version: str
    chapters: int
    chunks: int
    seconds: float


# --- versions and the user dictionary ------------------------------------------------------


def dictionary_terms(conn: Connection, work_id: int) -> list[str]:
    """The work's user dictionary: names and aliases of its confirmed cards.

    Adapter over the knowledge domain (``muse.knowledge.aliases.tokenizer_terms``), imported
    here so that the index depends on one function of it.
    """
    from muse.knowledge import tokenizer_terms

    return tokenizer_terms(conn, work_id)


def version_for(tokenizer: Tokenizer) -> str:
    """``prose-fts-t1.c1.r2+rjieba-0.2.2+dict-<16 hex>``: changes with any input of the tokens
    and with the ranking."""
    return _version(tokenizer.dictionary_sha256)


def _version(dictionary_sha256: str) -> str:
    return f"{INDEX_FORMAT}+rjieba-{rjieba_version()}+dict-{dictionary_sha256[:16]}"


def index_version(conn: Connection, work_id: int) -> str:
    """The version a fresh index of the work has now (recorded in every retrieval plan).

    Only the dictionary's hash is computed: no tokenizer is built and jieba is not loaded.
    """
    return _version(hash_value(normalize_terms(dictionary_terms(conn, work_id))))


_TOKENIZERS: dict[str, Tokenizer] = {}  # by dictionary sha256; a few works at a time
_TOKENIZERS_LOCK = threading.Lock()


def _cached_tokenizer(sha: str, load_terms: Callable[[], list[str]]) -> Tokenizer:
    with _TOKENIZERS_LOCK:
        found = _TOKENIZERS.get(sha)
    if found is not None:
        return found
    return _remember(Tokenizer(load_terms()))


def _remember(tokenizer: Tokenizer) -> Tokenizer:
    """Cache a tokenizer (a pure function of its terms, so a rolled-back build cannot harm)."""
    with _TOKENIZERS_LOCK:
        if tokenizer.dictionary_sha256 not in _TOKENIZERS and len(_TOKENIZERS) >= 16:
            _TOKENIZERS.pop(next(iter(_TOKENIZERS)))
        return _TOKENIZERS.setdefault(tokenizer.dictionary_sha256, tokenizer)


def _of_work(column: Any) -> Prepared:
    return Prepared(select(column).where(search_index_works.c.work_id == bindparam("work_id")))


_DICTIONARY_SHA = _of_work(search_index_works.c.dictionary_sha256)
_DICTIONARY = _of_work(search_index_works.c.dictionary)
_BUILT_VERSION = _of_work(search_index_works.c.index_version)


def built_tokenizer(conn: Connection, work_id: int) -> Tokenizer | None:
    """The tokenizer the work's index was built with; None when it has no index."""
    sha = _DICTIONARY_SHA.run(conn, work_id=work_id).scalar()
    if sha is None:
        return None
    return _cached_tokenizer(sha, lambda: list(_DICTIONARY.run(conn, work_id=work_id).scalar_one()))


def built_version(conn: Connection, work_id: int) -> str | None:
    version: str | None = _BUILT_VERSION.run(conn, work_id=work_id).scalar()
    return version


# --- writing --------------------------------------------------------------------------------


def _save_state(conn: Connection, work_id: int, tokenizer: Tokenizer) -> None:
    now = utc_now()
    conn.execute(delete(search_index_works).where(search_index_works.c.work_id == work_id))
    conn.execute(
        search_index_works.insert().values(
            work_id=work_id,
            index_version=version_for(tokenizer),
            dictionary=tokenizer.terms,
            dictionary_sha256=hash_value(tokenizer.terms),
            built_at=now,
            updated_at=now,
        )
    )
    _remember(tokenizer)


def _drop_chapters(conn: Connection, work_id: int, first: int, last: int) -> None:
    low, high = chapter_id_range(work_id, first, last)
    conn.execute(delete(search_chunks).where(search_chunks.c.id.between(low, high)))
    conn.execute(
        delete(search_index_chapters).where(
            search_index_chapters.c.work_id == work_id,
            search_index_chapters.c.chapter.between(first, last),
        )
    )


def _rows(work_id: int, chapter: ChapterText, tokenizer: Tokenizer) -> list[dict[str, Any]]:
    return [
        {
            "id": chunk_row_id(work_id, chapter.number, c.seq),
            "work_id": work_id,
            "chapter": chapter.number,
            "seq": c.seq,
            "revision": chapter.revision,
            "start_offset": c.start,
            "end_offset": c.end,
            "han_count": c.han_count,
            "sha256": c.sha256,
            "tokens": " ".join(tokenizer.tokens(c.text)),
        }
        for c in chunk_chapter(chapter.text)
    ]


Progress = Callable[[int, int], None]  # (chapters indexed so far, chapters in all)


def _write_chapters(
    conn: Connection,
    work_id: int,
    chapters: Iterable[ChapterText],
    tokenizer: Tokenizer,
    progress: Progress | None = None,
    total: int = 0,
) -> tuple[int, int]:
    """Insert chunks and chapter records (the chapters' old rows must be gone); (chapters, chunks)."""
    chunk_rows: list[dict[str, Any]] = []
    records: list[dict[str, Any]] = []
    totals = [0, 0]

    def flush() -> None:
        if chunk_rows:
            conn.execute(search_chunks.insert(), chunk_rows)
        if records:
            conn.execute(search_index_chapters.insert(), records)
        totals[0] += len(records)
        totals[1] += len(chunk_rows)
        chunk_rows.clear()
        records.clear()
        if progress is not None:
            progress(totals[0], total)

    now = utc_now()
    for chapter in chapters:
        rows = _rows(work_id, chapter, tokenizer)
        chunk_rows += rows
        records.append(
            {
                "work_id": work_id,
                "chapter": chapter.number,
                "revision": chapter.revision,
                "content_sha256": chapter.content_sha256,
                "chunk_count": len(rows),
                "indexed_at": now,
            }
        )
        if len(records) >= _BATCH_CHAPTERS:
            flush()
    flush()
    return totals[0], totals[1]


def _touch(conn: Connection, work_id: int) -> None:
    conn.execute(
        update(search_index_works)
        .where(search_index_works.c.work_id == work_id)
        .values(updated_at=utc_now())
    )


def index_chapter(conn: Connection, work_id: int, number: int) -> int:
    """Replace chapter ``number``'s chunks with its current canonical text; returns the chunk
    count. Call it in the transaction that changed the text. A work without an index gets one,
    holding only this chapter (the others show as stale until rebuilt or refreshed)."""
    chapter = get_chapter_text(conn, work_id, number)
    tokenizer = built_tokenizer(conn, work_id)
    if tokenizer is None:
        tokenizer = Tokenizer(dictionary_terms(conn, work_id))
        _save_state(conn, work_id, tokenizer)
    _drop_chapters(conn, work_id, number, number)
    _touch(conn, work_id)
    return _write_chapters(conn, work_id, [chapter], tokenizer)[1]


def remove_chapter(conn: Connection, work_id: int, number: int) -> None:
    """Forget a chapter the work no longer has."""
    _drop_chapters(conn, work_id, number, number)
    _touch(conn, work_id)


def rebuild_index(
    conn: Connection, work_id: int, *, progress: Progress | None = None
) -> RebuildReport:
    """Rebuild the work's whole index from canonical text with the current dictionary.

    ``progress(done, total)`` is called after every batch of chapters (a progress bar)."""
    started = time.perf_counter()
    get_work_row(conn, work_id)
    tokenizer = Tokenizer(dictionary_terms(conn, work_id))
    _drop_chapters(conn, work_id, 0, MAX_CHAPTER)
    _save_state(conn, work_id, tokenizer)
    total = len(chapter_revisions(conn, work_id)) if progress is not None else 0
    texts = iter_chapter_texts(conn, work_id)
    chapters, chunks = _write_chapters(conn, work_id, texts, tokenizer, progress, total)
    return RebuildReport(
        work_id, version_for(tokenizer), chapters, chunks, round(time.perf_counter() - started, 3)
    )


# --- knowing when it is out of date ----------------------------------------------------------


def _indexed_revisions(conn: Connection, work_id: int) -> dict[int, int]:
    rows = conn.execute(
        select(search_index_chapters.c.chapter, search_index_chapters.c.revision).where(
            search_index_chapters.c.work_id == work_id
        )
    )
    return {chapter: revision for chapter, revision in rows}


_CHUNK_TOTAL = Prepared(
    select(func.coalesce(func.sum(search_index_chapters.c.chunk_count), 0)).where(
        search_index_chapters.c.work_id == bindparam("work_id"),
        search_index_chapters.c.chapter <= bindparam("max_chapter"),
    )
)


def chunk_total(conn: Connection, work_id: int, *, max_chapter: int) -> int:
    """Number of indexed chunks of chapters ``<= max_chapter``."""
    return int(_CHUNK_TOTAL.run(conn, work_id=work_id, max_chapter=max_chapter).scalar_one())


def stale_chapters(conn: Connection, work_id: int) -> list[int]:
    """Canonical chapters whose indexed revision is not their current one (or not indexed)."""
    indexed = _indexed_revisions(conn, work_id)
    canonical = chapter_revisions(conn, work_id)
    return sorted(n for n, rev in canonical.items() if indexed.get(n) != rev)


def index_status(conn: Connection, work_id: int) -> IndexStatus:
    canonical = chapter_revisions(conn, work_id)
    indexed = _indexed_revisions(conn, work_id)
    return IndexStatus(
        work_id=work_id,
        built_version=built_version(conn, work_id),
        current_version=index_version(conn, work_id),
        chapters=len(canonical),
        indexed_chapters=len(indexed),
        chunks=chunk_total(conn, work_id, max_chapter=MAX_CHAPTER),
        stale=tuple(sorted(n for n, rev in canonical.items() if indexed.get(n) != rev)),
        orphaned=tuple(sorted(set(indexed) - set(canonical))),
    )


_INDEXED_DIGEST = PairsDigest(
    search_index_chapters.c.chapter,
    search_index_chapters.c.revision,
    search_index_chapters.c.work_id == bindparam("work_id"),
)


def refresh_index(conn: Connection, work_id: int) -> str:
    """Bring the index up to date with the least work; returns its (now current) version.

    A changed dictionary means a full rebuild; otherwise only stale chapters are re-indexed and
    chapters the work no longer has are dropped. Run it before freezing a retrieval plan.
    """
    current = index_version(conn, work_id)
    if built_version(conn, work_id) != current:
        return rebuild_index(conn, work_id).index_version
    indexed_pairs = _INDEXED_DIGEST(conn, work_id=work_id)
    if chapter_revisions_digest(conn, work_id) == indexed_pairs:  # the usual case: one row each
        return current
    canonical = chapter_revisions(conn, work_id)
    indexed = _indexed_revisions(conn, work_id)
    for number in sorted(n for n, rev in canonical.items() if indexed.get(n) != rev):
        index_chapter(conn, work_id, number)
    for number in sorted(set(indexed) - set(canonical)):
        remove_chapter(conn, work_id, number)
    return current


def enqueue_refresh(conn: Connection, work_id: int) -> str:
    """Queue a refresh in the caller's transaction (e.g. when a card name or alias changes)."""
    return enqueue(conn, REFRESH_JOB, {"work_id": work_id}, work_id=work_id)


def run_refresh_job(conn: Connection, payload: dict[str, Any]) -> str:
    """The job handler of ``REFRESH_JOB`` for the worker."""
    return refresh_index(conn, int(payload["work_id"]))


def index_overview(
    conn: Connection, work_id: int, *, offset: int = 0, limit: int | None = None
) -> dict[str, Any]:
    """The work's index as the workbench shows it: the version it was built with and when, the
    dictionary size, how many chapters are in each state (``fresh`` | ``stale`` | ``missing``;
    ``orphaned`` for an indexed chapter the work lost), and per chapter — ``limit`` of them from
    ``offset`` in number order, all without a limit — its indexed revision, chunk count and
    state. The counts cover every chapter; only the listed rows are built."""
    head = conn.execute(
        select(
            search_index_works.c.index_version,
            search_index_works.c.built_at,
            search_index_works.c.updated_at,
            search_index_works.c.dictionary,
        ).where(search_index_works.c.work_id == work_id)
    ).first()
    canonical = chapter_revisions(conn, work_id)
    indexed = {
        chapter: (revision, chunks)
        for chapter, revision, chunks in conn.execute(
            select(
                search_index_chapters.c.chapter,
                search_index_chapters.c.revision,
                search_index_chapters.c.chunk_count,
            ).where(search_index_chapters.c.work_id == work_id)
        )
    }
    numbers = sorted(set(canonical) | set(indexed))
    states = {"fresh": 0, "stale": 0, "missing": 0, "orphaned": 0}
    state_of: dict[int, str] = {}
    for number in numbers:
        got = indexed.get(number)
        if number not in canonical:
            state = "orphaned"
        elif got is None:
            state = "missing"
        else:
            state = "fresh" if got[0] == canonical[number] else "stale"
        states[state] += 1
        state_of[number] = state
    shown = numbers[offset:] if limit is None else numbers[offset : offset + limit]
    when: dict[int, Any] = {}
    if shown:
        found = conn.execute(
            select(search_index_chapters.c.chapter, search_index_chapters.c.indexed_at).where(
                search_index_chapters.c.work_id == work_id,
                search_index_chapters.c.chapter.in_(shown),
            )
        )
        when = {chapter: at for chapter, at in found}
    rows = [
        {
            "chapter": number,
            "revision": canonical.get(number),
            "indexedRevision": indexed[number][0] if number in indexed else None,
            "chunks": indexed[number][1] if number in indexed else 0,
            "indexedAt": when.get(number),
            "state": state_of[number],
        }
        for number in shown
    ]
    return {
        "builtVersion": head.index_version if head else None,
        "currentVersion": index_version(conn, work_id),
        "builtAt": head.built_at if head else None,
        "updatedAt": head.updated_at if head else None,
        "dictionarySize": len(head.dictionary) if head else 0,
        "chunks": sum(chunks for _, chunks in indexed.values()),
        "states": states,
        "total": len(numbers),
        "offset": offset,
        "chapters": rows,
    }


def chapter_chunks(conn: Connection, work_id: int, chapter: int) -> list[dict[str, Any]]:
    """The indexed chunks of one chapter, in order: offsets into the revision, Han count,
    hash and tokens (what a search hit points at)."""
    return [
        {
            "seq": r.seq,
            "revision": r.revision,
            "start": r.start_offset,
            "end": r.end_offset,
            "hanCount": r.han_count,
            "sha256": r.sha256,
            "tokens": r.tokens,
        }
        for r in conn.execute(
            select(search_chunks)
            .where(search_chunks.c.work_id == work_id, search_chunks.c.chapter == chapter)
            .order_by(search_chunks.c.seq)
        )
    ]
