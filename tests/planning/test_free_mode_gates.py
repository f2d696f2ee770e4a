"""Free mode (no 定盘) decided deliberately (issue 19): the fine outline's fit with a plan is
only reported, but the gates that protect the chapter's content block in every mode — the hard
constraints (CONTENT_GATES), the payload's schema and its target chapter."""

from __future__ import annotations

import pytest
from sqlalchemy import update

from muse.core.errors import InvalidInput
from muse.planning.findings import GateBlocked
from muse.planning.fine_outlines import confirm_section, load_confirmed, save_fine_outline
from muse.planning.tables import plan_sections
from muse.works.catalog import create_work
from tests.support.plans import fine


@pytest.fixture
def free_work(engine) -> int:
    with engine.begin() as conn:
        return create_work(conn, "自由之书")


def _no_foreshadowing(chapter: int) -> dict:
    data = fine(chapter)
    data["hard_constraints"]["foreshadowing_note"] = ""
    return data


def test_free_mode_refuses_to_confirm_an_outline_with_incomplete_hard_constraints(
    engine, free_work
):
    with engine.begin() as conn:
        section_id = save_fine_outline(conn, free_work, _no_foreshadowing(1))
    with engine.begin() as conn, pytest.raises(GateBlocked) as caught:
        confirm_section(conn, section_id)
    assert "foreshadowing_missing" in {f.code for f in caught.value.findings}


def test_free_mode_only_reports_how_an_outline_fits_a_plan(engine, free_work):
    with engine.begin() as conn:
        warnings = confirm_section(conn, save_fine_outline(conn, free_work, fine(1, size=400)))
    assert [(f.code, f.severity) for f in warnings] == [("outline_too_long", "warning")]


def _confirmed_then_changed(engine, work_id: int, **payload_changes) -> None:
    with engine.begin() as conn:
        section_id = save_fine_outline(conn, work_id, fine(1))
        confirm_section(conn, section_id)
        payload = {**fine(1), **payload_changes}
        conn.execute(
            update(plan_sections).where(plan_sections.c.id == section_id).values(payload=payload)
        )


def test_free_mode_generation_refuses_a_hole_in_the_hard_constraints(engine, free_work):
    with engine.begin() as conn:
        section_id = save_fine_outline(conn, free_work, fine(1))
        confirm_section(conn, section_id)
        conn.execute(
            update(plan_sections)
            .where(plan_sections.c.id == section_id)
            .values(payload=_no_foreshadowing(1))
        )
    with engine.connect() as conn, pytest.raises(GateBlocked) as caught:
        load_confirmed(conn, free_work, 1)
    assert "foreshadowing_missing" in {f.code for f in caught.value.findings}


def test_generation_refuses_an_outline_for_another_chapter_in_every_mode(engine, free_work):
    _confirmed_then_changed(engine, free_work, target_chapter=7)
    with engine.connect() as conn, pytest.raises(InvalidInput, match="写的是第 7 章"):
        load_confirmed(conn, free_work, 1)


def test_generation_refuses_a_broken_payload_with_a_chinese_message(engine, free_work):
    _confirmed_then_changed(engine, free_work, hard_constraints={"hard_events": "不是列表"})
    with engine.connect() as conn, pytest.raises(InvalidInput):
        load_confirmed(conn, free_work, 1)


def test_the_outline_size_gate_reads_the_same_target_from_the_latest_chapters_only(engine):
    """The gate samples the latest 20 chapters of at least 500 Han characters before the
    target; reading only those gives the target the whole list gives, on books of short, empty
    and long chapters (and the size finding it decides)."""
    import random

    from muse.planning.contracts import FineOutline
    from muse.planning.plan_view import load_plan_view
    from muse.planning.text_measures import chapter_target
    from muse.works import chapter_lengths
    from muse.works.canonical import add_chapter

    rng = random.Random(12)
    for book in range(6):
        with engine.begin() as conn:
            work = create_work(conn, f"长短之书{book}")
            chapters = rng.randint(0, 45)
            for n in range(1, chapters + 1):
                han = rng.choice([0, 1, 120, 499, 500, 501, 900, 2400, 3100, 5200])
                add_chapter(conn, work, n, f"第{n}章", "字" * han + "。")
        for target in {1, 2, chapters // 2 + 1, chapters, chapters + 1}:
            outline = FineOutline.model_validate(fine(max(target, 1)))
            with engine.connect() as conn:
                everything = [
                    (n, h) for n, h in chapter_lengths(conn, work) if n < outline.target_chapter
                ]
                lazy = load_plan_view(conn, work)
                assert chapter_target(
                    outline, lazy.lengths_before(outline.target_chapter), 3000
                ) == chapter_target(outline, everything, 3000)
