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
from muse.knowledge.cards import get_card
from muse.knowledge.conflicts import list_conflicts, resolve_conflict
from muse.knowledge.discovery_drafts import discover_work
from muse.knowledge.drafts import confirm_draft, list_drafts
from muse.knowledge.tables import fact_deltas
from muse.store.tables import jobs
from muse.worker.loop import Worker
from tests.agents.conftest import isolated_env, stub, stub_config  # noqa: F401
from tests.knowledge.discovery_fixture import chapters, sanguo_work

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


@pytest.fixture
def book(engine, db_url, monkeypatch, stub_config):  # noqa: F811
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


def test_dry_run_counts_calls_and_tokens_and_calls_nothing(engine, book, stub):  # noqa: F811
    data = json.loads(run("--dry-run", "--json").stdout)
    assert data["calls"] == 1 and data["batchesDone"] == 0  # three short chapters, one batch
    assert data["tokensIn"] > 2500 and data["tokensOut"] > 0
    assert data["cost"] is None and "价格" in data["note"]  # the stub provider has no price list
    per_chapter = json.loads(run("--dry-run", "--json", "--batch-chapters", "1").stdout)
    assert per_chapter["calls"] == 3
    assert per_chapter["tokensIn"] == data["tokensIn"] + 2 * 2500  # the prompt once per call
    # a token budget that one chapter and the prompt fill: one chapter a batch again
    assert json.loads(run("--dry-run", "--json", "--batch-tokens", "6000").stdout)["calls"] == 3
    assert stub.requests == [] and _count(engine, jobs) == 0
    assert "3 次模型调用" in run("--dry-run", "--batch-chapters", "1").output


def test_bad_batch_size_is_refused(engine, book):
    assert "每批至少 1 章" in run("--batch-chapters", "0", code=1).output
    assert _count(engine, jobs) == 0


def _queue(engine, book, size):
    from muse.knowledge.book_extraction import enqueue_batches, plan_batches

    with engine.begin() as conn:
        batches = plan_batches(conn, book, None, "stub", "deepseek-chat", max_chapters=size)
        enqueue_batches(conn, book, batches, "stub", "deepseek-chat")
    return batches


def _request_input(request):
    return json.loads(request.body["messages"][-1]["content"].split("```json")[-1].split("```")[0])


def test_a_batch_is_several_chapters_and_facts_land_where_their_quote_is(
    engine,
    book,
    stub,  # noqa: F811
):
    stub.reply_json(
        reply(
            [card("玄德", Q1)],
            [
                location("玄德", "楼桑村", Q1),
                location("玄德", "楼桑村", FORGED),
                {**location("玄德", "先锋营", Q2)},
            ],
        )
    )
    batches = _queue(engine, book, 2)  # 1–2 and 3: then the run is "killed" after one batch
    assert [b.numbers for b in batches] == [[1, 2], [3]]
    [first] = Worker(engine, kinds=(BATCH_JOB,)).run_once(limit=1)
    assert first.outcome == "done"
    sent = _request_input(stub.requests[0])
    assert [c["chapter"] for c in sent["chapters"]] == [1, 2]
    assert {"name": "刘备", "type": "character", "aliases": ["玄德"]} in sent["discoveredEntities"]
    stub.reply_json(reply())
    data = json.loads(run("--json", "--batch-chapters", "1").stdout)  # another size: no re-call
    assert data["calls"] == 1 and data["batchesDone"] == 2
    assert len(stub.requests) == 2 and _count(engine, model_calls) == 2  # a receipt per call
    with engine.connect() as conn:
        drafts = [d for d in list_drafts(conn, book) if d.name == "刘备"]
        deltas = (
            conn.execute(select(fact_deltas.c.chapter).order_by(fact_deltas.c.chapter))
            .scalars()
            .all()
        )
        [draft] = drafts  # discovery's draft and the batch's proposals: one draft
        shadow = get_card(conn, draft.card_id)
        assert "玄德" not in {d.name for d in list_drafts(conn, book)}
    assert deltas == [1, 2]  # each fact at the chapter of its quote; the forged one refused
    grown = sorted((m.chapter, m.description) for m in shadow.milestones if m.cycle.value == "成长")
    assert grown == [(1, "到楼桑村（拆书抽取）"), (2, "到先锋营（拆书抽取）")]
    texts = {n: body for n, _, body in chapters()}
    for m in shadow.milestones:
        for ref in m.refs:  # every milestone proved by a reference into its own chapter
            assert ref.chapter == m.chapter and texts[ref.chapter][ref.start : ref.end]
    result = first.result or {}
    assert [r["quote"] for r in result["rejected"]] == [FORGED]
    again = json.loads(run("--json").stdout)
    assert again["calls"] == 0 and len(stub.requests) == 2  # nothing left to call


