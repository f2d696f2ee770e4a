"""One case per mechanical gate: a valid plan with one thing changed is refused, naming the gate.

The baseline of every stage confirms (``test_baseline_confirms``), so each refusal below comes
from the one change its case makes; removing a gate makes its case fail.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest

from muse.knowledge.contracts import CardSpec, Cycle, PlannedStep
from muse.patterns.builtin import install_builtin_patterns
from muse.planning.findings import GateBlocked
from tests.support.plans import Planner, assembly, card, fine, foundation, outline, plant, volume


def changed(base: dict, path: str, value) -> dict:
    keys = [int(k) if k.isdigit() else k for k in path.split(".")]
    node = base
    for k in keys[:-1]:
        node = node[k]
    node[keys[-1]] = value
    return base


def install(p: Planner) -> None:
    with p.engine.begin() as conn:
        install_builtin_patterns(conn)


def confirm_fine(*outlines: dict) -> Callable[[Planner], None]:
    def setup(p: Planner) -> None:
        for o in outlines:
            p.save_and_confirm(4, o)

    return setup


def signoff_with(*specs: CardSpec) -> Callable[[Planner], dict]:
    def build(p: Planner) -> dict:
        p.cards(*specs)
        with p.engine.begin() as conn:
            from muse.planning.saving import build_signoff

            return build_signoff(conn, p.work_id)

    return build


def tampered_signoff(p: Planner) -> dict:
    payload = signoff_with(card("林远"))(p)
    payload["cards"][0]["spec_sha256"] = "0" * 64
    return payload


@dataclass(frozen=True)
class Case:
    name: str
    stage: int
    payload: Callable[..., dict]  # () -> dict, or (planner) -> dict when needs_planner
    code: str
    setup: Callable[[Planner], None] | None = None
    needs_planner: bool = False


CASES = [
    Case(
        "volumes exceed chapters", 0, lambda: foundation(volume_count=40), "volumes_exceed_chapters"
    ),
    Case(
        "mainline over 50",
        1,
        lambda: changed(outline(), "mainline", "长" * 51),
        "mainline_too_long",
    ),
    Case(
        "volume numbering", 1, lambda: changed(outline(), "volumes.2.number", 5), "volume_numbering"
    ),
    Case(
        "volume count ≠ 分卷数",
        1,
        lambda: changed(outline(), "volumes", [volume(1, 1, 10), volume(2, 11, 30, 240)]),
        "volume_count_mismatch",
    ),
    Case(
        "chapters ≠ 目标章数",
        1,
        lambda: changed(outline(), "volumes.2", volume(3, 21, 25, 60)),
        "chapter_count_mismatch",
    ),
    Case(
        "volume gap",
        1,
        lambda: changed(outline(), "volumes.1", volume(2, 12, 20, 110)),
        "volume_ranges",
    ),
    Case(
        "unknown current volume",
        1,
        lambda: changed(outline(), "current_volume.volume", 4),
        "current_volume_unknown",
    ),
    Case(
        "beats outside current volume",
        1,
        lambda: changed(outline(), "current_volume.beats.0.last_chapter", 12),
        "current_beats_outside",
    ),
    Case(
        "sketch over 0.5 %",
        1,
        lambda: changed(outline(), "volumes.1", volume(2, 11, 20, 200)),
        "sketch_too_long",
    ),
    Case(
        "current sketch under 0.3 %",
        1,
        lambda: changed(outline(), "volumes.0", volume(1, 1, 10, 50)),
        "sketch_too_short",
    ),
    Case(
        "thread paid before planted",
        1,
        lambda: changed(outline(), "foreshadowing_threads.0.payoff_chapter", 1),
        "thread_order",
    ),
    Case(
        "thread beyond the book",
        1,
        lambda: changed(outline(), "foreshadowing_threads.0.payoff_chapter", 40),
        "thread_out_of_range",
    ),
    Case(
        "outline revives its rejected direction",
        1,
        lambda: changed(outline(), "mainline", "主角重生回到少年时代再战宗门"),
        "rejected_revived",
    ),
    Case(
        "arc without 结局",
        2,
        signoff_with(
            CardSpec(
                type="character",
                name="林远",
                fields=card("林远").fields,
                growth_arc=[PlannedStep(chapter=1, cycle=Cycle.debut)],
            )
        ),
        "arc_open",
        needs_planner=True,
    ),
    Case(
        "arc beyond the book",
        2,
        signoff_with(card("林远", end=45)),
        "arc_out_of_range",
        needs_planner=True,
    ),
    Case("card changed since the ledger", 2, tampered_signoff, "card_changed", needs_planner=True),
    Case("no pattern bound", 3, lambda: assembly(patterns=[]), "patterns_empty", install),
    Case(
        "unknown pattern",
        3,
        lambda: assembly(patterns=[{"key": "no-such", "purpose": "x"}]),
        "pattern_missing",
        install,
    ),
    Case(
        "pattern hash pinned wrong",
        3,
        lambda: assembly(
            patterns=[{"key": "chapter-end-hook", "purpose": "x", "content_sha256": "0" * 64}]
        ),
        "pattern_hash_mismatch",
        install,
    ),
    Case("fine outline over 5 %", 4, lambda: fine(1, size=200), "outline_too_long"),
    Case(
        "no foreshadowing and no reason",
        4,
        lambda: changed(fine(1), "hard_constraints.foreshadowing_note", ""),
        "foreshadowing_missing",
    ),
    Case("chapter beyond the book", 4, lambda: fine(31), "chapter_out_of_range"),
    Case(
        "chapter outside the current volume", 4, lambda: fine(12), "chapter_outside_current_volume"
    ),
    Case(
        "target chars outside 定盘",
        4,
        lambda: fine(1, target_chars=5000, size=170),
        "target_chars_out_of_range",
    ),
    Case(
        "fine outline revives a rejected direction",
        4,
        lambda: changed(fine(1), "hard_constraints.hard_events.0.text", "林远重生回到少年"),
        "rejected_revived",
    ),
    Case(
        "收 of a thread never planted",
        4,
        lambda: fine(3, actions=[plant("铜镜", "收", ())]),
        "thread_never_planted",
    ),
    Case(
        "推 before the planned plant",
        4,
        lambda: fine(1, actions=[plant(action="推")]),
        "thread_before_plant",
    ),
    Case(
        "收 before the planned payoff",
        4,
        lambda: fine(3, actions=[plant(action="收")]),
        "thread_paid_early",
    ),
    Case(
        "planned payoff missing",
        4,
        lambda: fine(8),
        "thread_payoff_missing",
        confirm_fine(fine(2, actions=[plant()])),
    ),
    Case(
        "payoff overdue",
        4,
        lambda: fine(9),
        "thread_overdue",
        confirm_fine(fine(2, actions=[plant()])),
    ),
    Case(
        "thread paid twice",
        4,
        lambda: fine(9, actions=[plant(action="收")]),
        "thread_already_paid",
        confirm_fine(fine(2, actions=[plant()]), fine(8, actions=[plant(action="收")])),
    ),
    Case(
        "foreshadowing touches an unknown card",
        4,
        lambda: fine(2, actions=[plant(cards=["无名氏"])]),
        "foreshadowing_card_unknown",
    ),
]


def _payload(case: Case, planner: Planner) -> dict:
    return case.payload(planner) if case.needs_planner else case.payload()


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_gate_refuses_confirmation(case: Case, planner: Planner):
    planner.through(case.stage - 1)
    if case.setup:
        case.setup(planner)
    section = planner.save(case.stage, _payload(case, planner))
    with pytest.raises(GateBlocked) as refused:
        planner.confirm(section)
    found = {f.code for f in refused.value.findings}
    assert case.code in found, refused.value.message


def test_baseline_confirms(planner: Planner):
    planner.through(3)
    for outline_ in (
        fine(1),
        fine(2, actions=[plant()]),
        fine(4, actions=[plant(action="推")]),
        fine(8, actions=[plant(action="收")]),
    ):
        planner.save_and_confirm(4, outline_)


def confirm_outline(p: Planner) -> None:
    p.save_and_confirm(1, outline())


WARNINGS = [
    Case(
        "field in doubt",
        0,
        lambda: changed(foundation(), "work_core.truth", "字段存疑：尚未想好"),
        "field_in_doubt",
    ),
    Case(
        "recommended field missing",
        1,
        lambda: changed(outline(), "foreshadowing_threads", []),
        "recommended_missing",
    ),
    Case(
        "future sketch thin",
        1,
        lambda: changed(outline(), "volumes.2", volume(3, 21, 30, 40)),
        "sketch_thin",
    ),
    Case(
        "rejected direction dropped",
        1,
        lambda: changed(outline(), "rejected_directions", []),
        "rejected_dropped",
        confirm_outline,
    ),
    Case(
        "thread card without card",
        2,
        signoff_with(card("沈烈")),
        "thread_card_unknown",
        needs_planner=True,
    ),
    Case(
        "short sample passage",
        3,
        lambda: changed(assembly(), "style.sample_passage", "太短。"),
        "sample_short",
        install,
    ),
    Case("fine outline thin", 4, lambda: fine(1, size=60), "outline_thin"),
    Case(
        "unplanned thread",
        4,
        lambda: fine(1, actions=[plant("铜镜", cards=())]),
        "thread_unplanned",
    ),
    Case(
        "entity without card",
        4,
        lambda: changed(fine(1), "hard_constraints.required_entities.0.name", "路人甲"),
        "entity_unknown",
    ),
]


@pytest.mark.parametrize("case", WARNINGS, ids=lambda c: c.name)
def test_reported_but_not_blocking(case: Case, planner: Planner):
    planner.through(case.stage - 1)
    if case.setup:
        case.setup(planner)
    section = planner.save(case.stage, _payload(case, planner))
    warnings = planner.confirm(section)
    assert case.code in {f.code for f in warnings if f.severity == "warning"}
