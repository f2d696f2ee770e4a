"""The walking skeleton end to end: write → shadow candidate → accept → canonical."""

import threading

import pytest
from sqlalchemy import func, select

from muse.core.errors import InvalidInput, NotFound
from muse.flow.accept import accept_candidate
from muse.flow.tables import candidates, decisions, run_events, runs
from muse.store.engine import make_engine
from muse.store.tables import jobs
from muse.works import authorization, catalog
from muse.works.canonical import write_revision
from muse.works.tables import prose_blocks, works
from tests.support.fakes import write_offline
from tests.support.marked_book import NEXT


def _count(engine, table, *where):
    with engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(table).where(*where)).scalar()


def test_write_produces_a_checked_shadow_candidate(engine, book):
    summary = write_offline(engine, book, NEXT)
    assert summary.state == "shadow_ready", summary
    assert summary.findings == []
    with engine.connect() as conn:
        cand = (
            conn.execute(select(candidates).where(candidates.c.id == summary.candidate_id))
            .mappings()
            .one()
        )
        nodes = dict(
            conn.execute(
                select(run_events.c.node, run_events.c.status).where(
                    run_events.c.run_id == summary.run_id
                )
            ).all()
        )
    assert cand["state"] == "PASSED"
    assert cand["report"]["candidateSha256"] == cand["sha256"]
    semantic = cand["report"]["semantic"]
    assert semantic["status"] == "passed" and semantic["candidateSha256"] == cand["sha256"]
    assert nodes["semantic_detector"] == "ok"
    assert nodes["retrieving"] == nodes["writing"] == nodes["mechanical_gate"] == "ok"
    with engine.connect() as conn:  # nothing became canonical
        assert catalog.latest_chapter_number(conn, book) == NEXT - 1


def test_accept_commits_prose_decision_and_job_together(engine, book):
    summary = write_offline(engine, book, NEXT)
    outcome = accept_candidate(engine, summary.candidate_id)
    assert outcome.state == "extraction_queued" and outcome.revision == 1
    with engine.connect() as conn:
        chapter = catalog.get_chapter_text(conn, book, NEXT)
        block = conn.execute(
            select(prose_blocks.c.attribution, prose_blocks.c.origin).where(
                prose_blocks.c.content_sha256 == chapter.content_sha256
            )
        ).one()
        run_state = conn.execute(select(runs.c.state).where(runs.c.id == summary.run_id)).scalar()
    assert chapter.title == f"第{NEXT}章"
    assert block.origin == "accept" and block.attribution["candidateId"] == summary.candidate_id
    assert run_state == "extraction_queued"
    assert _count(engine, jobs, jobs.c.kind == "extract_chapter") == 1
    assert _count(engine, decisions) == 1


def test_same_accept_command_twice_has_one_effect(engine, book):
    summary = write_offline(engine, book, NEXT)
    first = accept_candidate(engine, summary.candidate_id, command_id="cmd-1")
    second = accept_candidate(engine, summary.candidate_id, command_id="cmd-1")
    assert (first.state, first.repeated) == ("extraction_queued", False)
    assert (second.state, second.repeated) == ("extraction_queued", True)
    assert _count(engine, prose_blocks) == NEXT
    assert _count(engine, jobs) == 1


def test_second_candidate_for_same_chapter_ends_in_revision_conflict(engine, book):
    first, second = write_offline(engine, book, NEXT), write_offline(engine, book, NEXT)
    assert accept_candidate(engine, first.candidate_id).accepted
    outcome = accept_candidate(engine, second.candidate_id)
    assert outcome.state == "revision_conflict"
    with engine.connect() as conn:
        assert (
            conn.execute(select(runs.c.state).where(runs.c.id == second.run_id)).scalar()
            == "revision_conflict"
        )
        assert catalog.get_chapter_text(conn, book, NEXT).revision == 1


