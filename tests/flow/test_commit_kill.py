"""A process killed by SIGKILL inside a canonical commit leaves everything or nothing.

For every fault-injection point of the accept commit (``muse.flow.accept.FAULT_POINTS``) and of
the author's chapter edit (``muse.flow.chapter_edit.FAULT_POINTS``), a real subprocess runs the real
command on the test database (a SQLite file, or the PostgreSQL schema) with ``MUSE_FAULT_POINT``
set, and dies there. The parent then reads the database: before the commit nothing of the change
may be visible; after it, all of it. Then the same command, run again, succeeds. The accept
approves a fact delta proposed against the candidate, so the fact ledger is part of "all".
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import func, select

from muse.context.search import index as search_index
from muse.context.search.tables import search_chunks, search_index_chapters
from muse.core.faults import FAULT_POINT_ENV
from muse.flow import accept as accept_module
from muse.flow import chapter_edit
from muse.flow.accept import accept_candidate
from muse.flow.chapter_edit import edit_chapter
from muse.flow.production import write_chapter
from muse.flow.sweeping import sweep
from muse.flow.tables import candidates, decisions, runs
from muse.knowledge.facts import ShadowText, propose_fact_delta
from muse.knowledge.tables import fact_deltas, fact_ledger, source_refs
from muse.store.tables import jobs
from muse.works import catalog
from muse.works.tables import prose_blocks
from tests.support.cards import make_xiyou, text_of
from tests.support.marked_book import NEXT


@pytest.fixture
def xiyou(engine) -> int:
    return make_xiyou(engine)


ROOT = Path(__file__).resolve().parents[2]
CHILD = """
import sys
from muse.store.engine import make_engine

engine = make_engine(sys.argv[1])
if sys.argv[2] == "accept":
    from muse.flow.accept import accept_candidate

    accept_candidate(engine, sys.argv[3], approve_facts=sys.argv[4:])
