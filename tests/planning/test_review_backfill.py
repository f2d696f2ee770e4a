"""需复核 for works superseded before migration 0022: no stored marks, derived from the history."""

from __future__ import annotations

from sqlalchemy import delete, select

from muse.planning.checking import check_plan
from muse.planning.reviews import derived_reviews, open_reviews
from muse.planning.status import plan_status
from muse.planning.tables import plan_reviews
from tests.support.plans import foundation, outline


def _as_before_0022(engine, work_id):
    """The supersession happened before plan_reviews existed: no row records it."""
    with engine.begin() as conn:
        conn.execute(delete(plan_reviews).where(plan_reviews.c.work_id == work_id))


def test_a_supersession_without_rows_still_marks_what_depended_on_it(engine, planner):
    first = planner.save_and_confirm(0, foundation())
    old_outline = planner.save_and_confirm(1, outline())
    second = planner.save_and_confirm(0, foundation(chars_per_chapter={"min": 2600, "max": 3500}))
    with engine.connect() as conn:
        [stored] = open_reviews(conn, planner.work_id)  # recorded: nothing derived beside it
    _as_before_0022(engine, planner.work_id)
    with engine.connect() as conn:
        [mark] = open_reviews(conn, planner.work_id)
        report = check_plan(conn, planner.work_id)
        status = plan_status(conn, planner.work_id)
    assert (mark.section_id, mark.basis_id, mark.superseded_by) == (old_outline, first, second)
    assert (mark.stage, mark.upstream_stage, mark.reason) == (1, 0, stored.reason)
    [finding] = [f for f in report.findings if f.code == "upstream_superseded"]
    assert finding.severity == "warning" and finding.section_id == old_outline
    assert next(s for s in status["stages"] if s["stage"] == 1)["needsReview"] == [mark.reason]


def test_the_derived_mark_clears_when_the_marked_stage_is_confirmed_again(engine, planner):
    planner.save_and_confirm(0, foundation())
    planner.save_and_confirm(1, outline())
    planner.save_and_confirm(0, foundation(chars_per_chapter={"min": 2600, "max": 3500}))
    _as_before_0022(engine, planner.work_id)
    planner.save_and_confirm(1, {**outline(), "mainline": "外门弟子一路逆袭，终成一代宗师"})
    with engine.connect() as conn:
        assert derived_reviews(conn, planner.work_id) == []
        assert open_reviews(conn, planner.work_id) == []
        report = check_plan(conn, planner.work_id)
        rows = conn.execute(select(plan_reviews)).all()
    assert not [f for f in report.findings if f.code == "upstream_superseded"]
    assert rows == []  # nothing was written by reading


def test_an_unsuperseded_plan_derives_nothing(engine, planner):
    planner.save_and_confirm(0, foundation())
    planner.save_and_confirm(1, outline())
    with engine.connect() as conn:
        assert derived_reviews(conn, planner.work_id) == []
