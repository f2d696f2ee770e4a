"""Planning the continuation of an imported book: the plan must hold what is already written;
plan show and plan check agree; a superseded stage marks what depended on it for review."""

from __future__ import annotations

import pytest

from muse.planning.checking import check_plan
from muse.planning.findings import GateBlocked
from muse.planning.plan_view import load_plan_view
from muse.planning.planner import draft_stage
from muse.planning.planner_io import task_input
from muse.planning.sections import list_sections
from muse.planning.stages import STAGES
from muse.planning.status import plan_status
from muse.works.canonical import add_chapter
from tests.planning.conftest import foundation, outline, volume

WRITTEN = 31  # one more chapter than the baseline plan's 30


@pytest.fixture
def book(engine, work_id):
    with engine.begin() as conn:
        for n in range(1, WRITTEN + 1):
            add_chapter(conn, work_id, n, f"第{n}章", "林远在山间行走。" * 20)
    return work_id


def _codes(err: GateBlocked) -> set[str]:
    return {f.code for f in err.findings}


def test_a_target_below_the_written_book_is_refused(planner, book):
    with pytest.raises(GateBlocked) as refused:
        planner.save_and_confirm(0, foundation(target_chapters=30))
    assert "target_below_book" in _codes(refused.value)
    assert "31" in str(refused.value.findings[0].message) or any(
        "31" in f.message for f in refused.value.findings
    )
    planner.save_and_confirm(0, foundation(target_chapters=60))


def test_an_outline_ending_before_the_last_written_chapter_is_refused(planner, book):
    planner.save_and_confirm(0, foundation(target_chapters=60))
    short = {**outline(), "volumes": [volume(1, 1, 10), volume(2, 11, 20), volume(3, 21, 30)]}
    with pytest.raises(GateBlocked) as refused:
        planner.save_and_confirm(1, short)
    assert "outline_below_book" in _codes(refused.value)


def test_the_planner_drafts_from_the_existing_book(engine, planner, book):
    with engine.connect() as conn:
        data = task_input(load_plan_view(conn, book), STAGES[0], variant=1)
    existing = data["existingBook"]
    assert existing["chapterCount"] == WRITTEN and existing["latestChapter"] == WRITTEN
    draft_stage(engine, book, "0", provider="offline", model="offline-1")
    with engine.connect() as conn:
        report = check_plan(conn, book, stage=0)
        [shadow] = list_sections(conn, book, stage=0)
    assert not report.blocking, [f.message for f in report.blocking]
    assert shadow.payload["length_target"]["target_chapters"] > WRITTEN  # room to continue


def test_show_and_check_agree_and_a_superseded_stage_marks_its_dependents(engine, planner):
    first = planner.save_and_confirm(0, foundation())
    planner.save_and_confirm(1, outline())
    second = planner.save_and_confirm(0, foundation(target_chapters=60))  # supersedes the first
    with engine.connect() as conn:
        report = check_plan(conn, planner.work_id)
        status = plan_status(conn, planner.work_id)
    review = [f for f in report.findings if f.code == "upstream_superseded"]
    assert review and first in review[0].message and second in review[0].message
    outline_entry = next(s for s in status["stages"] if s["stage"] == 1)
    assert outline_entry["needsReview"]
    # the outline's 30 chapters no longer match the new 60-chapter target: check blocks, and
    # show does not say writing is ready
    assert report.blocking
    assert status["checkErrors"] == len(report.blocking)
    assert "阻断" in status["next"] and "即可写作" not in status["next"]


def _reviews(engine, work_id):
    from sqlalchemy import select

    from muse.planning.tables import plan_reviews

    with engine.connect() as conn:
        return conn.execute(select(plan_reviews).order_by(plan_reviews.c.created_at)).all()


def test_the_review_mark_is_stored_and_cleared_when_the_stage_is_confirmed_again(engine, planner):
    first = planner.save_and_confirm(0, foundation())
    old_outline = planner.save_and_confirm(1, outline())
    assert _reviews(engine, planner.work_id) == []
    second = planner.save_and_confirm(0, foundation(chars_per_chapter={"min": 2600, "max": 3500}))
    [mark] = _reviews(engine, planner.work_id)
    assert (mark.section_id, mark.basis_id, mark.superseded_by, mark.state) == (
        old_outline,
        first,
        second,
        "open",
    )
    assert (mark.stage, mark.upstream_stage) == (1, 0)
    with engine.begin() as conn:  # stored, not recomputed: the mark holds without the basis
        from muse.planning.tables import plan_sections

        conn.execute(
            plan_sections.update().where(plan_sections.c.id == old_outline).values(basis=[])
        )
        report = check_plan(conn, planner.work_id)
        status = plan_status(conn, planner.work_id)
    [finding] = [f for f in report.findings if f.code == "upstream_superseded"]
    assert finding.severity == "warning" and finding.section_id == old_outline
    assert next(s for s in status["stages"] if s["stage"] == 1)["needsReview"] == [finding.message]
    new_outline = planner.save_and_confirm(
        1, {**outline(), "mainline": "外门弟子一路逆袭，终成一代宗师"}
    )
    [cleared] = _reviews(engine, planner.work_id)
    assert (cleared.state, cleared.cleared_by) == ("cleared", new_outline)
    with engine.connect() as conn:
        report = check_plan(conn, planner.work_id)
        status = plan_status(conn, planner.work_id)
    assert not [f for f in report.findings if f.code == "upstream_superseded"]
    assert all(not s["needsReview"] for s in status["stages"])
