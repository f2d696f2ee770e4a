"""The planner drafts each stage from what is confirmed above it; drafts are shadow; batches resume."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from muse.agents.providers.offline import register_offline_generator, unregister_offline_generator
from muse.agents.tables import model_calls
from muse.knowledge.drafts import confirm_all, list_drafts
from muse.offline import planner as offline_planner
from muse.patterns.builtin import install_builtin_patterns
from muse.planning.batches import get_batch, resume_batch, start_outline_batch
from muse.planning.contracts import FineOutline
from muse.planning.findings import GateBlocked
from muse.planning.planner import draft_stage
from muse.planning.sections import get_section, list_sections
from tests.support.plans import Planner

OFFLINE = {"provider": "offline", "model": "offline-1"}


@pytest.fixture(autouse=True)
def _offline_planner():
    yield
    unregister_offline_generator("planner", "draft")  # undo any test's replacement


def test_drafting_needs_the_upper_stages_confirmed(engine, work_id):
    with pytest.raises(GateBlocked, match="阶段 0 · 定盘尚未确认"):
        draft_stage(engine, work_id, 1, **OFFLINE)
    with engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(model_calls)).scalar() == 0


def test_variants_are_distinct_shadow_drafts_of_one_group(engine, work_id):
    drafted = draft_stage(engine, work_id, "定盘", **OFFLINE, variants=3)
    with engine.connect() as conn:
        sections = [get_section(conn, d.section_id) for d in drafted]
    assert {s.state for s in sections} == {"shadow"}
    assert len({s.variant_group for s in sections}) == 1 and sections[0].variant_group
    assert [s.variant_index for s in sections] == [1, 2, 3]
    assert len({s.payload_sha256 for s in sections}) == 3
    assert all(s.origin == "planner" and s.origin_detail["receiptId"] for s in sections)


def test_every_stage_drafts_from_the_confirmed_plan_and_passes_its_gates(engine, work_id):
    p = Planner(engine, work_id)
    for stage in (0, 1):
        [d] = draft_stage(engine, work_id, stage, **OFFLINE)
        assert not [f for f in d.findings if f.severity == "error"], d.findings
        p.confirm(d.section_id)
    [cards] = draft_stage(engine, work_id, 2, **OFFLINE)
    assert cards.section_id is None and {c["status"] for c in cards.card_drafts} == {"new"}
    with engine.connect() as conn:
        assert len(list_drafts(conn, work_id)) == 2  # knowledge drafts, not confirmed cards
    with engine.begin() as conn:  # the author confirms them
        confirm_all(conn, work_id)
    p.confirm(p.signoff())
    with engine.begin() as conn:
        install_builtin_patterns(conn)
    [a] = draft_stage(engine, work_id, 3, **OFFLINE)
    p.confirm(a.section_id)
    for chapter in (1, 2):
        [o] = draft_stage(engine, work_id, 4, **OFFLINE, chapter=chapter)
        p.confirm(o.section_id)
    with engine.connect() as conn:
        plant = get_section(conn, o.section_id).payload["hard_constraints"]["foreshadowing"]
    assert [a["action"] for a in plant] == ["埋"]  # the outline's thread is planted as planned


def test_batch_resumes_after_a_failure_at_item_37_of_100(engine, work_id):
    p = Planner(engine, work_id)
    p.through(3)
    calls: list[int] = []
    failed = {"once": False}

    def flaky(task_input, output_model):
        if output_model is FineOutline:
            calls.append(task_input["chapter"])
            if task_input["chapter"] == 37 and not failed["once"]:
                failed["once"] = True
                raise RuntimeError("模拟的提供方故障")
        return offline_planner.generate(task_input, output_model)

    register_offline_generator("planner", "draft", flaky)
    # a 100-chapter plan: widen the book so every chapter is inside the current volume
    p.save_and_confirm(0, {**_wide_foundation()})
    p.save_and_confirm(1, _wide_outline())
    report = start_outline_batch(engine, work_id, 1, 100, **OFFLINE)
    assert (report.state, report.done) == ("failed", 36)
    assert "第 37 项（第 37 章）失败" in report.last_error  # the cause is named:
    assert "RuntimeError：模拟的提供方故障" in report.last_error
    with engine.connect() as conn:
        assert len(list_sections(conn, work_id, stage=4)) == 36

    resumed = resume_batch(engine, report.id)
    assert (resumed.state, resumed.done, resumed.attempts) == ("completed", 100, 2)
    assert calls == list(range(1, 38)) + list(range(37, 101))  # 1–36 never redrafted
    with engine.connect() as conn:
        chapters = [s.target_chapter for s in list_sections(conn, work_id, stage=4)]
        assert chapters == list(range(1, 101))
        assert get_batch(conn, report.id).last_error is None


def test_resume_of_a_completed_batch_changes_nothing(engine, work_id):
    Planner(engine, work_id).through(3)
    report = start_outline_batch(engine, work_id, 1, 2, **OFFLINE)
    assert resume_batch(engine, report.id) == report


def _wide_foundation() -> dict:
    from tests.support.plans import foundation

    return foundation(target_chapters=100, volume_count=1)


def _wide_outline() -> dict:
    from tests.support.plans import outline, volume

    data = outline()
    data["volumes"] = [volume(1, 1, 100, 1200)]
    data["current_volume"]["beats"][0]["last_chapter"] = 100
    return data
