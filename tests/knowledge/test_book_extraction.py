"""``muse cards extract`` against the local stub OpenAI server: batches on the queue, verified
quotes, one name per entity, resumable without re-calling the model, receipts, a dry run."""

from __future__ import annotations

import json

import pytest
import typer
from sqlalchemy import func, select
from typer.testing import CliRunner

from muse.agents.tables import model_calls
from muse.cli import cards
from muse.cli.common import get_engine
from muse.knowledge.book_extraction import BATCH_JOB, batch_input
from muse.knowledge.discovery_drafts import discover_work
from muse.knowledge.drafts import list_drafts
from muse.knowledge.tables import fact_deltas
from muse.store.tables import jobs
from muse.worker.loop import Worker
from tests.knowledge.discovery_fixture import sanguo_work

app = typer.Typer()
cards.register(app)

Q1 = "玄德幼孤，事母至孝，家贫，贩屦织席为业，家住本县楼桑村。"
Q2 = "儁令玄德为其先锋，与贼对敌。"
FORGED = "玄德在楼桑村得到了一把宝剑。"


def reply(cards_=(), facts=()):
    return {"cards": list(cards_), "facts": list(facts), "designFindings": []}


def card(name, quote, fields=()):
    return {
        "type": "character",
        "name": name,
        "aliases": [],
        "fields": list(fields),
        "evidenceQuote": quote,
        "confidence": "high",
    }


def location(subject, where, quote):
    return {
        "type": "location",
        "subject": subject,
        "location": where,
        "previous": None,
        "evidenceQuote": quote,
        "confidence": "high",
    }


pytestmark = pytest.mark.usefixtures("isolated_env")


@pytest.fixture
def book(engine, db_url, monkeypatch, stub_config):
    monkeypatch.setenv("MUSE_DATABASE_URL", db_url)
    get_engine.cache_clear()
    with engine.begin() as conn:
        work = sanguo_work(conn)
        discover_work(conn, work)  # 刘备 with the suggested alias 玄德, as a pending draft
    yield work
    get_engine().dispose()
    get_engine.cache_clear()


def run(*args, code=0):
    result = CliRunner().invoke(
        app, ["cards", "extract", "-p", "stub", "-m", "deepseek-chat", *args]
    )
    assert result.exit_code == code, result.output
    return result


def _count(engine, table, *where):
    with engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(table).where(*where)).scalar()


def test_dry_run_counts_calls_and_tokens_and_calls_nothing(engine, book, stub):
    data = json.loads(run("--dry-run", "--json").stdout)
    assert data["calls"] == 3 and data["batchesDone"] == 0
    assert data["tokensIn"] > 3 * 2500 and data["tokensOut"] > 0
    assert data["cost"] is None and "价格" in data["note"]  # the stub provider has no price list
    assert stub.requests == [] and _count(engine, jobs) == 0
    assert "3 次模型调用" in run("--dry-run").output


def test_extract_stores_verified_drafts_under_one_name_and_resumes(engine, book, stub):
    stub.reply_json(
        reply(
            [card("玄德", Q1)],
            [location("玄德", "楼桑村", Q1), location("玄德", "楼桑村", FORGED)],
        )
    )
    with engine.begin() as conn:  # the batches are queued, then the run is "killed" after one
        from muse.knowledge.book_extraction import enqueue_batches, plan_batches

        enqueue_batches(
            conn,
            book,
            plan_batches(conn, book, None, "stub", "deepseek-chat"),
            "stub",
            "deepseek-chat",
        )
    [first] = Worker(engine, kinds=(BATCH_JOB,)).run_once(limit=1)
    assert first.outcome == "done"
    stub.reply_json(
        reply([card("刘备", Q2, [{"key": "identity", "value": "先锋", "evidenceQuote": Q2}])])
    )
    stub.reply_json(reply())
    data = json.loads(run("--json").stdout)
    assert data["calls"] == 2 and data["batchesDone"] == 1  # the stored batch is not called again
    assert len(stub.requests) == 3 and _count(engine, model_calls) == 3  # a receipt per call
    first_input = json.loads(
        stub.requests[0].body["messages"][-1]["content"].split("```json")[-1].split("```")[0]
    )
    assert {"name": "刘备", "type": "character", "aliases": ["玄德"]} in first_input[
        "discoveredEntities"
    ]
    with engine.connect() as conn:
        names = [d.name for d in list_drafts(conn, book)]
        deltas = conn.execute(select(fact_deltas.c.chapter, fact_deltas.c.status)).all()
    assert "玄德" not in names and names.count("刘备") == 3  # discovery + two batches, one name
    assert deltas == [(1, "proposed")]  # the forged quote was refused, never stored
    result = first.result or {}
    assert [r["quote"] for r in result["rejected"]] == [FORGED]
    again = json.loads(run("--json").stdout)
    assert again["calls"] == 0 and len(stub.requests) == 3  # nothing left to call


def test_hints_never_name_an_entity_before_its_first_chapter(engine, book):
    with engine.connect() as conn:
        chapter1 = batch_input(conn, book, 1)
        chapter2 = batch_input(conn, book, 2)
    assert "曹操" not in {h["name"] for h in chapter1["discoveredEntities"]}
    assert "曹操" in {h["name"] for h in chapter2["discoveredEntities"]}


def test_a_failed_batch_fails_the_command_with_a_way_forward(engine, book, stub):
    stub.status(400, {"error": {"message": "bad request", "type": "invalid_request_error"}})
    stub.status(400, {"error": {"message": "bad request", "type": "invalid_request_error"}})
    stub.status(400, {"error": {"message": "bad request", "type": "invalid_request_error"}})
    result = run(code=1)
    assert "失败" in result.output and "Traceback" not in result.output
    assert _count(engine, fact_deltas) == 0


def test_bad_range_is_refused(book):
    assert "章节范围" in run("--chapters", "9-1", code=1).output
