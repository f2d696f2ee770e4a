"""The stored card book: a new process reads a work's cards from one derived blob, and only
while the cards have not changed since it was stored.

A "new process" is simulated by emptying the in-memory card cache; the stored book is the only
thing that survives. Reading the stored book is made visible by planting a different (valid)
book for the current token: what a read returns then shows where it came from.
"""

from __future__ import annotations

import marshal

import pytest
from sqlalchemy import Engine, select, update

from muse.flow.rebuilding import rebuild_work
from muse.knowledge.card_state import work_state_as_of
from muse.knowledge.cards import insert_card, load_cards
from muse.knowledge.contracts import Card, CardStatus
from muse.knowledge.speed import book as card_book
from muse.knowledge.speed import cache as card_cache
from muse.knowledge.speed.rows import C_NAME, card_of, row_of
from muse.knowledge.tables import card_book_cache, knowledge_versions
from tests.knowledge import reference_state_as_of as reference
from tests.knowledge import test_card_cache
from tests.support.cards import spec

book = test_card_cache.book  # the fixture: 孙悟空 and 唐僧 in a committed work


@pytest.fixture(autouse=True)
def _new_process():
    card_cache.clear()
    card_book.store_pending()
    yield
    card_cache.clear()
    card_book.store_pending()


def new_process_read(engine: Engine, work: int) -> list[Card]:
    card_cache.clear()
    with engine.connect() as conn:
        cards = load_cards(conn, work)
    card_book.store_pending()  # a busy database defers the store to the end of the process
    return cards


def stored(engine: Engine, work: int) -> tuple[str, str, bytes] | None:
    t = card_book_cache.c
    with engine.connect() as conn:
        row = conn.execute(select(t.token, t.format, t.payload).where(t.work_id == work)).first()
        token = conn.execute(
            select(knowledge_versions.c.token).where(knowledge_versions.c.work_id == work)
        ).scalar()
    if row is None:
        return None
    assert row.token == token, "a stored book is only ever written for the committed token"
    return row.token, row.format, bytes(row.payload)


def plant(engine: Engine, work: int, cards: list[Card], **values) -> None:
    """Replace the stored book's payload (same token) with ``cards``, or with ``values``."""
    payload = marshal.dumps(tuple(row_of(c) for c in cards))
    with engine.begin() as conn:
        conn.execute(
            update(card_book_cache)
            .where(card_book_cache.c.work_id == work)
            .values(**({"payload": payload} | values))
        )


def renamed(cards: list[Card]) -> list[Card]:
    return [c.model_copy(update={"name": c.name + "（存档）"}) for c in cards]


def test_a_read_from_the_tables_stores_the_book_and_the_next_process_reads_it(engine, book):
    assert stored(engine, book) is None
    first = new_process_read(engine, book)
    token, _, payload = stored(engine, book)
    assert tuple(card_of(r) for r in marshal.loads(payload)) == tuple(first)

    plant(engine, book, renamed(first))
    again = new_process_read(engine, book)
    assert [c.name for c in again] == ["唐僧（存档）", "孙悟空（存档）"]  # from the stored book
    # and the models it gives are exactly what validation gives
    assert [Card.model_validate(c.model_dump()) for c in again] == again


def test_a_change_of_the_cards_makes_the_stored_book_unread_and_then_replaced(engine, book):
    plant_after = new_process_read(engine, book)
    plant(engine, book, renamed(plant_after))
    old_token = stored(engine, book)[0]
    with engine.begin() as conn:
        insert_card(conn, book, spec("猪八戒"), CardStatus.confirmed)
    names = [c.name for c in new_process_read(engine, book)]
    assert names == ["唐僧", "孙悟空", "猪八戒"]  # the tables, not the planted book
    token, _, payload = stored(engine, book)
    assert token != old_token
    assert [r[C_NAME] for r in marshal.loads(payload)] == names


@pytest.mark.parametrize(
    "values",
    [
        {"payload": b"\x00not marshal"},
        {"payload": marshal.dumps(("not", "card", "rows"))},
        {"payload": marshal.dumps([1, 2])},
        {"format": "card-rows-0/marshal-0"},
    ],
    ids=["garbage", "wrong layout", "not a tuple", "other format"],
)
def test_an_unusable_stored_book_is_ignored(engine, book, values):
    first = new_process_read(engine, book)
    plant(engine, book, renamed(first))
    plant(engine, book, [], **values)
    assert new_process_read(engine, book) == first


def test_the_state_as_of_of_a_new_process_equals_the_rules(engine, book):
    validated = [Card.model_validate(c.model_dump()) for c in new_process_read(engine, book)]
    assert stored(engine, book) is not None
    for as_of in range(0, 6):
        card_cache.clear()
        with engine.connect() as conn:
            assert work_state_as_of(conn, book, as_of).cards == reference.book_state_as_of(
                validated, as_of
            )


def test_a_transaction_that_wrote_cards_stores_nothing_it_may_roll_back(engine, book):
    with engine.connect() as conn:
        tx = conn.begin()
        insert_card(conn, book, spec("沙僧"), CardStatus.confirmed)
        assert "沙僧" in {c.name for c in load_cards(conn, book)}
        tx.rollback()
    card_book.store_pending()
    found = stored(engine, book)  # checks the token: never a book of the rolled-back write
    if found is not None:
        assert "沙僧" not in {r[C_NAME] for r in marshal.loads(found[2])}
    assert "沙僧" not in {c.name for c in new_process_read(engine, book)}


def test_rebuild_drops_the_stored_book(engine, book):
    new_process_read(engine, book)
    assert stored(engine, book) is not None
    with engine.begin() as conn:
        rebuild_work(conn, book)
    assert stored(engine, book) is None
    assert [c.name for c in new_process_read(engine, book)] == ["唐僧", "孙悟空"]
