"""The prose search index: where in the canonical text a name, an alias or a phrase appears.

This is the one entry point the context builder uses (ARCHITECTURE.md §7, spec 000 §5):

* Chinese text is cut into tokens in Python (rjieba, with the work's card names and aliases kept
  whole: :mod:`muse.context.search.tokenizer`) and stored space-separated, so SQLite FTS5 and
  PostgreSQL ``tsvector`` index exactly the same tokens and match the same chunks.
* Chapters are cut into paragraph-aligned chunks of about 200–400 Han characters
  (:mod:`muse.context.search.chunker`); every hit is a source pointer: chapter, revision, code
  point offsets, sha256 and the text itself.
* **Time is frozen** (principle 4): ``max_chapter`` is mandatory. It bounds the row-id range the
  full-text engine scans, is repeated as a plain filter, and every hit is checked once more here;
  a hit after the freeze point is a :class:`ContractViolation`, never a silent result.
* **Bounded ranking**: a query scores at most the latest ``RANK_WINDOW`` (1,000) matching chunks
  before the freeze point, and free text keeps its rarest words first
  (:func:`rarest_first`), so a query costs about the same at chapter 100 and at chapter 2,000
  even when a protagonist's name is in nearly every chunk (:mod:`muse.context.search.backend`).
* **Deterministic order** (principle 6): score DESC, sourceVersion ASC, sourceId ASC, offset ASC
  (spec 000 §5.1 tieBreak), with scores rounded to 9 significant digits; see
  :mod:`muse.context.search.backend` for how the two backends' scores differ.

Searching reads the index as it is: call :func:`refresh_index` before freezing a retrieval plan
(it returns the :func:`index_version` to record in it). Writing and maintenance live in
:mod:`muse.context.search.builder` and are re-exported here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from sqlalchemy import Connection

from muse.context.search.backend import (
    Phrase,
    count_each,
    match_chunks,
    rank_window,
)
from muse.context.search.builder import (
    INDEX_FORMAT,
    REFRESH_JOB,
    IndexStatus,
    RebuildReport,
    built_tokenizer,
    built_version,
    chapter_chunks,
    chunk_total,
    dictionary_terms,
    enqueue_refresh,
    index_chapter,
    index_overview,
    index_status,
    index_version,
    rebuild_index,
    refresh_index,
    remove_chapter,
    run_refresh_job,
    stale_chapters,
)
from muse.context.search.tokenizer import Tokenizer
from muse.core.errors import ContractViolation, InvalidInput, NotFound

__all__ = [
    "INDEX_FORMAT",
    "REFRESH_JOB",
    "Hit",
    "IndexStatus",
    "QueryResult",
    "RebuildReport",
    "built_version",
    "chapter_chunks",
    "dictionary_terms",
    "enqueue_refresh",
    "index_chapter",
    "index_overview",
    "index_status",
    "index_version",
    "informative_tokens",
    "rarest_first",
    "rebuild_index",
    "refresh_index",
    "remove_chapter",
    "run_refresh_job",
    "search",
    "search_query",
    "search_text",
    "stale_chapters",
]


@dataclass(frozen=True)
class Hit:
    """One matching chunk: a pointer into one revision of one chapter's canonical text."""

    chunk_id: str  # f"{work_id}:{chapter}:{start}", independent of database row ids
    chapter: int  # sourceId
    revision: int  # sourceVersion
    start: int  # code point offset into that revision's text, inclusive
    end: int  # exclusive
    score: float  # higher is better; comparable within one backend only
    sha256: str  # of text
    text: str  # the chapter text [start, end)

    def sort_key(self) -> tuple[float, int, int, int]:
        return (-self.score, self.revision, self.chapter, self.start)


def search(
    conn: Connection, work_id: int, terms: Sequence[str], *, max_chapter: int, limit: int = 10
) -> list[Hit]:
    """Chunks of chapters ``<= max_chapter`` holding any of ``terms`` (a card's name and its
    aliases: OR). Each term matches as a whole phrase; a term in the work's dictionary is a
    single token."""
    if isinstance(terms, str):  # a bare string would search each of its characters
        raise TypeError("search() takes a list of names; use search_text() for free text")
    tokenizer = _checked(conn, work_id, max_chapter, limit)
    phrases = list(dict.fromkeys(tokenizer.term_phrase(t) for t in terms))
    return _hits(conn, work_id, phrases, max_chapter, limit)


def search_text(
    conn: Connection,
    work_id: int,
    query: str,
    *,
    max_chapter: int,
    limit: int = 10,
    total: Callable[[], int] | None = None,
    tokenizer: Tokenizer | None = None,
) -> list[Hit]:
    """Chunks of chapters ``<= max_chapter`` sharing words with free text: OR over its tokens,
    single characters left out unless they are dictionary terms or all there is, words in more
    than half of those chunks left out unless they are all there is (see
    :func:`informative_tokens`), and the rarest words first (see :func:`rarest_first`).

    ``total`` and ``tokenizer``: :func:`chunk_total` of ``max_chapter`` when asked, and the
    index's :func:`built_tokenizer` (a reader that searches one frozen state many times reads
    them once: ``AsOfView``); default: read here."""
    tokenizer = _checked(conn, work_id, max_chapter, limit, tokenizer)
    tokens = list(tokenizer.query_tokens(query))
    if len(tokens) >= 2:
        counts = _match_counts(conn, work_id, tokens, max_chapter)
        total_chunks = (
            total() if total is not None else chunk_total(conn, work_id, max_chapter=max_chapter)
        )
        tokens = rarest_first(
            _informative(tokens, counts, total_chunks), counts, rank_window(limit)
        )
    return _hits(conn, work_id, [(t,) for t in tokens], max_chapter, limit)