DONG_2 = "且说董卓字仲颖，陇西临洮人也，官拜河东太守，自来骄傲。"
DONG_3 = "卓曰：“西凉刺史董卓也。"


def _identity(value, quote):
    return card("董卓", quote, [{"key": "identity", "value": value, "evidenceQuote": quote}])


def test_batches_that_contradict_each_other_queue_a_conflict_at_extraction(
    engine,
    book,
    stub,  # noqa: F811
):
    stub.reply_json(reply([_identity("河东太守", DONG_2)]))
    stub.reply_json(reply([_identity("西凉刺史", DONG_3)]))
    run("--json", "--batch-chapters", "2")
    with engine.connect() as conn:
        dong = [d for d in list_drafts(conn, book) if d.name == "董卓"]
        [conflict] = list_conflicts(conn, book)
        first = get_card(conn, dong[0].card_id)
    assert len(dong) == 2  # the contradicting proposal is a draft of its own, not merged
    assert first.fields["identity"].value == "河东太守"  # never overwritten
    assert conflict.card_id == first.id and conflict.draft_id == dong[1].id
    assert conflict.subject == "field:identity"
    with engine.begin() as conn:
        resolve_conflict(conn, conflict.id, "replace")
    with engine.connect() as conn:
        [left] = [d for d in list_drafts(conn, book) if d.name == "董卓"]
        assert left.id == dong[0].id  # one draft per entity again, with the author's choice
        assert get_card(conn, left.card_id).fields["identity"].value == "西凉刺史"


def test_a_contradiction_with_a_confirmed_card_is_queued_at_extraction(
    engine,
    book,
    stub,  # noqa: F811
):
    stub.reply_json(reply([_identity("河东太守", DONG_2)]))
    run("--json", "--chapters", "1-2")
    with engine.begin() as conn:
        [dong] = [d for d in list_drafts(conn, book) if d.name == "董卓"]
        confirm_draft(conn, dong.id)
    stub.reply_json(reply([_identity("西凉刺史", DONG_3)]))
    run("--json", "--chapters", "3")
    with engine.connect() as conn:
        [conflict] = list_conflicts(conn, book)
        card_now = get_card(conn, conflict.card_id)
    assert card_now.status.value == "confirmed" and card_now.fields["identity"].value == "河东太守"
    assert conflict.subject == "field:identity"


def test_applying_a_batch_twice_adds_nothing(engine, book):
    from muse.knowledge.book_drafts import apply_batch
    from muse.knowledge.extraction_contracts import ChapterExtraction
    from muse.works.catalog import chapter_revisions

    output = ChapterExtraction.model_validate(
        reply([card("玄德", Q1)], [location("玄德", "楼桑村", Q1)])
    )
    with engine.begin() as conn:
        revs = chapter_revisions(conn, book)
        pairs = [(1, revs[1]), (2, revs[2])]
        once = apply_batch(conn, book, pairs, output)
        twice = apply_batch(conn, book, pairs, output)
    assert [i.status for i in once.cards] == ["merged"]
    assert [i.status for i in twice.cards] == ["duplicate"]
    assert [i.status for i in twice.facts] == ["duplicate"]
    assert [i.status for i in twice.milestones] == ["duplicate"]


def test_hints_never_name_an_entity_before_its_first_chapter(engine, book):
    with engine.connect() as conn:
        chapter1 = batch_input(conn, book, [1])
        chapter2 = batch_input(conn, book, [2])
    assert "曹操" not in {h["name"] for h in chapter1["discoveredEntities"]}
    assert "曹操" in {h["name"] for h in chapter2["discoveredEntities"]}


def test_a_failed_batch_fails_the_command_with_a_way_forward(engine, book, stub):  # noqa: F811
    stub.status(400, {"error": {"message": "bad request", "type": "invalid_request_error"}})
    result = run(code=1)
    assert "失败" in result.output and "Traceback" not in result.output
    assert _count(engine, fact_deltas) == 0


def test_bad_range_is_refused(book):
    assert "章节范围" in run("--chapters", "9-1", code=1).output
