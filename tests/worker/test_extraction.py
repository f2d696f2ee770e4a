"""Post-chapter extraction: accepted prose → drafts, conflicts and proposed fact deltas, each
anchored by a verbatim quote; forged quotes refused and recorded; re-runs add nothing; a job for
an outdated revision is skipped."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from muse.agents.tables import model_calls
from muse.flow.accept import accept_candidate
from muse.flow.production import write_chapter
from muse.knowledge.conflicts import list_conflicts
from muse.knowledge.drafts import list_drafts
from muse.knowledge.extraction import apply_extraction, run_extractor
from muse.knowledge.extraction_contracts import ChapterExtraction
from muse.knowledge.facts import list_fact_deltas
from muse.knowledge.tables import card_drafts, fact_deltas
from muse.store.jobs import enqueue, get_job
from muse.worker.loop import Worker
from muse.works.canonical import write_revision
from muse.works.catalog import get_chapter_text
from tests.support.qingyun import EVENT_ARRIVE, EVENT_GAIN, NEXT, RESULT

FORGED = "林远在山门前拔剑斩断了石碑"  # not in the chapter


@pytest.fixture
def accepted(engine, book):
    """Chapter NEXT written offline and accepted: an extract_chapter job is queued."""
    summary = write_chapter(engine, book, NEXT, provider="offline", model="offline-1")
    outcome = accept_candidate(engine, summary.candidate_id)
    assert outcome.accepted, outcome.message
    return outcome


def _count(engine, table, *where):
    with engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(table).where(*where)).scalar()


def test_the_extraction_job_proposes_drafts_conflicts_and_facts(engine, book, accepted):
    [run] = Worker(engine).run_once()
    assert (run.job_id, run.outcome) == (accepted.job_id, "done")
    with engine.connect() as conn:
        drafts = {d.name: d for d in list_drafts(conn, book)}
        conflicts = list_conflicts(conn, book)
        deltas = list_fact_deltas(conn, book)
        text = get_chapter_text(conn, book, NEXT).text
        job = get_job(conn, accepted.job_id)
    assert set(drafts) == {"林远", "石敢"}
    assert drafts["石敢"].target_card_id is None and drafts["林远"].target_card_id
    assert drafts["林远"].origin_detail["jobId"] == accepted.job_id
    [conflict] = conflicts  # 身份: 外门弟子 (confirmed) vs 内门弟子 (chapter)
    assert conflict.subject == "field:identity" and conflict.card_name == "林远"
    assert {(d.type, d.status) for d in deltas} == {
        ("location", "proposed"),
        ("possession", "proposed"),
        ("entity_state", "proposed"),
    }
    for d in deltas:  # every stored quote is verbatim at its offsets
        assert text[d.evidence_start : d.evidence_end] == d.evidence_quote
    assert {d.evidence_quote for d in deltas} == {
        EVENT_ARRIVE + "。",
        EVENT_GAIN + "。",
        RESULT + "。",
    }
    assert job.status == "done" and job.result["model"] == "offline-1"
    assert job.result["rejected"] == []


def test_a_forged_quote_is_rejected_and_recorded_the_rest_kept(engine, book, accepted, scripted):
    def forge(data):
        data["facts"].append(
            {
                "type": "knowledge",
                "subject": "林远",
                "knows": "石碑之下另有玄机",
                "learnedFrom": None,
                "evidenceQuote": FORGED,
                "confidence": "high",
            }
        )
        data["cards"][0]["fields"].append(
            {"key": "personality", "value": "冷酷", "evidenceQuote": FORGED}
        )
        return data

    scripted("extractor", "extract").edit(forge)
    [run] = Worker(engine).run_once()
    assert run.outcome == "done"
    with engine.connect() as conn:
        deltas = list_fact_deltas(conn, book)
        job = get_job(conn, accepted.job_id)
    assert len(deltas) == 3 and FORGED not in {d.evidence_quote for d in deltas}
    rejected = {(r["kind"], r["detail"]): r for r in job.result["rejected"]}
    assert set(rejected) == {("fact", "knowledge"), ("field", "personality")}
    assert all("逐字" in r["reason"] and r["quote"] == FORGED for r in rejected.values())
    assert "驳回 2 条" in run.message


def test_a_card_without_a_verbatim_anchor_is_refused_whole(engine, book, accepted, scripted):
    def forge(data):
        data["cards"].append(
            {
                "type": "artifact",
                "name": "斩碑剑",
                "aliases": ["断碑"],
                "fields": [],
                "evidenceQuote": FORGED,
                "confidence": "low",
            }
        )
        data["cards"].append(
            {
                "type": "no_such_type",
                "name": "某物",
                "aliases": [],
                "fields": [],
                "evidenceQuote": EVENT_GAIN,
                "confidence": "low",
            }
        )
        return data

    scripted("extractor", "extract").edit(forge)
    [run] = Worker(engine).run_once()
    with engine.connect() as conn:
        names = {d.name for d in list_drafts(conn, book)}
        job = get_job(conn, accepted.job_id)
    assert names == {"林远", "石敢"}
    reasons = {r["name"]: r["reason"] for r in job.result["rejected"]}
    assert set(reasons) == {"斩碑剑", "某物"}
    assert "逐字" in reasons["斩碑剑"] and "未知的卡片类型" in reasons["某物"]


def test_running_the_extraction_twice_adds_nothing(engine, book, accepted):
    call = run_extractor(engine, book, NEXT, 1, provider="offline", model="offline-1")
    with engine.begin() as conn:
        first = apply_extraction(conn, book, NEXT, 1, call.output)
    with engine.begin() as conn:
        second = apply_extraction(conn, book, NEXT, 1, call.output)
    assert {i.status for i in first.cards} == {"new", "update"}
    assert {i.status for i in second.cards + second.facts} == {"duplicate"}
    assert [i.id for i in second.facts] == [i.id for i in first.facts]
    # and through the queue: a second job for the same revision stores nothing new either
    with engine.begin() as conn:
        payload = get_job(conn, accepted.job_id).payload
        enqueue(conn, "extract_chapter", payload)  # same payload, no dedupe key
    runs = Worker(engine).run_once()
    assert [r.outcome for r in runs] == ["done", "done"]
    assert _count(engine, card_drafts, card_drafts.c.work_id == book) == 2
    assert _count(engine, fact_deltas, fact_deltas.c.work_id == book) == 3


def test_rerun_after_the_author_decided_does_not_bring_drafts_back(engine, book, accepted):
    from muse.knowledge.drafts import confirm_draft, reject_draft

    call = run_extractor(engine, book, NEXT, 1, provider="offline", model="offline-1")
    Worker(engine).run_once()  # the same (deterministic) output, applied by the job
    with engine.begin() as conn:
        drafts = {d.name: d.id for d in list_drafts(conn, book)}
        confirm_draft(conn, drafts["石敢"])
        reject_draft(conn, drafts["林远"])
    with engine.begin() as conn:
        again = apply_extraction(conn, book, NEXT, 1, call.output)
        assert list_drafts(conn, book) == []
    assert {i.name: i.status for i in again.cards} == {"林远": "duplicate", "石敢": "mention"}


def test_a_job_for_an_outdated_revision_is_skipped_not_failed(engine, book, accepted):
    with engine.begin() as conn:
        text = get_chapter_text(conn, book, NEXT).text
        write_revision(
            conn, book, NEXT, text + "\n作者补了一句。", expected_revision=1, origin="edit"
        )
    [run] = Worker(engine).run_once()
    assert run.outcome == "skipped" and "修订版 2" in run.message
    with engine.connect() as conn:
        job = get_job(conn, accepted.job_id)
        assert list_drafts(conn, book) == [] and list_fact_deltas(conn, book) == []
    assert job.status == "done" and job.skipped and job.result["revision"] == 1


def test_a_revision_made_during_the_model_call_skips_the_job(engine, book, accepted, scripted):
    def edit_meanwhile(data):
        with engine.begin() as conn:
            text = get_chapter_text(conn, book, NEXT).text
            write_revision(conn, book, NEXT, text + "\n改。", expected_revision=1, origin="edit")
        return data

    scripted("extractor", "extract").edit(edit_meanwhile)
    [run] = Worker(engine).run_once()
    assert run.outcome == "skipped"
    with engine.connect() as conn:
        assert list_drafts(conn, book) == [] and list_fact_deltas(conn, book) == []


def test_the_worker_model_override_must_be_complete(engine, book, accepted):
    [run] = Worker(engine, provider="offline").run_once()
    assert run.outcome == "failed" and "--provider 和 --model" in run.message


def test_a_model_the_extractor_policy_refuses_fails_the_job_at_once(engine, book, accepted):
    [run] = Worker(engine, provider="offline", model="no-such-model").run_once()
    assert run.outcome == "failed" and run.attempt == 1


def test_the_output_contract_is_strict_schema_compatible():
    from muse.agents.structured import is_strict_compatible

    assert is_strict_compatible(ChapterExtraction.model_json_schema())


def test_the_index_refresh_job_brings_the_index_up_to_date(engine, book):
    from muse.context.search.builder import enqueue_refresh, index_status

    with engine.begin() as conn:
        job_id = enqueue_refresh(conn, book)
        assert not index_status(conn, book).fresh
    [run] = Worker(engine).run_once()
    assert (run.job_id, run.outcome) == (job_id, "done")
    with engine.connect() as conn:
        status = index_status(conn, book)
    assert status.fresh and run.result["indexVersion"] == status.current_version


def test_an_author_edit_is_extracted_with_the_last_accepted_runs_model(engine, book, accepted):
    from muse.flow.chapter_edit import edit_chapter

    Worker(engine).run_once()  # the accept's own job
    with engine.connect() as conn:
        text = get_chapter_text(conn, book, NEXT).text
    edit_chapter(engine, book, NEXT, text + "\n\n林远抬头望天。")
    [run] = Worker(engine).run_once()  # the edit's job carries no run id
    assert run.outcome == "done", run.message
    with engine.connect() as conn:
        [receipt] = conn.execute(
            select(model_calls.c.provider, model_calls.c.model_requested)
            .where(model_calls.c.role == "extractor")
            .order_by(model_calls.c.started_at.desc())
            .limit(1)
        ).all()
    assert tuple(receipt) == ("offline", "offline-1")


def test_an_edit_job_in_a_work_never_accepted_needs_an_explicit_model(engine, book):
    from muse.flow.chapter_edit import edit_chapter

    with engine.connect() as conn:
        text = get_chapter_text(conn, book, 1).text
    edit_chapter(engine, book, 1, text + "\n\n风起。")
    [run] = Worker(engine).run_once()
    assert run.outcome == "failed" and "还没有采纳过候选" in run.message


def test_an_edit_job_uses_the_works_extractor_choice_and_its_receipt_says_so(engine, book):
    from muse.agents.model_choice import choose_model
    from muse.flow.chapter_edit import edit_chapter

    choose_model(engine, book, "extractor", "offline:offline-1")  # muse models use extractor …
    with engine.connect() as conn:
        text = get_chapter_text(conn, book, 1).text
    edit_chapter(engine, book, 1, text + "\n\n风起。")
    [run] = Worker(engine).run_once()  # never accepted: without the choice this job fails
    assert run.outcome == "done", run.message
    with engine.connect() as conn:
        [params] = conn.execute(
            select(model_calls.c.request_params).where(model_calls.c.role == "extractor")
        ).scalars()
    assert params["modelChoice"]["source"] == "work"
    assert (params["modelChoice"]["provider"], params["modelChoice"]["model"]) == (
        "offline",
        "offline-1",
    )