else:
    from muse.flow.chapter_edit import edit_chapter

    edit_chapter(engine, int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
print("finished without being killed")
"""
COMMITTED = {"accept.after_commit", "edit.after_commit"}


def _die_at(point: str, db_url: str, *args: object) -> None:
    env = {**os.environ, FAULT_POINT_ENV: point}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, db_url, *map(str, args)],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == -signal.SIGKILL, (done.returncode, done.stdout, done.stderr)
    assert "finished" not in done.stdout


def _count(conn, table, *where) -> int:
    return conn.execute(select(func.count()).select_from(table).where(*where)).scalar_one()


def _state(engine, work_id: int) -> dict:
    """Everything a commit may touch, as plain values."""
    with engine.connect() as conn:
        return {
            "revisions": catalog.chapter_revisions(conn, work_id),
            "prose_blocks": _count(conn, prose_blocks),
            "runs": sorted(conn.execute(select(runs.c.id, runs.c.state, runs.c.revision)).all()),
            "candidates": sorted(
                conn.execute(select(candidates.c.id, candidates.c.state, candidates.c.revision))
            ),
            "decisions": _count(conn, decisions),
            "jobs": sorted(conn.execute(select(jobs.c.kind, jobs.c.payload)).all(), key=repr),
            "indexed": sorted(
                conn.execute(
                    select(search_index_chapters.c.chapter, search_index_chapters.c.revision)
                )
            ),
            "chunks": sorted(
                conn.execute(
                    select(search_chunks.c.id, search_chunks.c.revision, search_chunks.c.sha256)
                )
            ),
            "refs": sorted(
                conn.execute(
                    select(source_refs.c.id, source_refs.c.stale, source_refs.c.chapter_revision)
                )
            ),
            "deltas": sorted(conn.execute(select(fact_deltas.c.id, fact_deltas.c.status))),
            "ledger": sorted(conn.execute(select(fact_ledger.c.delta_id))),
        }


# -- accept -----------------------------------------------------------------------------------


@pytest.fixture
def shadow(engine, book):
    """A shadow candidate and one fact delta proposed against it (approved by the accept)."""
    summary = write_chapter(engine, book, NEXT, provider="offline", model="offline-1")
    assert summary.state == "shadow_ready", summary
    with engine.begin() as conn:
        cand = (
            conn.execute(select(candidates).where(candidates.c.id == summary.candidate_id))
            .mappings()
            .one()
        )
        fact = {"type": "location", "chapter": NEXT, "subject": "林远", "location": "山上"}
        delta = propose_fact_delta(
            conn,
            book,
            {**fact, "evidence_quote": "林远独自上山"},
            origin="candidate",
            shadow=ShadowText(cand["id"], cand["sha256"], NEXT, cand["body"]),
        )
    return book, summary, delta.id


def test_every_accept_fault_point_is_reached_in_order():
    """The list the tests iterate is the list the code calls (a renamed point fails here)."""
    source = Path(accept_module.__file__).read_text(encoding="utf-8")
    called = [p for p in accept_module.FAULT_POINTS if f'fault_point("{p}")' in source]
    assert called == list(accept_module.FAULT_POINTS)


@pytest.mark.parametrize("point", accept_module.FAULT_POINTS)
def test_accept_killed_at_a_fault_point_leaves_all_or_nothing(point, db_url, engine, shadow):
    work_id, summary, delta_id = shadow
    before = _state(engine, work_id)
    _die_at(point, db_url, "accept", summary.candidate_id, delta_id)
    after = _state(engine, work_id)
    if point in COMMITTED:
        _assert_accepted(engine, work_id, summary, delta_id)
        assert accept_candidate(engine, summary.candidate_id).repeated  # one effect only
        assert _state(engine, work_id) == after
        return
    assert after == before  # nothing: no revision, no decision, no job, no index chunk, no fact
    with engine.connect() as conn:
        assert catalog.latest_chapter_number(conn, work_id) == NEXT - 1
        run_state = conn.execute(select(runs.c.state).where(runs.c.id == summary.run_id)).scalar()
        cand_state = conn.execute(
            select(candidates.c.state).where(candidates.c.id == summary.candidate_id)
        ).scalar()
    assert (run_state, cand_state) == ("shadow_ready", "PASSED")
    # the run waits for the author, so the crash sweep has nothing to end
    assert sweep(engine, stale_after=1e-6).moved == []
    outcome = accept_candidate(engine, summary.candidate_id, approve_facts=[delta_id])
    assert (outcome.state, outcome.repeated) == ("extraction_queued", False)
    _assert_accepted(engine, work_id, summary, delta_id)


def _assert_accepted(engine, work_id, summary, delta_id) -> None:
    with engine.connect() as conn:
        chapter = catalog.get_chapter_text(conn, work_id, NEXT)
        body = conn.execute(
            select(candidates.c.body, candidates.c.state).where(
                candidates.c.id == summary.candidate_id
            )
        ).one()
        run_state = conn.execute(select(runs.c.state).where(runs.c.id == summary.run_id)).scalar()
        assert (chapter.revision, chapter.text, body.state) == (1, body.body, "ACCEPTED")
        assert run_state == "extraction_queued"
        assert _count(conn, decisions) == 1
        assert _count(conn, jobs, jobs.c.kind == "extract_chapter") == 1
        assert search_index.stale_chapters(conn, work_id) == []
        assert conn.execute(select(fact_ledger.c.delta_id)).scalars().all() == [delta_id]
        assert (
            conn.execute(
                select(fact_deltas.c.status).where(fact_deltas.c.id == delta_id)
            ).scalar_one()
            == "approved"
        )


# -- chapter edit -----------------------------------------------------------------------------

EDITED = text_of(1).replace("石猴", "灵猴")


def test_every_edit_fault_point_is_reached_in_order():
    source = Path(chapter_edit.__file__).read_text(encoding="utf-8")
    called = [p for p in chapter_edit.FAULT_POINTS if f'fault_point("{p}")' in source]
    assert called == list(chapter_edit.FAULT_POINTS)


@pytest.mark.parametrize("point", chapter_edit.FAULT_POINTS)
def test_edit_killed_at_a_fault_point_leaves_all_or_nothing(point, db_url, engine, xiyou):
    before = _state(engine, xiyou)
    _die_at(point, db_url, "edit", xiyou, 1, EDITED)
    after = _state(engine, xiyou)
    if point in COMMITTED:
        _assert_edited(engine, xiyou)
        return
    assert after == before
    with engine.connect() as conn:
        assert catalog.get_chapter_text(conn, xiyou, 1).text == text_of(1)
        assert [h.chapter for h in search_index.search(conn, xiyou, ["石猴"], max_chapter=4)] == [1]
    outcome = edit_chapter(engine, xiyou, 1, EDITED)
    assert outcome.revision == 2
    _assert_edited(engine, xiyou)


def _assert_edited(engine, work_id) -> None:
    with engine.connect() as conn:
        chapter = catalog.get_chapter_text(conn, work_id, 1)
        assert (chapter.revision, chapter.text) == (2, EDITED)
        assert search_index.stale_chapters(conn, work_id) == []
        assert search_index.search(conn, work_id, ["石猴"], max_chapter=4) == []
        assert _count(conn, jobs, jobs.c.kind == "extract_chapter") == 1
        assert _count(conn, source_refs, source_refs.c.stale.is_(True)) == 1
