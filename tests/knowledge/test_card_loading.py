"""Building a book: the cycle collector paused, a kept book frozen, the book's store left until
the reader has its result, and the name scan of the as-of rules.

The collector is process-wide: every test here restores it (and unfreezes what it froze).
"""

from __future__ import annotations

import gc
import random

import pytest
from sqlalchemy import Engine, select

from muse.knowledge import card_state
from muse.knowledge.card_state import work_state_as_of
from muse.knowledge.speed import book as card_book
from muse.knowledge.speed import cache as card_cache
from muse.knowledge.speed import loading as card_loading
from muse.knowledge.speed.loading import after_build, keep_built, many_objects
from muse.knowledge.speed.rules import BookTerms
from muse.knowledge.tables import card_book_cache
from muse.knowledge.terms import TermMatcher
from tests.knowledge import test_card_cache

book = test_card_cache.book  # the fixture: 孙悟空 and 唐僧 in a committed work


@pytest.fixture(autouse=True)
def _collector():
    was = gc.isenabled()
    frozen = gc.get_freeze_count()
    card_cache.clear()
    card_book.store_pending()
    yield
    card_book.store_pending()
    card_cache.clear()
    if gc.get_freeze_count() != frozen:
        gc.unfreeze()
    (gc.enable if was else gc.disable)()


def test_blocks_nest_and_the_outermost_restores_the_collector():
    gc.enable()
    with many_objects():
        assert not gc.isenabled()
        with many_objects():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the inner block does not resume it
    assert gc.isenabled()
    gc.disable()
    with many_objects():
        pass
    assert not gc.isenabled()  # disabled by someone else: left so


def test_only_a_kept_build_is_frozen(monkeypatch):
    monkeypatch.setattr(card_loading, "FREEZE_AT_LEAST", 1000)
    gc.enable()
    before = gc.get_freeze_count()
    with many_objects():
        built = [(i, [i]) for i in range(5000)]
    assert gc.get_freeze_count() == before  # not asked for: the collector sees them as usual
    with many_objects():
        keep_built()
        built = [(i, [i]) for i in range(5000)]
    assert gc.get_freeze_count() >= before + len(built)
    assert gc.isenabled()


def test_a_small_build_is_not_frozen():
    gc.enable()
    before = gc.get_freeze_count()
    with many_objects():
        keep_built()
        built = [[i] for i in range(100)]
    assert gc.get_freeze_count() == before and len(built) == 100


def test_after_build_waits_for_the_outermost_block():
    done: list[str] = []
    with many_objects():
        with many_objects():
            after_build(lambda: done.append("stored"))
        assert done == []
    assert done == ["stored"]
    after_build(lambda: done.append("now"))  # no block open: at once
    assert done == ["stored", "now"]


def test_the_book_is_stored_after_the_read_is_built_not_during_it(
    engine: Engine, book, monkeypatch
):
    events: list[str] = []
    start, at = card_book._start_writer, card_state.PreparedBook.at

    def spy_start() -> None:
        events.append("store")
        start()

    def spy_at(self, as_of):
        events.append("state")
        return at(self, as_of)

    monkeypatch.setattr(card_book, "_start_writer", spy_start)
    monkeypatch.setattr(card_state.PreparedBook, "at", spy_at)
    with engine.connect() as conn:
        work_state_as_of(conn, book, 3)
    assert events == ["state", "store"]  # the rows were queued before; encoded only now
    card_book.store_pending()
    with engine.connect() as conn:
        assert conn.execute(select(card_book_cache.c.work_id)).scalars().all() == [book]


def test_a_reader_that_holds_its_transaction_does_not_lose_the_store(engine: Engine, book):
    """On SQLite the reader's own transaction holds the write lock: the writer thread waits."""
    with engine.connect() as conn:
        conn.begin()
        work_state_as_of(conn, book, 2)
        conn.rollback()
    card_book.store_pending()
    with engine.connect() as conn:
        assert conn.execute(select(card_book_cache.c.work_id)).scalars().all() == [book]


def _max_of_matcher(terms: BookTerms, text: str) -> tuple[float, str]:
    """What ``date_of`` gave when it used the regular expression matcher (terms.py)."""
    matcher = TermMatcher(terms.first_known)
    found = [(terms.first_known[t], terms.reasons[t]) for t in matcher.terms_in(text)]
    return max(found, default=(0, ""))


def test_the_name_scan_finds_what_the_matcher_finds():
    rng = random.Random(7)
    alphabet = "孙悟空行者美猴王唐僧八戒沙和尚"
    for _ in range(200):
        names = {"".join(rng.choices(alphabet, k=rng.randint(1, 4))) for _ in range(8)}
        first_known = {n: float(rng.choice([0, 1, 3, 3, 9])) for n in names}
        reasons = {n: f"「{n}」第 {int(d)} 章" for n, d in first_known.items()}
        starts: dict[str, set[int]] = {}
        for n in names:
            starts.setdefault(n[0], set()).add(len(n))
        terms = BookTerms(
            first_known, reasons, {}, {c: tuple(sorted(s)) for c, s in starts.items()}
        )
        for _ in range(10):
            text = "".join(rng.choices(alphabet + "，的了", k=rng.randint(0, 12)))
            assert terms.date_of(text) == _max_of_matcher(terms, text), (names, text)
