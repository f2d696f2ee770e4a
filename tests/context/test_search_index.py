"""The prose search index: tokens, chunks, search, the freeze point, staleness and versions.

Every expectation is computed in the test from the fixture text and the Python tokenizer, never
read from the backend, so the SQLite run and the PostgreSQL run check the same sets.
"""

from __future__ import annotations

import pytest
import regex
import typer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select, text
from typer.testing import CliRunner

from muse.cli import index as index_cli
from muse.cli.common import get_engine
from muse.context.search import index as si
from muse.context.search.builder import version_for
from muse.context.search.chunker import HUGE_HAN, MAX_HAN, chunk_chapter
from muse.context.search.tables import search_chunks, search_index_chapters
from muse.context.search.tokenizer import CJK_RANGES, Tokenizer
from muse.core.canonical import sha256_hex
from muse.core.errors import InvalidInput, NotFound
from muse.core.text import count_han
from muse.knowledge.cards import find_card, insert_card, rewrite_card, spec_of
from muse.knowledge.contracts import CardSpec, CardStatus
from muse.works.canonical import add_chapter, write_revision
from muse.works.catalog import create_work

CHAPTERS = 6
DICTIONARY = ["炎帝", "萧炎"]  # the confirmed card 萧炎 and its alias
SAFE_TOKEN = regex.compile(
    r"[a-z]+|[0-9]+|[\u3005\u3007[[\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}]&&\p{Lo}]]+",
    regex.V1,
)
_POOL = [
    "山风吹过松林，发出沙沙的声响。",
    "远处传来钟声，一声接着一声。",
    "石阶上满是露水，脚下有些打滑。",
    "灯火摇曳，把两人的影子拉得很长。",
    "雨点打在屋檐上，溅起细碎的水花。",
    "街上人来人往，叫卖声此起彼伏。",
    "他握紧了手中的长剑，沉默了片刻。",
    "夜色渐深，院子里只剩下虫鸣。",
    "她轻轻叹了口气，转身走向门外。",
    "晨雾还没有散去，山路若隐若现。",
]
MIXED = "路边木牌写着：ＡＢＣ abc-def 3.14 二〇二四年 人々 ありがとう 한국어 ①② αβγ ᦰ é ﬁ ⺀。"


def marker(n: int) -> str:
    return f"MK{n:03d}"


def filler(n: int, i: int, sentences: int = 7) -> str:
    return "".join(_POOL[(n * 7 + i * 3 + k) % len(_POOL)] for k in range(sentences))


def chapter_text(n: int) -> str:
    paragraphs = [f"萧炎在第{n}章醒来，{marker(n)}写在他的掌心。" + filler(n, 0)]
    if n % 2 == 0:
        paragraphs.append("众人高呼炎帝之名，" + filler(n, 1))
    if n % 3 == 0:
        paragraphs.append("徐凤年骑马而来，" + filler(n, 2))
    if n == 5:
        paragraphs.append(MIXED)
    paragraphs += [filler(n, i) for i in range(3, 9)]
    return "\n".join("\u3000\u3000" + p for p in paragraphs) + "\n"


def character(name: str, *aliases: str) -> CardSpec:
    return CardSpec.model_validate(
        {
            "type": "character",
            "name": name,
            "aliases": [{"name": a} for a in aliases],
            "fields": {
                "summary": {"value": "少年"},
                "identity": {"value": "弟子"},
                "personality": {"value": "坚韧"},
            },
        }
    )


@pytest.fixture
def book(engine) -> int:
    """Six chapters, the card 萧炎 (alias 炎帝) confirmed, the index built; committed."""
    with engine.begin() as conn:
        work_id = create_work(conn, "斗破之书")
        for n in range(1, CHAPTERS + 1):
            add_chapter(conn, work_id, n, f"第{n}章", chapter_text(n))
        insert_card(conn, work_id, character("萧炎", "炎帝"), CardStatus.confirmed)
        si.rebuild_index(conn, work_id)
    return work_id


