"""Stage order: a stage is confirmed, and feeds generation, only after every stage before it."""

import pytest

from muse.core.errors import StaleTransition
from muse.patterns.bindings import load_bound_patterns, load_confirmed_style
from muse.patterns.builtin import install_builtin_patterns
from muse.planning.findings import GateBlocked
from muse.planning.fine_outlines import load_confirmed
from muse.planning.sections import discard_section, get_section
from tests.support.plans import assembly, fine, foundation, outline, plant


def codes(err: GateBlocked) -> set[str]:
    return {f.code for f in err.findings}


def test_confirming_stage_2_before_stage_1_is_refused(planner):
    planner.save_and_confirm(0, foundation())
    planner.cards()
    signoff = planner.signoff()
    with pytest.raises(GateBlocked, match="阶段 1 · 大纲/卷纲尚未确认") as refused:
        planner.confirm(signoff)
    assert codes(refused.value) == {"stage_order"}
    planner.save_and_confirm(1, outline())
    planner.confirm(signoff)  # the same draft passes once its upper stage is confirmed


def test_confirming_stage_1_without_a_foundation_is_refused(planner):
    section = planner.save(1, outline())
    with pytest.raises(GateBlocked, match="阶段 0 · 定盘尚未确认"):
        planner.confirm(section)


def test_a_refused_confirmation_leaves_the_draft_shadow(planner, engine):
    section = planner.save(1, outline())
    with pytest.raises(GateBlocked):
        planner.confirm(section)
    with engine.connect() as conn:
        assert get_section(conn, section).state == "shadow"


def test_only_shadow_sections_can_be_confirmed_or_discarded(planner, engine):
    section = planner.save_and_confirm(0, foundation())
    with pytest.raises(StaleTransition, match="shadow"):
        planner.confirm(section)
    with pytest.raises(StaleTransition, match="shadow"), engine.begin() as conn:
        discard_section(conn, section)


def test_free_mode_fine_outline_feeds_generation_without_stages(planner, engine, work_id):
    section = planner.save_and_confirm(4, fine(3, actions=[plant(action="推")]))
    with engine.connect() as conn:
        assert load_confirmed(conn, work_id, 3)[0] == section


def test_free_mode_reports_fine_outline_problems_as_warnings(planner, engine):
    section = planner.save(4, fine(3, size=400))  # far above 5 %
    warnings = planner.confirm(section)
    assert any(f.code == "outline_too_long" and f.severity == "warning" for f in warnings)


def test_a_foundation_draft_starts_planning_mode_and_gates_generation(planner, engine, work_id):
    planner.save_and_confirm(4, fine(3))
    draft = planner.save(0, foundation())
    with (
        pytest.raises(GateBlocked, match="不能进入生成上下文") as refused,
        engine.connect() as conn,
    ):
        load_confirmed(conn, work_id, 3)
    assert codes(refused.value) == {"stage_order"}
    with pytest.raises(GateBlocked, match="阶段 3 · 范式与文风尚未确认"):
        planner.save_and_confirm(4, fine(4))
    with engine.begin() as conn:  # discarding the only 定盘 draft returns to free mode
        discard_section(conn, draft)
    with engine.connect() as conn:
        assert load_confirmed(conn, work_id, 3)


def test_fine_outline_feeds_generation_once_stages_0_to_3_are_confirmed(planner, engine, work_id):
    planner.through(3)
    section = planner.save_and_confirm(4, fine(1))
    with engine.connect() as conn:
        assert load_confirmed(conn, work_id, 1)[0] == section


def test_generation_gate_rechecks_against_a_newer_upper_plan(planner, engine, work_id):
    planner.through(3)
    planner.save_and_confirm(4, fine(2, actions=[plant()]))
    newer = outline()
    newer["foreshadowing_threads"][0]["plant_chapter"] = 1  # 玉佩 now planted in chapter 1
    newer["rejected_directions"].append(
        {"id": "X2", "direction": "山门受挫", "reason": "太俗", "keywords": ["山门前受挫"]}
    )
    planner.save_and_confirm(1, newer)
    with pytest.raises(GateBlocked, match="山门受挫") as refused, engine.connect() as conn:
        load_confirmed(conn, work_id, 2)
    assert "rejected_revived" in codes(refused.value)


def test_unconfirmed_assembly_never_reaches_bindings_or_style(planner, engine, work_id):
    planner.through(2)
    with engine.begin() as conn:
        install_builtin_patterns(conn)
    first = planner.save(3, assembly())
    with engine.connect() as conn:
        assert load_bound_patterns(conn, work_id) == []
        assert load_confirmed_style(conn, work_id) is None
    planner.confirm(first)
    second = planner.save(3, assembly(patterns=[{"key": "setback-then-payoff", "purpose": "爽点"}]))
    with engine.connect() as conn:
        bound = load_bound_patterns(conn, work_id)
        style = load_confirmed_style(conn, work_id)
    assert [(p["key"], p["assemblySectionId"]) for p in bound] == [("chapter-end-hook", first)]
    assert style["assemblySectionId"] == first and style["personViewpoint"] == "第三人称有限视角"
    planner.confirm(second)
    with engine.connect() as conn:
        assert [p["key"] for p in load_bound_patterns(conn, work_id)] == ["setback-then-payoff"]
        assert load_confirmed_style(conn, work_id)["assemblySectionId"] == second
    with engine.connect() as conn:
        assert get_section(conn, first).state == "superseded"


def test_an_assembly_in_a_work_without_stages_cannot_be_confirmed(planner, engine, work_id):
    with engine.begin() as conn:
        install_builtin_patterns(conn)
    section = planner.save(3, assembly())
    with pytest.raises(GateBlocked, match="阶段 0 · 定盘尚未确认"):
        planner.confirm(section)
    with engine.connect() as conn:
        assert (
            load_bound_patterns(conn, work_id) == [] and load_confirmed_style(conn, work_id) is None
        )


def test_generation_stops_when_the_outline_no_longer_fits_a_newer_foundation(
    planner, engine, work_id
):
    planner.through(3)
    planner.save_and_confirm(4, fine(1))
    planner.save_and_confirm(0, foundation(volume_count=4))  # the confirmed outline has 3 volumes
    refusal = pytest.raises(GateBlocked, match="与已确认定盘的分卷数 4 不一致")
    with refusal as refused, engine.connect() as conn:
        load_confirmed(conn, work_id, 1)
    assert "volume_count_mismatch" in codes(refused.value)
