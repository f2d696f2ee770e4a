"""Bounded ranking of the prose search index: the rank window, rarest words first, query plans.

A query scores at most the latest ``RANK_WINDOW`` matching chunks before the freeze point, and
free text keeps its rarest words first. Expectations are computed in Python from the fixture
text and the tokenizer, so the SQLite and PostgreSQL runs check the same sets. The window is
made small here (monkeypatched) so that a twelve-chapter book exercises it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest
from sqlalchemy import Connection, text

from muse.context.search import backend as index_backend
from muse.context.search import index as si
from muse.context.search.backend import RANKER_VERSION, chunk_row_id, count_each, match_chunks
from muse.context.search.builder import INDEX_FORMAT, version_for
from muse.context.search.chunker import chunk_chapter
from muse.context.search.tables import search_chunks
from muse.context.search.tokenizer import Tokenizer
from muse.knowledge.cards import insert_card
from muse.knowledge.contracts import CardSpec, CardStatus
from muse.works.canonical import add_chapter
from muse.works.catalog import create_work

CHAPTERS = 12
_POOL = [
    "山风吹过松林，发出沙沙的声响。",
    "远处传来钟声，一声接着一声。",
    "石阶上满是露水，脚下有些打滑。",
    "灯火摇曳，把两人的影子拉得很长。",
    "雨点打在屋檐上，溅起细碎的水花。",
    "街上人来人往，叫卖声此起彼伏。",
    "夜色渐深，院子里只剩下虫鸣。",
    "晨雾还没有散去，山路若隐若现。",
]


def paragraph(n: int, seq: int) -> str:
    """About 250 Han: two of them never share a chunk (MAX_HAN 400)."""
    opening = "林远" + ("摸出那块玉佩，" if (n, seq) == (1, 0) else "站在窗前，")
    if n > CHAPTERS // 2:
        opening += "手里握着长剑，"
    body = "".join(_POOL[(n * 3 + seq * 5 + k) % len(_POOL)] for k in range(18))
    return "\u3000\u3000" + opening + body[:240]


def chapter_text(n: int) -> str:
    return "\n".join(paragraph(n, seq) for seq in range(2)) + "\n"


@pytest.fixture
def book(engine) -> int:
    """Twelve chapters of two chunks, 林远 in every chunk (a confirmed card: one token), 玉佩
    in the first chunk only, 长剑 in every chunk of the second half."""
    spec = CardSpec.model_validate(
        {
            "type": "character",
            "name": "林远",
            "fields": {
                "summary": {"value": "少年"},
                "identity": {"value": "弟子"},
                "personality": {"value": "坚韧"},
            },
        }
    )
    with engine.begin() as conn:
        work_id = create_work(conn, "青云之书")
        for n in range(1, CHAPTERS + 1):
            add_chapter(conn, work_id, n, f"第{n}章", chapter_text(n))
        insert_card(conn, work_id, spec, CardStatus.confirmed)
        si.rebuild_index(conn, work_id)
    return work_id


def matching(word: str, max_chapter: int) -> list[tuple[int, int]]:
    """(chapter, start) of every chunk holding ``word`` up to the freeze point, in id order."""
    tokenizer = Tokenizer(["林远"])
    return [
        (n, chunk.start)
        for n in range(1, max_chapter + 1)
        for chunk in chunk_chapter(chapter_text(n))
        if word in tokenizer.tokens(chunk.text)
    ]


def spots(hits) -> set[tuple[int, int]]:
    return {(h.chapter, h.start) for h in hits}


def test_the_fixture_has_the_shape_the_tests_rely_on(engine, book):
    assert len(matching("林远", CHAPTERS)) == 2 * CHAPTERS
    assert matching("玉佩", CHAPTERS) == [(1, 2)]
    assert len(matching("长剑", CHAPTERS)) == CHAPTERS


@pytest.mark.parametrize("max_chapter", [1, 2, 5, CHAPTERS, CHAPTERS + 4])
def test_a_common_name_is_ranked_over_its_latest_matches_only(
    engine, book, monkeypatch, max_chapter
):
    monkeypatch.setattr(index_backend, "RANK_WINDOW", 5)
    latest = matching("林远", min(max_chapter, CHAPTERS))[-5:]
    with engine.connect() as conn:
        top = si.search(conn, book, ["林远"], max_chapter=max_chapter, limit=2)
        window = si.search(conn, book, ["林远"], max_chapter=max_chapter, limit=5)
    assert spots(window) == set(latest)
    assert spots(top) <= set(latest) and len(top) == min(2, len(latest))
    assert all(h.chapter <= max_chapter for h in window)


def test_a_limit_larger_than_the_window_widens_it(engine, book, monkeypatch):
    monkeypatch.setattr(index_backend, "RANK_WINDOW", 5)
    with engine.connect() as conn:
        hits = si.search(conn, book, ["林远"], max_chapter=CHAPTERS, limit=30)
    assert spots(hits) == set(matching("林远", CHAPTERS))


def test_free_text_keeps_the_rare_word_an_old_chunk_holds(engine, book, monkeypatch):
    """OR-ing 长剑 in would fill a window of 4 with chapters 11 and 12; 玉佩 is in chapter 1."""
    monkeypatch.setattr(index_backend, "RANK_WINDOW", 4)
    with engine.connect() as conn:
        narrow = si.search_text(conn, book, "玉佩 长剑", max_chapter=CHAPTERS, limit=3)
        monkeypatch.setattr(index_backend, "RANK_WINDOW", 1000)
        wide = si.search_text(conn, book, "玉佩 长剑", max_chapter=CHAPTERS, limit=50)
    assert spots(narrow) == {(1, 2)}
    assert "玉佩" in narrow[0].text
    assert spots(wide) == set(matching("玉佩", CHAPTERS) + matching("长剑", CHAPTERS))


@dataclass(frozen=True)
class Rarest:
    tokens: tuple[str, ...]
    counts: dict[str, int]
    window: int
    kept: list[str]


RAREST = [
    Rarest(("a", "b", "c"), {"a": 5, "b": 1, "c": 3}, 10, ["a", "b", "c"]),  # all fit
    Rarest(("a", "b", "c"), {"a": 5, "b": 1, "c": 3}, 4, ["b", "c"]),  # query order kept
    Rarest(("a", "b", "c"), {"a": 5, "b": 1, "c": 3}, 3, ["b"]),
    Rarest(("a", "b"), {"a": 50, "b": 40}, 10, ["b"]),  # the rarest one even over the window
    Rarest(("a", "b"), {"a": 7, "b": 7}, 10, ["a"]),  # equal counts: query order decides
    Rarest(("a",), {"a": 0}, 10, ["a"]),
]


@pytest.mark.parametrize("case", RAREST)
def test_rarest_first_fills_the_window_with_the_rarest_words(case):
    assert si.rarest_first(case.tokens, case.counts, case.window) == case.kept


def test_the_ranking_is_part_of_the_index_version():
    assert INDEX_FORMAT.endswith(f".{RANKER_VERSION}")
    assert version_for(Tokenizer(["林远"])).startswith(INDEX_FORMAT + "+")


# --- PostgreSQL: the GIN index does the matching -----------------------------------------------


def _fill(conn: Connection, rows: int) -> int:
    """A work with ``rows`` chunks: 林远 in nine of ten, 玉佩 in ten of them; then ANALYZE, so
    that the planner sees a word in most rows (what made it choose a sequential scan)."""
    work_id = create_work(conn, "统计之书")
    filler = " ".join(f"词{i % 97}" for i in range(200))
    for n in range(1, rows // 10 + 1):  # the prose the chunks point into (no text in a chunk)
        add_chapter(conn, work_id, n, f"第{n}章", "林远" * 5)
    conn.execute(
        search_chunks.insert(),
        [
            {
                "id": chunk_row_id(work_id, 1 + i // 10, i % 10),
                "work_id": work_id,
                "chapter": 1 + i // 10,
                "seq": i % 10,
                "revision": 1,
                "start_offset": 0,
                "end_offset": 10,
                "han_count": 10,
                "sha256": "0" * 64,
                "tokens": ("林远 " if i % 10 else "") + ("玉佩 " if i % 300 == 0 else "") + filler,
            }
            for i in range(rows)
        ],
    )
    conn.execute(text("ANALYZE search_chunks"))
    return work_id


def _plan(conn: Connection, statement, params: dict) -> str:
    explain = text("EXPLAIN " + str(statement))
    return "\n".join(r[0] for r in conn.execute(explain, params))


def test_postgresql_counts_and_ranks_through_the_gin_index(engine):
    if engine.dialect.name != "postgresql":
        pytest.skip("a PostgreSQL query plan")
    with engine.begin() as conn:
        work_id = _fill(conn, 3000)
        low, high = index_backend.chapter_id_range(work_id, 0, 300)
        for word in ("林远", "玉佩"):
            params = {"query": f"('{word}')", "low": low, "high": high}
            with index_backend._no_sequential_scan(conn):
                counted = _plan(conn, index_backend._COUNT["postgresql"], params)
                ranked = _plan(
                    conn,
                    index_backend._RANKED["postgresql"],
                    {**params, "window": 1000, "limit": 41},
                )
            assert "Bitmap Index Scan on ix_search_chunks_search_vector" in counted
            assert "Index Scan using" not in counted  # the id range: a filter, not a scan
            assert "Seq Scan" not in counted and "Seq Scan" not in ranked
        assert conn.execute(text("SHOW enable_seqscan")).scalar_one() == "on"
        assert count_each(conn, work_id, [("林远",), ("玉佩",)], max_chapter=300) == [2700, 10]
        assert conn.execute(text("SHOW enable_seqscan")).scalar_one() == "on"
        hits = match_chunks(conn, work_id, [("玉佩",)], max_chapter=300, limit=20)
        assert [(h.chapter, h.start) for h in hits] == [
            (1 + i // 10, 0) for i in range(0, 3000, 300)
        ]
        assert conn.execute(text("SHOW enable_seqscan")).scalar_one() == "on"


@pytest.mark.fresh_schema  # measures the heap: no pages left by earlier tests' rows
def test_postgresql_keeps_wide_chunk_values_out_of_the_heap(engine):
    """Migration 0016: heap rows hold no text, tokens or vector, so a search that visits the
    rows of most chunks reads few pages (the default layout kept ~1-2 kB of each row inline)."""
    if engine.dialect.name != "postgresql":
        pytest.skip("a PostgreSQL storage parameter")
    rng = random.Random(16)
    rows = 400
    with engine.begin() as conn:
        work_id = create_work(conn, "宽行之书")
        words = [
            [
                chr(rng.randrange(0x4E00, 0x9FA5)) + chr(rng.randrange(0x4E00, 0x9FA5))
                for _ in range(150)
            ]
            for _ in range(rows)
        ]
        for i in range(rows):  # the prose the chunks point into
            add_chapter(conn, work_id, 1 + i, f"第{1 + i}章", "".join(words[i]))
        conn.execute(
            search_chunks.insert(),
            [
                {
                    "id": chunk_row_id(work_id, 1 + i, 0),
                    "work_id": work_id,
                    "chapter": 1 + i,
                    "seq": 0,
                    "revision": 1,
                    "start_offset": 0,
                    "end_offset": 300,
                    "han_count": 300,
                    "sha256": "0" * 64,
                    "tokens": " ".join(words[i]),
                }
                for i in range(rows)
            ],
        )
        heap = conn.execute(text("SELECT pg_relation_size('search_chunks')")).scalar_one()
        options = conn.execute(
            text("SELECT reloptions FROM pg_class WHERE oid = 'search_chunks'::regclass")
        ).scalar_one()
        assert "toast_tuple_target=128" in options
        assert heap / rows < 400  # bytes of heap per chunk; ~2,000 without the parameter
        found = match_chunks(conn, work_id, [(words[7][3],)], max_chapter=rows, limit=1)
        assert found and found[0].chapter == 8 and found[0].text == "".join(words[7])
