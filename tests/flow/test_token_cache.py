"""The cached share of input tokens, per run and per chapter, from the receipts' tokens_cached."""

from __future__ import annotations

from sqlalchemy import select, update

from muse.agents.tables import model_calls
from muse.flow import queries
from muse.flow.production import write_chapter
from muse.flow.run_detail import show_run_detail
from tests.support.marked_book import NEXT


def test_no_reported_cache_is_unknown_not_zero(engine, book):
    run = write_chapter(engine, book, NEXT, provider="offline", model="offline-1")
    with engine.connect() as conn:
        (listed,) = queries.list_runs(conn, book)
        assert listed["id"] == run.run_id
        assert listed["tokenCache"]["share"] is None
        assert listed["tokenCache"]["tokensCached"] is None


def test_shares_sum_the_receipts_of_a_run_and_of_a_chapter(engine, book):
    runs = [write_chapter(engine, book, NEXT, provider="offline", model="offline-1") for _ in "ab"]
    with engine.begin() as conn:
        calls = conn.execute(
            select(model_calls.c.id, model_calls.c.run_id).order_by(model_calls.c.id)
        ).all()
        for call in calls:
            conn.execute(
                update(model_calls)
                .where(model_calls.c.id == call.id)
                .values(tokens_in=1000, tokens_cached=900 if call.run_id == runs[0].run_id else 100)
            )
    per_run = {r.run_id: sum(1 for c in calls if c.run_id == r.run_id) for r in runs}
    with engine.connect() as conn:
        listed = {r["id"]: r["tokenCache"] for r in queries.list_runs(conn, book)}
        detail = show_run_detail(conn, runs[0].run_id)
    first = listed[runs[0].run_id]
    assert first == {
        "tokensIn": 1000 * per_run[runs[0].run_id],
        "tokensCached": 900 * per_run[runs[0].run_id],
        "share": 0.9,
    }
    assert listed[runs[1].run_id]["share"] == 0.1
    assert detail["tokenCache"] == first
    assert {r["tokensCached"] for r in detail["receipts"]} == {900}
    chapter = queries.chapter_token_caches(queries_list(engine, book))[NEXT]
    total = sum(per_run.values())
    assert chapter["tokensIn"] == 1000 * total
    assert chapter["share"] == round(
        (900 * per_run[runs[0].run_id] + 100 * per_run[runs[1].run_id]) / (1000 * total), 3
    )


def queries_list(engine, book):
    with engine.connect() as conn:
        return queries.list_runs(conn, book)