def expected(terms=None, *, query=None, max_chapter=CHAPTERS, texts=None):
    """(chapter, start) of every chunk the index must return, computed in Python."""
    tokenizer = Tokenizer(DICTIONARY)
    texts = texts or {n: chapter_text(n) for n in range(1, CHAPTERS + 1)}
    chunks = {
        (n, chunk.start): tokenizer.tokens(chunk.text)
        for n, body in texts.items()
        if n <= max_chapter
        for chunk in chunk_chapter(body)
    }
    if query is not None:
        phrases = [(t,) for t in informative(tokenizer.query_tokens(query), chunks.values())]
    else:
        phrases = [tokenizer.term_phrase(t) for t in terms]
    return {
        spot for spot, tokens in chunks.items() if any(_contains(tokens, p) for p in phrases if p)
    }


def informative(tokens, chunk_tokens) -> list[str]:
    """The rule of search_index.informative_tokens, restated: words in more than half of the
    chunks up to the freeze point are dropped, unless all are; then the rarest stay."""
    chunk_sets = [set(t) for t in chunk_tokens]
    if len(tokens) < 2:
        return list(tokens)
    counts = {t: sum(t in s for s in chunk_sets) for t in tokens}
    kept = [t for t in tokens if 0 < counts[t] <= len(chunk_sets) / 2]
    rarest = min([c for c in counts.values() if c > 0], default=0)
    return kept or [t for t in tokens if counts[t] == rarest > 0]


def _contains(tokens: list[str], phrase: tuple[str, ...]) -> bool:
    width = len(phrase)
    return any(tuple(tokens[i : i + width]) == phrase for i in range(len(tokens) - width + 1))


def spots(hits) -> set[tuple[int, int]]:
    return {(h.chapter, h.start) for h in hits}


# --- tokenizer --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "sentence"),
    [
        ("萧炎", "萧炎踏入迦南学院，药老在戒指里叹气。"),
        ("徐凤年", "徐凤年骑马出了北凉王府。"),
        ("韩立", "韩立盘膝而坐，石昊跃上山巅。"),
    ],
)
def test_coined_names_stay_whole_only_when_in_the_dictionary(name, sentence):
    assert name in Tokenizer([name]).tokens(sentence)
    plain = Tokenizer().tokens(sentence)
    assert name not in plain
    assert "".join(plain).startswith(name)  # split into pieces, nothing lost


def test_dictionary_terms_win_inside_longer_words_and_queries_use_them():
    tokenizer = Tokenizer(["天宫"])
    assert tokenizer.tokens("大闹天宫") == ["大", "闹", "天宫"]  # jieba alone: 大闹天宫
    assert tokenizer.term_phrase("天宫") == ("天宫",)
    assert Tokenizer().term_phrase("徐凤年") == ("徐", "凤", "年")


def test_tokens_are_folded_and_use_only_characters_both_backends_keep_whole():
    tokens = Tokenizer().tokens(MIXED)
    assert {"abc", "def", "3", "14", "〇", "々"} <= set(tokens)
    assert tokens.count("abc") == 2  # ＡＢＣ folds to abc
    assert not {"①", "②", "αβγ", "ᦰ", "⺀", "é"} & set(tokens)
    assert all(SAFE_TOKEN.fullmatch(t) for t in tokens)


def test_free_text_queries_drop_single_characters_unless_they_are_all_there_is():
    tokenizer = Tokenizer(DICTIONARY + ["猴"])
    assert tokenizer.query_tokens("萧炎在山门前的石阶上") == ("萧炎", "门前", "石阶")
    assert tokenizer.query_tokens("猴在山上") == ("猴", "山上")
    assert tokenizer.query_tokens("在了") == ("在", "了")


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from("萧炎山门前石阶上 \nＡａb1２。，“”々〇ᦰé⺀①"), max_size=60))
def test_tokens_are_deterministic_and_safe_for_any_text(sample):
    tokenizer = Tokenizer(DICTIONARY)
    tokens = tokenizer.tokens(sample)
    assert tokens == Tokenizer(DICTIONARY).tokens(sample)
    assert all(SAFE_TOKEN.fullmatch(t) for t in tokens)


