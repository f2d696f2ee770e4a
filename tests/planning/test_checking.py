"""``plan check`` and ``plan show``: the foreshadowing ledger, overdue threads, what blocks the next stage."""

from __future__ import annotations

from muse.planning.checking import check_plan
from muse.planning.status import plan_status
from muse.works.canonical import add_chapter
from tests.support.plans import fine, foundation, han, outline, plant


def test_ledger_follows_each_thread_and_flags_the_overdue(planner, engine, work_id):
    planner.through(3)
    planner.save_and_confirm(4, fine(2, actions=[plant()]))
    planner.save_and_confirm(4, fine(4, actions=[plant(action="推"), plant("铜镜", cards=())]))
    with engine.connect() as conn:
        report = check_plan(conn, work_id)
    ledger = {t.thread: t for t in report.ledger}
    assert (ledger["玉佩"].status, ledger["玉佩"].planted, ledger["玉佩"].advanced) == (
        "已埋",
        2,
        (4,),
    )
    assert ledger["铜镜"].status == "计划外"
    assert not report.blocking

    with engine.begin() as conn:  # the book moves past chapter 8 without paying 玉佩 off
        for n in range(1, 10):
            add_chapter(conn, work_id, n, f"第{n}章", han(600))
    with engine.connect() as conn:
        report = check_plan(conn, work_id)
    assert {t.thread: t.status for t in report.ledger}["玉佩"] == "逾期"
    assert [f.code for f in report.blocking] == ["thread_overdue"]


def test_check_reports_a_confirmed_plan_that_no_longer_holds(planner, engine, work_id):
    planner.through(1)
    planner.save_and_confirm(0, foundation(volume_count=4))  # the outline has 3 volumes
    with engine.connect() as conn:
        report = check_plan(conn, work_id)
    assert "volume_count_mismatch" in {f.code for f in report.blocking}


def test_show_names_the_mode_and_what_blocks(planner, engine, work_id):
    with engine.connect() as conn:
        free = plan_status(conn, work_id)
    assert free["mode"] == "free" and "自由模式" in free["next"]
    planner.save_and_confirm(0, foundation())
    planner.save(
        1,
        {
            **outline(),
            "mainline": "长" * 60,
        },
    )
    with engine.connect() as conn:
        status = plan_status(conn, work_id)
    stage0, stage1, stage2 = status["stages"][:3]
    assert status["mode"] == "planning" and stage0["state"] == "confirmed"
    assert stage1["state"] == "shadow" and stage1["shadows"][0]["errors"] == 1
    assert "主线一句话有 60 字" in stage1["shadows"][0]["firstErrors"][0]
    assert any("阶段 1 · 大纲/卷纲尚未确认" in b for b in stage2["blockers"])
    assert "阶段 1" in status["next"]