def test_racing_accepts_one_wins_one_conflicts(db_url, engine, book):
    first, second = write_offline(engine, book, NEXT), write_offline(engine, book, NEXT)
    barrier, results = threading.Barrier(2), []

    def accept(candidate_id):
        eng = make_engine(db_url)
        barrier.wait()
        try:
            results.append(accept_candidate(eng, candidate_id).state)
        except Exception as err:  # surfaced by the assertion
            results.append(f"error: {err!r}")
        finally:
            eng.dispose()

    threads = [threading.Thread(target=accept, args=(c.candidate_id,)) for c in (first, second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == ["extraction_queued", "revision_conflict"]
    assert _count(engine, prose_blocks) == NEXT


def test_context_source_edited_after_writing_is_source_stale(engine, book):
    summary = write_offline(engine, book, NEXT)
    with engine.begin() as conn:
        write_revision(
            conn, book, NEXT - 1, "作者改写了上一章。", expected_revision=1, origin="edit"
        )
    outcome = accept_candidate(engine, summary.candidate_id)
    assert outcome.state == "source_stale" and str(NEXT - 1) in outcome.message
    with engine.connect() as conn:
        assert catalog.latest_chapter_number(conn, book) == NEXT - 1


def test_suspended_source_is_source_stale(engine, book):
    summary = write_offline(engine, book, NEXT)
    with engine.begin() as conn:
        authorization.set_source_status(conn, book, "suspended")
    assert accept_candidate(engine, summary.candidate_id).state == "source_stale"


def test_withdrawn_purpose_is_authorization_stale(engine, book):
    summary = write_offline(engine, book, NEXT)
    with engine.begin() as conn:
        conn.execute(
            works.update().where(works.c.id == book).values(allowed_purposes=["evaluation"])
        )
    assert accept_candidate(engine, summary.candidate_id).state == "authorization_stale"


def test_report_not_bound_to_candidate_is_quality_stale(engine, book):
    summary = write_offline(engine, book, NEXT)
    with engine.begin() as conn:
        report = conn.execute(
            select(candidates.c.report).where(candidates.c.id == summary.candidate_id)
        ).scalar()
        conn.execute(
            candidates.update()
            .where(candidates.c.id == summary.candidate_id)
            .values(report={**report, "candidateSha256": "0" * 64})
        )
    assert accept_candidate(engine, summary.candidate_id).state == "quality_stale"


def test_rejected_candidate_cannot_be_accepted(engine, book, scripted):
    scripted("writer", "generate").edit(
        lambda d: {**d, "claims": [c for c in d["claims"] if c["constraintId"] != "H1"]}
    )
    summary = write_offline(engine, book, NEXT)
    assert summary.state == "blocked_user_action"
    assert [f["kind"] for f in summary.findings] == ["hard_constraint_missing"]
    with pytest.raises(InvalidInput, match="PASSED"):
        accept_candidate(engine, summary.candidate_id)


def test_missing_required_entity_is_flagged(engine, book, scripted):
    scripted("writer", "generate").edit(
        lambda d: {**d, "paragraphs": [p.replace("苏晴", "某人") for p in d["paragraphs"]]}
    )
    summary = write_offline(engine, book, NEXT)
    assert "required_entity_missing" in {f["kind"] for f in summary.findings}


def test_length_outside_acceptance_band_is_flagged(engine, book, scripted):
    scripted("writer", "generate").edit(
        lambda d: {**d, "paragraphs": d["paragraphs"][:1] + d["paragraphs"][-1:]}
    )
    summary = write_offline(engine, book, NEXT)
    assert "length_band" in {f["kind"] for f in summary.findings}


def test_unsupported_entity_blocks_before_writing(engine, book):
    from muse.planning.fine_outlines import confirm_section, save_fine_outline
    from tests.support.marked_book import fine_outline

    data = fine_outline(NEXT)
    data["hard_constraints"]["required_entities"].append({"id": "E9", "name": "无名之人"})
    with engine.begin() as conn:
        confirm_section(conn, save_fine_outline(conn, book, data))
    summary = write_offline(engine, book, NEXT)
    assert summary.state == "blocked_user_action" and "无名之人" in summary.reason
    assert _count(engine, candidates) == 0


def test_suspended_source_stops_the_run_at_validation(engine, book):
    with engine.begin() as conn:
        authorization.set_source_status(conn, book, "withdrawn")
    summary = write_offline(engine, book, NEXT)
    assert summary.state == "authorization_stale"
    with engine.connect() as conn:
        assert conn.execute(select(runs.c.reason).where(runs.c.id == summary.run_id)).scalar()


def test_only_the_next_chapter_can_be_written(engine, book):
    with pytest.raises(InvalidInput, match=f"第 {NEXT} 章"):
        write_offline(engine, book, NEXT + 1)
    assert _count(engine, runs) == 0


def test_no_confirmed_outline_no_run(engine):
    from muse.works.canonical import add_chapter
    from tests.support.marked_book import chapter_text

    with engine.begin() as conn:
        work_id = catalog.create_work(conn, "无细纲之书")
        add_chapter(conn, work_id, 1, "一", chapter_text(1))
    with pytest.raises(NotFound, match="已确认的细纲"):
        write_offline(engine, work_id, 2)
    assert _count(engine, runs) == 0


def test_accepted_chapter_is_searchable_in_the_same_commit(engine, book):
    from muse.context.search import index as search_index

    summary = write_offline(engine, book, NEXT)
    accept_candidate(engine, summary.candidate_id)
    with engine.connect() as conn:
        assert search_index.stale_chapters(conn, book) == []
        hits = search_index.search(conn, book, ["山门后传来一声钟响"], max_chapter=NEXT, limit=3)
    assert [h.chapter for h in hits] == [NEXT]


def _issue(quote: str) -> dict:
    return {
        "category": "fact_conflict",
        "severity": "blocking",
        "quote": quote,
        "explanation": "脚本问题",
        "evidence": ["fe-outline-H1"],
    }


def test_forged_detector_quote_ends_the_run_failed(engine, book, scripted):
    scripted("detector", "check").reply(
        lambda _: {
            "verdict": "rejected",
            "issues": [_issue("正文里根本没有这一句。")],
            "evidenceGaps": [],
            "summary": "伪造",
        }
    )
    summary = write_offline(engine, book, NEXT)
    assert summary.state == "failed" and "detector_forgery" in summary.reason
    with engine.connect() as conn:
        state = conn.execute(
            select(candidates.c.state).where(candidates.c.id == summary.candidate_id)
        ).scalar()
    assert state == "REJECTED"


def test_semantic_blocking_issue_with_a_real_quote_blocks(engine, book, scripted):
    def report(task_input):
        body = task_input["candidate"]["body"] if "candidate" in task_input else None
        quote = (body or "").split("\n\n")[1].split("。")[0] + "。"
        return {
            "verdict": "rejected",
            "issues": [_issue(quote)],
            "evidenceGaps": [],
            "summary": "发现事实冲突",
        }

    scripted("detector", "check").reply(report)
    summary = write_offline(engine, book, NEXT)
    assert summary.state == "blocked_user_action" and summary.semantic_status == "rejected"
    assert any(f.get("kind") for f in summary.findings)


def test_tampered_semantic_binding_is_quality_stale(engine, book):
    summary = write_offline(engine, book, NEXT)
    with engine.begin() as conn:
        report = conn.execute(
            select(candidates.c.report).where(candidates.c.id == summary.candidate_id)
        ).scalar()
        report["semantic"]["candidateSha256"] = "0" * 64
        conn.execute(
            candidates.update().where(candidates.c.id == summary.candidate_id).values(report=report)
        )
    assert accept_candidate(engine, summary.candidate_id).state == "quality_stale"