# --- chunks -----------------------------------------------------------------------------------

_PARAGRAPH = st.lists(
    st.sampled_from(
        _POOL + ["“走吧。”", "……", "abc def", "　　", "萧炎" * 150 + "。" + "炎" * 500]
    ),
    min_size=1,
    max_size=12,
).map("".join)


@settings(max_examples=150, deadline=None)
@given(st.lists(_PARAGRAPH, min_size=1, max_size=15), st.sampled_from(["\n", "\n\n", "\n　　"]))
def test_chunks_slice_back_cover_the_text_and_split_paragraphs_only_when_huge(paragraphs, sep):
    body = sep.join(paragraphs)
    chunks = chunk_chapter(body)
    covered = set()
    for chunk in chunks:
        assert body[chunk.start : chunk.end] == chunk.text
        assert chunk.sha256 == sha256_hex(body[chunk.start : chunk.end])
        assert chunk.han_count == count_han(chunk.text)
        assert max(chunk.han_count, len(chunk.text) // 2) <= HUGE_HAN
        assert not chunk.text[0].isspace() and not chunk.text[-1].isspace()
        covered |= set(range(chunk.start, chunk.end))
    assert [c.seq for c in chunks] == list(range(len(chunks)))
    assert all(a.end <= b.start for a, b in zip(chunks, chunks[1:], strict=False))
    assert {i for i, ch in enumerate(body) if not ch.isspace()} <= covered
    for match in regex.finditer(r"[^\n]*\S[^\n]*", body):
        paragraph = match.group().strip()
        start = match.start() + match.group().index(paragraph)
        cuts = [c for c in chunks if start < c.start < start + len(paragraph)]
        if cuts:  # a chunk starting inside a paragraph: only in a huge one
            assert max(count_han(paragraph), len(paragraph) // 2) > HUGE_HAN


def test_typical_chapters_give_chunks_of_about_two_to_four_hundred_han():
    chunks = chunk_chapter(chapter_text(3) * 3)
    sizes = [c.han_count for c in chunks]
    assert len(chunks) >= 4
    assert all(100 <= s <= HUGE_HAN for s in sizes)
    assert sum(200 <= s <= MAX_HAN for s in sizes) >= len(sizes) - 1


def test_stored_chunks_point_into_the_canonical_text(engine, book):
    with engine.connect() as conn:
        rows = conn.execute(select(search_chunks).order_by(search_chunks.c.id)).all()
    assert {r.chapter for r in rows} == set(range(1, CHAPTERS + 1))
    assert "text" not in search_chunks.c  # offsets into the prose, no second copy (0018)
    for row in rows:
        text = chapter_text(row.chapter)[row.start_offset : row.end_offset]
        assert sha256_hex(text) == row.sha256
        assert row.revision == 1
        assert row.tokens == " ".join(Tokenizer(DICTIONARY).tokens(text))


def test_the_backend_indexes_exactly_the_python_tokens(engine, book):
    """FTS5's unicode61 and PostgreSQL's parser must split only on our spaces."""
    edges = " ".join(chr(a) + chr(b) for a, b in CJK_RANGES)  # every end of the alphabet
    with engine.begin() as conn:
        other = create_work(conn, "字表")
        add_chapter(conn, other, 1, "第1章", f"{edges}\n{MIXED}")
        si.rebuild_index(conn, other)
        stored = {r.id: r.tokens.split() for r in conn.execute(select(search_chunks))}
        seen: dict[int, dict[int, str]] = {i: {} for i in stored}
        if conn.dialect.name == "sqlite":
            conn.exec_driver_sql(
                "CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, search_chunks_fts, instance)"
            )
            for doc, offset, term in conn.exec_driver_sql("SELECT doc, offset, term FROM vocab"):
                seen[doc][offset] = term
        else:
            rows = conn.execute(
                text("SELECT id, lexeme, positions FROM search_chunks, unnest(search_vector)")
            )
            for chunk_id, lexeme, positions in rows:
                for p in positions:
                    seen[chunk_id][p - 1] = lexeme
    assert any("々" in tokens for tokens in stored.values())
    for chunk_id, tokens in stored.items():
        assert [seen[chunk_id][i] for i in sorted(seen[chunk_id])] == tokens


# --- search -----------------------------------------------------------------------------------


def test_search_finds_a_card_by_name_and_by_alias(engine, book):
    with engine.connect() as conn:
        by_name = si.search(conn, book, ["萧炎"], max_chapter=CHAPTERS, limit=100)
        by_alias = si.search(conn, book, ["炎帝"], max_chapter=CHAPTERS, limit=100)
        both = si.search(conn, book, ["萧炎", "炎帝"], max_chapter=CHAPTERS, limit=100)
    assert {h.chapter for h in by_name} == set(range(1, CHAPTERS + 1))
    assert {h.chapter for h in by_alias} == {2, 4, 6}
    assert all("炎帝" in h.text for h in by_alias)
    assert spots(both) == spots(by_name) | spots(by_alias)
    for hit in both:
        assert hit.chunk_id == f"{book}:{hit.chapter}:{hit.start}"
        assert chapter_text(hit.chapter)[hit.start : hit.end] == hit.text
        assert hit.sha256 == sha256_hex(hit.text)


QUERIES = [
    ("terms", ["萧炎"]),
    ("terms", ["炎帝"]),
    ("terms", ["萧炎", "炎帝"]),
    ("terms", ["徐凤年"]),  # not in the dictionary: a phrase of single characters
    ("terms", [marker(4)]),
    ("terms", ["没有这个人"]),
    ("text", "萧炎与徐凤年在石阶上相遇"),  # 石阶 is in every chunk: dropped
    ("text", "钟声"),
    ("text", "钟声 雨点 屋檐"),  # all everywhere: all kept
    ("text", "炎帝之名 萧炎 钟声"),
    ("text", "ＡＢＣ二〇二四年"),
]


@pytest.mark.parametrize(("kind", "query"), QUERIES)
@pytest.mark.parametrize("max_chapter", [0, 3, CHAPTERS])
def test_hit_sets_are_exactly_the_python_expectation(engine, book, kind, query, max_chapter):
    """The same expectation on both backends: both index the same tokens, so both match the
    same chunks (only the score differs)."""
    with engine.connect() as conn:
        if kind == "terms":
            hits = si.search(conn, book, query, max_chapter=max_chapter, limit=500)
            want = expected(query, max_chapter=max_chapter)
        else:
            hits = si.search_text(conn, book, query, max_chapter=max_chapter, limit=500)
            want = expected(query=query, max_chapter=max_chapter)
    assert spots(hits) == want
    assert len(hits) == len(want)


def test_dictionary_names_are_found_wherever_the_text_has_them(engine, book):
    with engine.connect() as conn:
        hits = si.search(conn, book, ["萧炎", "炎帝"], max_chapter=CHAPTERS, limit=500)
    substring = {
        (n, c.start)
        for n in range(1, CHAPTERS + 1)
        for c in chunk_chapter(chapter_text(n))
        if "萧炎" in c.text or "炎帝" in c.text
    }
    assert spots(hits) == substring


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(max_chapter=st.integers(min_value=0, max_value=CHAPTERS + 3), limit=st.integers(1, 30))
def test_nothing_after_the_freeze_point_is_ever_returned(engine, book, max_chapter, limit):
    with engine.connect() as conn:
        everyone = si.search(conn, book, ["萧炎", "炎帝"], max_chapter=max_chapter, limit=limit)
        assert all(h.chapter <= max_chapter for h in everyone)
        assert len(everyone) == min(limit, len(expected(["萧炎", "炎帝"], max_chapter=max_chapter)))
        for n in range(1, CHAPTERS + 1):
            found = si.search(conn, book, [marker(n)], max_chapter=max_chapter)
            free = si.search_text(conn, book, f"{marker(n)} 钟声", max_chapter=max_chapter)
            assert [h.chapter for h in found] == ([n] if n <= max_chapter else [])
            assert all(h.chapter <= max_chapter for h in free)
            assert all(marker(n) not in h.text for h in free if n > max_chapter)


def test_order_is_deterministic_with_the_fixed_tie_break(engine):
    same = "林远拔剑出鞘，剑光如水。" * 20
    with engine.begin() as conn:
        work_id = create_work(conn, "平局之书")
        for n in (1, 2, 3):
            add_chapter(conn, work_id, n, f"第{n}章", same)
        si.rebuild_index(conn, work_id)
        first = si.search_text(conn, work_id, "剑光", max_chapter=3)
        assert [h.chapter for h in first] == [1, 2, 3]  # equal scores: chapter ASC
        assert first == si.search_text(conn, work_id, "剑光", max_chapter=3)
        write_revision(conn, work_id, 1, same, expected_revision=1, origin="edit")
        si.index_chapter(conn, work_id, 1)
        again = si.search_text(conn, work_id, "剑光", max_chapter=3)
    assert [(h.chapter, h.revision) for h in again] == [(2, 1), (3, 1), (1, 2)]  # revision ASC
    assert [h.score for h in again] == [first[0].score] * 3


def test_words_in_most_chunks_are_left_out_of_free_text_queries(engine, book):
    with engine.connect() as conn:
        kept = si.informative_tokens(conn, book, ["萧炎", "石阶", "炎帝", "没有"], CHAPTERS)
        common = si.informative_tokens(conn, book, ["石阶", "钟声", "萧炎"], 1)
        single = si.informative_tokens(conn, book, ["石阶"], CHAPTERS)
    assert kept == ["萧炎", "炎帝"]  # 石阶 and 没有 are in every chunk
    assert common == ["萧炎"]  # chapter 1 alone: 萧炎 is in one of its two chunks
    assert single == ["石阶"]


def test_results_are_ordered_by_score_then_the_tie_break(engine, book):
    with engine.connect() as conn:
        hits = si.search_text(conn, book, "萧炎 钟声 石阶 露水", max_chapter=CHAPTERS, limit=50)
    assert hits == sorted(hits, key=lambda h: (-h.score, h.revision, h.chapter, h.start))
    assert len({h.score for h in hits}) > 1


def test_other_works_are_never_returned(engine, book):
    with engine.begin() as conn:
        other = create_work(conn, "另一本书")
        add_chapter(conn, other, 1, "第1章", chapter_text(1))
        si.rebuild_index(conn, other)
        hits = si.search(conn, book, ["萧炎"], max_chapter=CHAPTERS, limit=100)
        theirs = si.search(conn, other, ["萧炎"], max_chapter=CHAPTERS, limit=100)
    assert all(h.chunk_id.startswith(f"{book}:") for h in hits)
    assert [h.chunk_id for h in theirs] == [f"{other}:1:2"]  # after the indent 「　　」


def test_search_refuses_bad_arguments_and_a_missing_index(engine, book):
    with engine.begin() as conn:
        for bad in (-1, True, "3", None):
            with pytest.raises(InvalidInput):
                si.search(conn, book, ["萧炎"], max_chapter=bad)
        with pytest.raises(InvalidInput):
            si.search(conn, book, ["萧炎"], max_chapter=3, limit=0)
        bare = create_work(conn, "无索引")
        with pytest.raises(NotFound, match="还没有检索索引"):
            si.search_text(conn, bare, "萧炎", max_chapter=3)
        assert si.search(conn, book, [], max_chapter=3) == []
        with pytest.raises(TypeError):
            si.search(conn, book, "萧炎", max_chapter=3)
        assert si.search_text(conn, book, "。。。", max_chapter=3) == []


# --- incremental updates, staleness and versions ------------------------------------------------


def _snapshot(conn, work_id: int):
    chunks = conn.execute(
        select(*[c for c in search_chunks.c if c.name != "search_vector"])
        .where(search_chunks.c.work_id == work_id)
        .order_by(search_chunks.c.id)
    ).all()
    records = conn.execute(
        select(
            search_index_chapters.c.chapter,
            search_index_chapters.c.revision,
            search_index_chapters.c.content_sha256,
            search_index_chapters.c.chunk_count,
        )
        .where(search_index_chapters.c.work_id == work_id)
        .order_by(search_index_chapters.c.chapter)
    ).all()
    hits = [
        si.search_text(conn, work_id, q, max_chapter=CHAPTERS + 1, limit=100)
        for q in ("萧炎 钟声", "新的篇章 露水", marker(2))
    ]
    return [tuple(r) for r in chunks], [tuple(r) for r in records], hits


def test_a_revised_chapter_is_stale_until_indexed_in_the_same_transaction(engine, book):
    new_text = "萧炎推开石门，门后是一片新的天地。" + filler(2, 5)
    with engine.begin() as conn:
        write_revision(conn, book, 2, new_text, expected_revision=1, origin="edit")
        assert si.stale_chapters(conn, book) == [2]
        assert si.search(conn, book, [marker(2)], max_chapter=CHAPTERS)[0].revision == 1
        si.index_chapter(conn, book, 2)
        assert si.stale_chapters(conn, book) == []
        assert si.search(conn, book, [marker(2)], max_chapter=CHAPTERS) == []
        hits = si.search_text(conn, book, "石门", max_chapter=CHAPTERS)
    assert [(h.chapter, h.revision) for h in hits] == [(2, 2)]
    assert new_text[hits[0].start : hits[0].end] == hits[0].text


def test_a_rolled_back_change_leaves_text_and_index_as_they_were(engine, book):
    with pytest.raises(RuntimeError), engine.begin() as conn:
        write_revision(conn, book, 2, "全新的正文。", expected_revision=1, origin="edit")
        si.index_chapter(conn, book, 2)
        raise RuntimeError("abort")
    with engine.connect() as conn:
        assert si.stale_chapters(conn, book) == []
        assert len(si.search(conn, book, [marker(2)], max_chapter=CHAPTERS)) == 1


def test_rebuild_gives_the_same_index_as_incremental_updates(engine, book):
    with engine.begin() as conn:
        write_revision(
            conn, book, 2, "新的篇章开始了。" + filler(9, 9), expected_revision=1, origin="edit"
        )
        si.index_chapter(conn, book, 2)
        add_chapter(conn, book, CHAPTERS + 1, "新章", chapter_text(CHAPTERS + 1))
        si.index_chapter(conn, book, CHAPTERS + 1)
        incremental = _snapshot(conn, book)
        si.rebuild_index(conn, book)
        rebuilt = _snapshot(conn, book)
    assert incremental == rebuilt
    assert incremental[1][1] == (2, 2, sha256_hex("新的篇章开始了。" + filler(9, 9)), 1)


def test_indexing_a_chapter_of_an_unindexed_work_starts_its_index(engine):
    with engine.begin() as conn:
        work_id = create_work(conn, "新书")
        for n in (1, 2):
            add_chapter(conn, work_id, n, f"第{n}章", chapter_text(n))
        assert si.stale_chapters(conn, work_id) == [1, 2]
        assert si.index_chapter(conn, work_id, 2) >= 1
        status = si.index_status(conn, work_id)
        assert status.stale == (1,) and not status.fresh
        assert si.refresh_index(conn, work_id) == status.current_version
        assert si.index_status(conn, work_id).fresh


def test_a_new_name_or_alias_changes_the_version_and_refresh_rebuilds(engine, book):
    with engine.begin() as conn:
        v1 = si.index_version(conn, book)
        assert si.built_version(conn, book) == v1 and si.index_status(conn, book).fresh
        insert_card(conn, book, character("徐凤年"), CardStatus.confirmed)
        v2 = si.index_version(conn, book)
        status = si.index_status(conn, book)
        assert v2 != v1 and status.built_version == v1 and not status.fresh
        assert si.refresh_index(conn, book) == v2 == si.built_version(conn, book)
        tokens = conn.execute(select(search_chunks.c.tokens)).scalars().all()
        assert sum("徐凤年" in t.split() for t in tokens) == 2  # chapters 3 and 6, kept whole

        card = find_card(conn, book, "萧炎")
        spec = spec_of(card)
        rewrite_card(
            conn,
            card,
            spec.model_copy(
                update={"aliases": [*spec.aliases, *character("x", "萧家少爷").aliases]}
            ),
        )
        assert si.index_version(conn, book) not in (v1, v2)
    assert version_for(Tokenizer(["萧炎"])) != version_for(Tokenizer(["萧炎", "炎帝"]))
    assert version_for(Tokenizer(["萧炎", "炎帝"])) == version_for(Tokenizer(["炎帝", "萧炎 "]))


def test_refresh_is_queued_as_a_job_and_runs(engine, book):
    with engine.begin() as conn:
        insert_card(conn, book, character("徐凤年"), CardStatus.confirmed)
        assert si.enqueue_refresh(conn, book)
        assert si.run_refresh_job(conn, {"work_id": book}) == si.index_version(conn, book)
        assert si.index_status(conn, book).fresh


def test_search_query_expands_a_card_to_the_aliases_known_at_the_freeze_point(engine, book):
    with engine.begin() as conn:
        insert_card(
            conn,
            book,
            CardSpec.model_validate(
                {
                    **character("徐凤年").model_dump(),
                    "aliases": [{"name": "世子", "since_chapter": 5}],
                }
            ),
            CardStatus.confirmed,
        )
        si.refresh_index(conn, book)
        early = si.search_query(conn, book, "炎帝", max_chapter=4)
        late = si.search_query(conn, book, "徐凤年", max_chapter=4)
        later = si.search_query(conn, book, "徐凤年", max_chapter=6)
        free = si.search_query(conn, book, "钟声", max_chapter=4)
    assert early.mode == "card" and early.terms == ("萧炎", "炎帝")
    assert {h.chapter for h in early.hits} == {1, 2, 3, 4}
    assert late.terms == ("徐凤年",) and later.terms == ("徐凤年", "世子")
    assert free.mode == "text" and free.terms == ("钟声",)


# --- command line -------------------------------------------------------------------------------


@pytest.fixture
def cli(db_url, monkeypatch, tmp_path):
    monkeypatch.setenv("MUSE_DATABASE_URL", db_url)
    monkeypatch.chdir(tmp_path)
    get_engine.cache_clear()
    app = typer.Typer()
    app.command("noop")(lambda: None)  # a group, as in muse.cli.main
    index_cli.register(app)
    runner = CliRunner()
    yield lambda *args: runner.invoke(app, list(args), catch_exceptions=False)
    get_engine().dispose()
    get_engine.cache_clear()


def test_cli_rebuilds_shows_status_and_searches(cli, book):
    import json

    rebuilt = cli("index", "rebuild", "--work", str(book), "--json")
    assert rebuilt.exit_code == 0, rebuilt.output
    assert json.loads(rebuilt.stdout)["chunks"] >= CHAPTERS
    status = json.loads(cli("index", "status", "--json").stdout)
    assert status[0]["fresh"] is True and status[0]["staleChapters"] == []
    found = json.loads(cli("search", "炎帝", "--as-of", "4", "--json").stdout)
    assert found["mode"] == "card" and {h["chapter"] for h in found["hits"]} == {1, 2, 3, 4}
    shown = cli("search", "钟声", "--as-of", "2")
    assert shown.exit_code == 0 and "截至第 2 章" in shown.stdout
    assert "最新" in cli("index", "status").stdout
    assert "无需更新" in cli("index", "refresh").stdout
