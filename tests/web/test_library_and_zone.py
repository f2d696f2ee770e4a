"""Pages for what the context is built from (patterns, style profiles, the search index, the
caches) and the separate evaluation zone: each shows the stored rows; production pages never
show an evaluation run or candidate."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from muse.context import index_overview
from muse.evaluation.preregistration import parse_set, preregister
from muse.evaluation.runner import run_set
from muse.evaluation.sample_state import zone_engine
from muse.evaluation.tables import eval_arms, eval_judgements, eval_runs
from muse.knowledge.tables import knowledge_versions
from muse.patterns.builtin import install_builtin_patterns
from muse.store.engine import reading
from tests.evaluation.harness import BOOKS, make_books, set_yaml


@pytest.fixture
def books(engine) -> dict[str, int]:
    return make_books(engine)


def test_the_library_shows_patterns_the_index_per_chapter_and_the_caches(client, engine, written):
    with engine.begin() as conn:
        installed = install_builtin_patterns(conn)
    page = client.get(f"/works/{written.work_id}/library").text
    first = installed[0][0]
    assert first.name in page and first.key in page
    with reading(engine) as conn:
        token = conn.execute(
            select(knowledge_versions.c.token).where(
                knowledge_versions.c.work_id == written.work_id
            )
        ).scalar_one()
    assert token in page  # the card change token
    assert "prose-fts" in page and "第 4 章" in page and "最新" in page  # version, per chapter
    chunks = client.get(f"/works/{written.work_id}/index/1").text
    assert "[0," in chunks and "个片段" in chunks


def test_the_index_table_lists_one_page_of_chapters_and_counts_the_whole_book(engine, written):
    with reading(engine) as conn:
        whole = index_overview(conn, written.work_id)
        page = index_overview(conn, written.work_id, offset=1, limit=2)
    assert [r["chapter"] for r in page["chapters"]] == [2, 3]
    assert page["chapters"] == whole["chapters"][1:3]  # the same rows, indexedAt included
    assert page["total"] == len(whole["chapters"]) == sum(page["states"].values())
    assert page["states"]["fresh"] == len(whole["chapters"]) and page["chunks"] == whole["chunks"]


def test_the_evaluation_zone_shows_sets_samples_arms_and_judgements_apart(client, engine, books):
    doc = set_yaml("web-zone", {BOOKS[0]: 1}, judge_provider="offline", worker_provider="offline")
    registered = preregister(engine, parse_set(doc))
    run_set(engine, registered.set_id, concurrency=1)
    zone = client.get("/evaluation").text
    assert "web-zone" in zone and registered.set_id in zone
    report = client.get(f"/evaluation/sets/{registered.set_id}").text
    assert "Gate A" in report and "insufficient_evidence" in report and "b1s01" in report
    sample = client.get(f"/evaluation/sets/{registered.set_id}/samples/b1s01").text
    with reading(zone_engine(engine)) as conn:
        eval_run = conn.execute(select(eval_runs)).one()
        arms = conn.execute(select(eval_arms)).all()
        receipts = conn.execute(select(eval_judgements.c.receipt_id)).scalars().all()
    for arm in arms:
        assert arm.run_id in sample and eval_run.labels[arm.arm] in sample
    assert receipts and all(r in sample for r in receipts)
    # production pages of the work never show the evaluation arms
    work_id = books[BOOKS[0]]
    production = client.get(f"/works/{work_id}/candidates").text
    assert not any(a.candidate_id and a.candidate_id in production for a in arms)
    overview = client.get(f"/works/{work_id}").text
    assert not any(a.run_id in overview for a in arms)
    # an arm's own page opens, marked as evaluation, through the zone
    candidate = next(a.candidate_id for a in arms if a.candidate_id)
    assert client.get(f"/candidates/{candidate}").status_code == 200