def informative_tokens(
    conn: Connection, work_id: int, tokens: Sequence[str], max_chapter: int
) -> list[str]:
    """The query tokens worth matching, judged on the chunks up to the freeze point only.

    A word in more than half of the chunks (「缓缓」 in a long book) carries no weight in bm25
    (FTS5 clamps its idf to ~0), yet matching it makes the backend score most of the book; it is
    dropped. When every word is that common, the rarest ones are kept. Counts are taken on the
    same tokens on both backends, so the rule selects the same words on both.
    """
    if len(tokens) < 2:
        return list(tokens)
    counts = _match_counts(conn, work_id, tokens, max_chapter)
    return _informative(tokens, counts, chunk_total(conn, work_id, max_chapter=max_chapter))


def rarest_first(tokens: Sequence[str], counts: Mapping[str, int], window: int) -> list[str]:
    """The rarest tokens whose match counts add up to at most ``window`` (the rarest one at
    least), in query order.

    Only the latest ``window`` matches of a query are ranked (``index_backend.RANK_WINDOW``).
    Were common words OR-ed in, their matches would fill that window with recent chunks and push
    out an older one holding the rare words the query is about; the rare words decide the
    ranking anyway (a common word's idf is small). Counts are equal on both backends, and so is
    the choice.
    """
    budget, chosen = window, set[str]()
    for token in sorted(tokens, key=lambda t: (counts.get(t, 0), tokens.index(t))):
        if chosen and counts.get(token, 0) > budget:
            break
        chosen.add(token)
        budget -= counts.get(token, 0)
    return [t for t in tokens if t in chosen]


def _match_counts(
    conn: Connection, work_id: int, tokens: Sequence[str], max_chapter: int
) -> dict[str, int]:
    counts = count_each(conn, work_id, [(t,) for t in tokens], max_chapter=max_chapter)
    return dict(zip(tokens, counts, strict=True))


def _informative(tokens: Sequence[str], counts: Mapping[str, int], total: int) -> list[str]:
    kept = [t for t in tokens if counts[t] > 0 and counts[t] * 2 <= total]
    if kept:
        return kept
    rarest = min((c for c in counts.values() if c > 0), default=0)
    return [t for t in tokens if counts[t] == rarest > 0]


@dataclass(frozen=True)
class QueryResult:
    """What ``muse search`` shows: how a query was understood, and its hits."""

    query: str
    mode: str  # card: a card's name and aliases | text: free text
    terms: tuple[str, ...]  # the names searched (card mode) or the query (text mode)
    max_chapter: int
    index_version: str
    hits: list[Hit]


def search_query(
    conn: Connection, work_id: int, query: str, *, max_chapter: int, limit: int = 10
) -> QueryResult:
    """A query as an author types it: the name or alias of a confirmed card searches the card's
    name and every alias known by ``max_chapter``; anything else is free text."""
    terms = _card_terms(conn, work_id, query.strip(), max_chapter)
    if terms:
        hits = search(conn, work_id, terms, max_chapter=max_chapter, limit=limit)
    else:
        hits = search_text(conn, work_id, query, max_chapter=max_chapter, limit=limit)
    return QueryResult(
        query=query,
        mode="card" if terms else "text",
        terms=tuple(terms or (query,)),
        max_chapter=max_chapter,
        index_version=built_version(conn, work_id) or "",
        hits=hits,
    )


def _card_terms(conn: Connection, work_id: int, name: str, as_of: int) -> list[str]:
    """Adapter over the knowledge domain: the card's name and its aliases known by ``as_of``
    (an alias first used later is future knowledge: principle 4). Empty when no card has the
    name; a name two cards share is searched as itself."""
    from muse.knowledge import find_card

    if not name or name.startswith("card_"):
        return []
    try:
        card = find_card(conn, work_id, name)
    except NotFound:
        return []
    except InvalidInput:
        return [name]
    known = [a.name for a in card.aliases if a.since_chapter is None or a.since_chapter <= as_of]
    return list(dict.fromkeys([card.name, *known]))


def _checked(
    conn: Connection, work_id: int, max_chapter: int, limit: int, known: Tokenizer | None = None
) -> Tokenizer:
    if isinstance(max_chapter, bool) or not isinstance(max_chapter, int) or max_chapter < 0:
        raise InvalidInput(f"检索的章号上限必须是非负整数，收到 {max_chapter!r}。")
    if limit < 1:
        raise InvalidInput(f"检索条数必须至少为 1，收到 {limit}。")
    tokenizer = known if known is not None else built_tokenizer(conn, work_id)
    if tokenizer is None:
        raise NotFound(
            f"作品 {work_id} 还没有检索索引。", hint=f"运行 muse index rebuild --work {work_id}。"
        )
    return tokenizer


def _hits(
    conn: Connection, work_id: int, phrases: Sequence[Phrase], max_chapter: int, limit: int
) -> list[Hit]:
    hits = [
        Hit(
            chunk_id=f"{work_id}:{m.chapter}:{m.start}",
            chapter=m.chapter,
            revision=m.revision,
            start=m.start,
            end=m.end,
            score=m.score,
            sha256=m.sha256,
            text=m.text,
        )
        for m in match_chunks(conn, work_id, phrases, max_chapter=max_chapter, limit=limit)
    ]
    leaked = sorted({h.chapter for h in hits if h.chapter > max_chapter})
    if leaked:  # principle 4: tested, and checked here once more
        raise ContractViolation(
            f"检索结果越过冻结点第 {max_chapter} 章：第 {leaked} 章，结果已丢弃。"
        )
    return sorted(hits, key=Hit.sort_key)
