"""The one backend-specific step of a search: match phrases, score, order, cut to ``limit``.

Both backends receive the same phrases built from the same Python tokens, so the *set* of
matching chunks is the same on both (tested). The score is the backend's own: SQLite FTS5
``-bm25()`` (higher is better), PostgreSQL ``ts_rank(search_vector, query, 1)`` (divided by
1 + log of the chunk's length). Scores are rounded to 9 significant digits, and ties are broken
by the spec's fixed rule (spec 000 §5.1 tieBreak): score DESC, sourceVersion (chapter revision)
ASC, sourceId (chapter) ASC, offset ASC. The database only ranks ids by score (a join per match
would triple the cost); the rows of the best ones, every chunk tied with the last of them
included, are then read and ordered here.

**The ranking is bounded** (:data:`RANK_WINDOW`): only the latest ``RANK_WINDOW`` matches before
the freeze point, in chunk id order (chapter, then position), are scored. Scoring is the cost of
a query, and a protagonist's name matches most chunks of a long book: unbounded, a query at
chapter 2,000 scored 13,000 chunks. A phrase with fewer matches is ranked over all of them, as
before; a common one is ranked over its most recent mentions. The window is the same set on both
backends (same tokens, same ids), so both still choose among the same chunks.

bm25's inverse document frequency is computed over the whole FTS table, so on SQLite the scores
of one work also depend on other works and on chapters after the freeze point. No text of theirs
can be returned (the id range excludes them), but the order of hits can shift when they change;
ts_rank uses only the chunk itself.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, TextClause, bindparam, select, text

from muse.context.search.tables import search_chunks
from muse.store.prepared import Prepared
from muse.works import prose_slices

CHAPTER_BITS = 20
SEQ_BITS = 20
WORK_SHIFT = CHAPTER_BITS + SEQ_BITS
MAX_WORK_ID = (1 << (63 - WORK_SHIFT)) - 1
MAX_CHAPTER = (1 << CHAPTER_BITS) - 1
MAX_SEQ = (1 << SEQ_BITS) - 1

Phrase = tuple[str, ...]  # tokens that must appear consecutively

# At most this many matches are scored per query: the latest ones before the freeze point. A
# protagonist's name is in most of a 2,000-chapter book's 15,000 chunks; scoring all of them was
# the whole cost of a query (bm25 ~0.5 µs, ts_rank with its detoasted vector ~3 µs per match).
# Part of RANKER_VERSION: changing it changes which chunks a query can return.
RANK_WINDOW = 1000
RANKER_VERSION = "r2"  # r1: every match scored; r2: the latest RANK_WINDOW, rarest words first


@dataclass(frozen=True)
class MatchedChunk:
    chapter: int
    revision: int
    start: int
    end: int
    sha256: str
    text: str
    score: float


def chunk_row_id(work_id: int, chapter: int, seq: int) -> int:
    """The row id of a chunk: ``work_id << 40 | chapter << 20 | seq``."""
    if not (0 <= work_id <= MAX_WORK_ID and 0 <= chapter <= MAX_CHAPTER and 0 <= seq <= MAX_SEQ):
        raise ValueError(f"chunk id out of range: work {work_id}, chapter {chapter}, seq {seq}")
    return work_id << WORK_SHIFT | chapter << SEQ_BITS | seq


def chapter_id_range(work_id: int, first: int, last: int) -> tuple[int, int]:
    """Inclusive row id range of every chunk of chapters ``first..last`` of a work."""
    last = min(last, MAX_CHAPTER)
    return chunk_row_id(work_id, first, 0), chunk_row_id(work_id, last, MAX_SEQ)


def fts5_query(phrases: Sequence[Phrase]) -> str:
    """``"萧炎" OR "林 远"``: tokens hold no quote (index_tokenizer's alphabet)."""
    return " OR ".join('"' + " ".join(p) + '"' for p in phrases)


def tsquery(phrases: Sequence[Phrase]) -> str:
    """``'萧炎' | ('林' <-> '远')``, cast (not parsed) to tsquery: lexemes as stored."""
    return " | ".join("(" + " <-> ".join(f"'{t}'" for t in p) + ")" for p in phrases)


# Phase 1, per backend: ids and raw scores of the best matches, best first. Only the full-text
# table is touched (joining the wide chunk rows for every match cost SQLite three times more).
# The inner query is the rank window: the latest ``:window`` matches in id (chapter, position)
# order; only those rows are scored. FTS5 walks its doclists backwards and stops. PostgreSQL,
# with statistics, reads the primary key backwards for a common word (stopping after the window)
# and goes through the GIN index for a rare one; never a sequential scan (_no_sequential_scan).
# Forcing the GIN index for every word (as the counts do) measured 2-4 times slower here: it
# sorts every match, with its vector pointer, to keep the newest.
_RANKED = {
    "sqlite": text(
        """
        SELECT id, score FROM (
            SELECT rowid AS id, -bm25(search_chunks_fts) AS score
            FROM search_chunks_fts
            WHERE search_chunks_fts MATCH :query AND rowid BETWEEN :low AND :high
            ORDER BY rowid DESC
            LIMIT :window
        )
        ORDER BY score DESC, id
        LIMIT :limit
        """
    ),
    "postgresql": text(
        """
        SELECT w.id, ts_rank(w.search_vector, q.query, 1)::float8 AS score
        FROM (
            SELECT c.id, c.search_vector
            FROM search_chunks c
            WHERE c.search_vector @@ CAST(:query AS tsquery) AND c.id BETWEEN :low AND :high
            ORDER BY c.id DESC
            LIMIT :window
        ) AS w, CAST(:query AS tsquery) AS q(query)
        ORDER BY score DESC, w.id
        LIMIT :limit
        """
    ),
}


_COUNT = {
    "sqlite": text(
        "SELECT count(*) FROM search_chunks_fts"
        " WHERE search_chunks_fts MATCH :query AND rowid BETWEEN :low AND :high"
    ),
    # ``id + 0``: the range is a plain filter on the rows the GIN index found (see
    # _no_sequential_scan), never a reason to visit every row of the range and test its vector
    # (the planner's choice when it may use the primary key for the range). The GIN index spans
    # every work: other works' matches are visited (their vectors are not read) and filtered out.
    "postgresql": text(
        "SELECT count(*) FROM search_chunks"
        " WHERE search_vector @@ CAST(:query AS tsquery) AND id + 0 BETWEEN :low AND :high"
    ),
}


# Registered (store.prepared), so that a warmed engine has them compiled; run as they are.
for _texts, _keys in (
    (_RANKED, ("high", "limit", "low", "query", "window")),
    (_COUNT, ("high", "low", "query")),
):
    for _text in _texts.values():
        Prepared(_text, keys=_keys)

_CHUNKS = Prepared(
    select(
        search_chunks.c.id,
        search_chunks.c.chapter,
        search_chunks.c.revision,
        search_chunks.c.start_offset,
        search_chunks.c.end_offset,
        search_chunks.c.sha256,
    ).where(
        search_chunks.c.id.in_(bindparam("ids", expanding=True)),
        search_chunks.c.work_id == bindparam("work_id"),
        search_chunks.c.chapter <= bindparam("max_chapter"),
    )
)


def count_each(
    conn: Connection, work_id: int, phrases: Sequence[Phrase], *, max_chapter: int
) -> list[int]:
    """How many chunks of chapters ``<= max_chapter`` hold each phrase, in order."""
    live = [p for p in phrases if p]
    if not live or max_chapter < 0:
        return [0] * len(phrases)
    low, high = chapter_id_range(work_id, 0, max_chapter)
    dialect = conn.dialect.name
    with _no_sequential_scan(conn):
        counts = {
            p: int(
                conn.execute(
                    _COUNT[dialect],
                    {
                        "query": fts5_query([p]) if dialect == "sqlite" else tsquery([p]),
                        "low": low,
                        "high": high,
                    },
                ).scalar_one()
            )
            for p in dict.fromkeys(live)
        }
    return [counts.get(p, 0) for p in phrases]


@contextmanager
def _no_sequential_scan(conn: Connection) -> Iterator[None]:
    """PostgreSQL: no sequential scan for the search statements run inside, and only for them.

    With statistics, the planner matches a word in most chunks by a sequential scan, which
    detoasts and tests every row's tsvector (~35 ms for 15,000 chunks, the 147 ms p95 of issue
    #4); the GIN index finds the same rows without reading a single vector (a count: ~5 ms), and
    the rank window reads the newest ids backwards and stops. The planner does not price the
    detoasting, so it is told; the setting is restored before any other statement runs. (When a
    statement inside fails, the transaction is aborted and its rollback restores the setting.)
    """
    if conn.dialect.name != "postgresql":
        yield
        return
    previous = conn.execute(
        text("SELECT current_setting('enable_seqscan'), set_config('enable_seqscan', 'off', true)")
    ).scalar_one()
    yield
    conn.execute(text("SELECT set_config('enable_seqscan', :v, true)"), {"v": previous})


def rounded(score: float) -> float:
    """9 significant digits: equal scores stay equal across platforms and library versions."""
    return float(f"{score:.9g}")


def _ranked(
    conn: Connection, statement: TextClause, params: dict[str, Any], limit: int
) -> list[tuple[int, float]]:
    """The ``limit`` best (id, rounded score), plus every match tied with the last of them, so
    that the tie-break, not the database, decides which tied chunks make the cut."""
    fetch = 4 * limit + 1  # one bounded sort costs the same for 11 rows or 41; a re-query doubles
    while True:
        rows = [(r[0], rounded(r[1])) for r in conn.execute(statement, {**params, "limit": fetch})]
        if len(rows) < fetch or rows[-1][1] != rows[limit - 1][1]:
            break
        fetch *= 4
    cut = rows[limit - 1][1] if len(rows) >= limit else float("-inf")
    return [(i, score) for i, score in rows if score >= cut]


def rank_window(limit: int) -> int:
    """How many of the latest matches a query with this ``limit`` ranks."""
    return max(RANK_WINDOW, limit)


def match_chunks(
    conn: Connection, work_id: int, phrases: Sequence[Phrase], *, max_chapter: int, limit: int
) -> list[MatchedChunk]:
    """The best ``limit`` of the latest :func:`rank_window` chunks of chapters ``<= max_chapter``
    matching any phrase, best first."""
    phrases = [p for p in phrases if p]
    if not phrases or max_chapter < 0 or limit <= 0:
        return []
    low, high = chapter_id_range(work_id, 0, max_chapter)
    dialect = conn.dialect.name
    query = fts5_query(phrases) if dialect == "sqlite" else tsquery(phrases)
    params = {"query": query, "low": low, "high": high, "window": rank_window(limit)}
    with _no_sequential_scan(conn):
        scores = dict(_ranked(conn, _RANKED[dialect], params, limit))
    if not scores:
        return []
    rows = _CHUNKS.run(conn, ids=list(scores), work_id=work_id, max_chapter=max_chapter).all()
    # A chunk stores offsets, not text (migration 0018): cut it from its revision's prose.
    texts = prose_slices(conn, work_id, [(r[1], r[2], r[3], r[4]) for r in rows])
    found = [
        MatchedChunk(r[1], r[2], r[3], r[4], r[5], t, scores[r[0]])
        for r, t in zip(rows, texts, strict=True)
        if t is not None  # the revision is gone with its chapter: nothing to point to
    ]
    found.sort(key=lambda m: (-m.score, m.revision, m.chapter, m.start))
    return found[:limit]
