"""The card cache: a whole work's cards come from memory until a write changes them.

Writes go through separate, committed transactions (as in production), on SQLite and on
PostgreSQL; the change token is kept by database triggers, so raw SQL counts as a write too.
"""

from __future__ import annotations

import pytest
from sqlalchemy import Engine, text, update

from muse.context.as_of import AsOfView
from muse.knowledge.card_state import work_state_as_of
from muse.knowledge.cards import insert_card, load_cards, rewrite_card, set_status, spec_of
from muse.knowledge.contracts import Card, CardStatus
from muse.knowledge.source_refs import ChapterTexts, locate_quote, revalidate_source_refs
from muse.knowledge.speed import cache as card_cache
from muse.knowledge.tables import card_milestones, source_refs
from muse.works.canonical import add_chapter, write_revision
from muse.works.catalog import create_work
from tests.knowledge import reference_state_as_of as reference
from tests.knowledge.xiyouji import CHAPTERS
from tests.support.cards import spec, text_of


@pytest.fixture(autouse=True)
def _empty_cache():
    card_cache.clear()
    yield
    card_cache.clear()


@pytest.fixture
def book(engine: Engine) -> int:
    """A committed work: four chapters, 孙悟空 (debut in 1, refs into 1 and 2) and 唐僧."""
    with engine.begin() as conn:
        work = create_work(conn, "西游记")
        for number, (title, body) in CHAPTERS.items():
            add_chapter(conn, work, number, title, body)
        texts = ChapterTexts(conn, work)
        hero = spec(
            "孙悟空",
            aliases=["美猴王"],
            milestones=[
                {
                    "chapter": 1,
                    "cycle": "登场",
                    "step": "出世",
                    "refs": [locate_quote(texts, 1, "石猴")],
                },
                {
                    "chapter": 2,
                    "cycle": "成长",
                    "step": "拜师",
                    "refs": [locate_quote(texts, 2, "菩提")],
                },
            ],
        )
        insert_card(conn, work, hero, CardStatus.confirmed)
        insert_card(conn, work, spec("唐僧"), CardStatus.confirmed)
    return work


def read(engine: Engine, work: int) -> list[Card]:
    with engine.connect() as conn:
        return load_cards(conn, work)


def counts() -> tuple[int, int, int]:
    s = card_cache.stats
    return s.hits, s.misses, s.bypassed


def test_a_second_read_comes_from_the_cache_and_equals_a_validated_load(engine, book):
    before = counts()
    first = read(engine, book)
    second = read(engine, book)
    hits, misses, _ = (a - b for a, b in zip(counts(), before, strict=True))
    assert (hits, misses) == (1, 1)
    assert [c.name for c in first] == ["唐僧", "孙悟空"]
    assert all(a is b for a, b in zip(first, second, strict=True)) and first is not second
    # rows become models without validation: validation must give exactly the same cards
    assert [Card.model_validate(c.model_dump()) for c in first] == first
    assert [c.model_dump_json() for c in first] == [
        Card.model_validate(c.model_dump()).model_dump_json() for c in first
    ]


def _names(engine, work):
    return sorted(c.name for c in read(engine, work))


def test_every_write_path_changes_what_the_next_read_sees(engine, book):
    read(engine, book)
    with engine.begin() as conn:
        insert_card(conn, book, spec("猪八戒"), CardStatus.confirmed)
    assert _names(engine, book) == ["唐僧", "孙悟空", "猪八戒"]

    pig = next(c for c in read(engine, book) if c.name == "猪八戒")
    with engine.begin() as conn:
        rewrite_card(conn, pig, spec_of(pig).model_copy(update={"name": "天蓬元帅"}))
    assert _names(engine, book) == ["唐僧", "天蓬元帅", "孙悟空"]

    pig = next(c for c in read(engine, book) if c.name == "天蓬元帅")
    with engine.begin() as conn:
        set_status(conn, pig, CardStatus.merged)
    assert _names(engine, book) == ["唐僧", "孙悟空"]

    with engine.begin() as conn:  # raw SQL on a milestone: the triggers see it too
        conn.execute(
            update(card_milestones).where(card_milestones.c.step == "拜师").values(chapter=3)
        )
    hero = next(c for c in read(engine, book) if c.name == "孙悟空")
    assert [m.chapter for m in hero.milestones] == [1, 3]


def test_a_stale_reference_reaches_the_cached_state(engine, book):
    with engine.connect() as conn:
        assert len(work_state_as_of(conn, book, 4).visible()[1].milestones) == 2
    with engine.begin() as conn:
        edited = text_of(2).replace("菩提", "须菩")
        write_revision(conn, book, 2, edited, expected_revision=1, origin="edit")
        assert len(revalidate_source_refs(conn, book).newly_stale) == 1
    with engine.connect() as conn:
        hero = work_state_as_of(conn, book, 4).visible()[1]
    assert [m.step for m in hero.milestones] == ["出世"]
    with engine.begin() as conn:  # and back, by raw SQL
        conn.execute(update(source_refs).values(stale=False, stale_reason=None))
    with engine.connect() as conn:
        assert len(work_state_as_of(conn, book, 4).visible()[1].milestones) == 2


def test_a_rolled_back_write_leaves_the_cached_cards_right(engine, book):
    assert _names(engine, book) == ["唐僧", "孙悟空"]
    with engine.connect() as conn:
        tx = conn.begin()
        insert_card(conn, book, spec("沙僧"), CardStatus.confirmed)
        assert sorted(c.name for c in load_cards(conn, book)) == ["唐僧", "孙悟空", "沙僧"]
        tx.rollback()
    before = counts()
    assert _names(engine, book) == ["唐僧", "孙悟空"]
    assert counts()[0] == before[0] + 1  # the committed cards, still cached
    with engine.begin() as conn:
        insert_card(conn, book, spec("白龙马"), CardStatus.confirmed)
    assert _names(engine, book) == ["唐僧", "孙悟空", "白龙马"]


def test_a_transaction_reads_its_own_writes_every_time(engine, book):
    with engine.begin() as conn:
        assert len(load_cards(conn, book)) == 2
        insert_card(conn, book, spec("沙僧"), CardStatus.confirmed)
        assert len(load_cards(conn, book)) == 3
        insert_card(conn, book, spec("白龙马"), CardStatus.confirmed)
        assert len(load_cards(conn, book)) == 4
        conn.execute(text("UPDATE cards SET name = '悟净' WHERE name = '沙僧'"))
        assert "悟净" in {c.name for c in load_cards(conn, book)}
    assert _names(engine, book) == ["唐僧", "孙悟空", "悟净", "白龙马"]


def test_the_as_of_view_and_work_state_equal_the_rules(engine, book):
    validated = [Card.model_validate(c.model_dump()) for c in read(engine, book)]
    for as_of in range(0, 6):
        expected = reference.book_state_as_of(validated, as_of)
        with engine.connect() as conn:
            for _ in range(2):  # cold, then from the cache
                assert work_state_as_of(conn, book, as_of).cards == expected
                view = AsOfView(conn, book, as_of)
                assert view.card_states == [s.state for s in expected if s.state is not None]
