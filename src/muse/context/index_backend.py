"""The one backend-specific step of a search: match phrases, score, order, cut to ``limit``.

Both backends receive the same phrases built from the same Python tokens, so the *set* of
matching chunks is the same on both (tested). The score is the backend's own: SQLite FTS5
``-bm25()`` (higher is better), PostgreSQL ``ts_rank(search_vector, query, 1)`` (divided by
1 + log of the chunk's length). Scores are rounded to 9 significant digits, and ties are broken
by the spec's fixed rule (spec 000 §5.1 tieBreak): score DESC, sourceVersion (chapter revision)
ASC, sourceId (chapter) ASC, offset ASC. The database only ranks ids by score (FTS5 computing
bm25 for every match is the cost of a query; a join per match would triple it); the rows of the
best ones, every chunk tied with the last of them included, are then read and ordered here.

bm25's inverse document frequency is computed over the whole FTS table, so on SQLite the scores
of one work also depend on other works and on chapters after the freeze point. No text of theirs
can be returned (the id range excludes them), but the order of hits can shift when they change;
ts_rank uses only the chunk itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import Connection, select, text

from muse.context.index_tables import search_chunks

CHAPTER_BITS = 20
SEQ_BITS = 20
WORK_SHIFT = CHAPTER_BITS + SEQ_BITS
MAX_WORK_ID = (1 << (63 - WORK_SHIFT)) - 1
MAX_CHAPTER = (1 << CHAPTER_BITS) - 1
MAX_SEQ = (1 << SEQ_BITS) - 1

Phrase = tuple[str, ...]  # tokens that must appear consecutively


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
_RANKED = {
    "sqlite": text(
        """
        SELECT rowid, -bm25(search_chunks_fts) AS score
        FROM search_chunks_fts
        WHERE search_chunks_fts MATCH :query AND rowid BETWEEN :low AND :high
        ORDER BY score DESC, rowid
        LIMIT :limit
        """
    ),
    "postgresql": text(
        """
        SELECT c.id, ts_rank(c.search_vector, q.query, 1)::float8 AS score
        FROM search_chunks c, CAST(:query AS tsquery) AS q(query)
        WHERE c.search_vector @@ q.query AND c.id BETWEEN :low AND :high
        ORDER BY score DESC, c.id
        LIMIT :limit
        """
    ),
}


_COUNT = {
    "sqlite": text(
        "SELECT count(*) FROM search_chunks_fts"
        " WHERE search_chunks_fts MATCH :query AND rowid BETWEEN :low AND :high"
    ),
    "postgresql": text(
        "SELECT count(*) FROM search_chunks"
        " WHERE search_vector @@ CAST(:query AS tsquery) AND id BETWEEN :low AND :high"
    ),
}


def count_matches(conn: Connection, work_id: int, phrase: Phrase, *, max_chapter: int) -> int:
    """How many chunks of chapters ``<= max_chapter`` hold ``phrase`` (cheap: no scoring)."""
    if not phrase or max_chapter < 0:
        return 0
    low, high = chapter_id_range(work_id, 0, max_chapter)
    dialect = conn.dialect.name
    query = fts5_query([phrase]) if dialect == "sqlite" else tsquery([phrase])
    return int(
        conn.execute(_COUNT[dialect], {"query": query, "low": low, "high": high}).scalar_one()
    )


def rounded(score: float) -> float:
    """9 significant digits: equal scores stay equal across platforms and library versions."""
    return float(f"{score:.9g}")


def _ranked(conn: Connection, statement, params: dict, limit: int) -> list[tuple[int, float]]:
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


def match_chunks(
    conn: Connection, work_id: int, phrases: Sequence[Phrase], *, max_chapter: int, limit: int
) -> list[MatchedChunk]:
    """Chunks of chapters ``<= max_chapter`` matching any phrase, best first, at most ``limit``."""
    phrases = [p for p in phrases if p]
    if not phrases or max_chapter < 0 or limit <= 0:
        return []
    low, high = chapter_id_range(work_id, 0, max_chapter)
    dialect = conn.dialect.name
    query = fts5_query(phrases) if dialect == "sqlite" else tsquery(phrases)
    params = {"query": query, "low": low, "high": high}
    scores = dict(_ranked(conn, _RANKED[dialect], params, limit))
    if not scores:
        return []
    rows = conn.execute(
        select(
            search_chunks.c.id,
            search_chunks.c.chapter,
            search_chunks.c.revision,
            search_chunks.c.start_offset,
            search_chunks.c.end_offset,
            search_chunks.c.sha256,
            search_chunks.c.text,
        ).where(
            search_chunks.c.id.in_(list(scores)),
            search_chunks.c.work_id == work_id,
            search_chunks.c.chapter <= max_chapter,
        )
    )
    found = [MatchedChunk(r[1], r[2], r[3], r[4], r[5], r[6], scores[r[0]]) for r in rows]
    found.sort(key=lambda m: (-m.score, m.revision, m.chapter, m.start))
    return found[:limit]
