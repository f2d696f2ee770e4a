"""narrativeState from the approved fact ledger: every value sourced, the rest explicitly unknown."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from muse.context.narrative_state import derive_narrative_state
from muse.knowledge.fact_types import FactType, LedgerEntry


def fact(n: int, chapter: int, kind: str, subject: str, quote: str, **payload) -> LedgerEntry:
    return LedgerEntry(
        id=f"fact_{n}",
        work_id=1,
        delta_id=f"delta_{n}",
        type=FactType(kind),
        chapter=chapter,
        subject=subject,
        payload=payload,
        evidence_quote=quote,
        approved_by="author",
        approved_at="2026-01-01T00:00:00Z",
    )


LEDGER = [
    fact(1, 1, "location", "林远", "林远来到青云山门。", location="青云山门"),
    fact(2, 2, "location", "苏晴", "苏晴回到药园。", location="药园"),
    fact(3, 3, "location", "林远", "林远走进藏经阁。", location="藏经阁"),
    fact(4, 3, "possession", "林远", "林远得到了一枚玉佩。", item="玉佩", change="获得"),
    fact(5, 3, "entity_state", "青云山", "此时已是深夜。", attribute="时辰", value="深夜"),
    fact(6, 4, "location", "林远", "林远离开了山门。", location="山下"),  # after the freeze
]


def test_values_come_from_the_ledger_with_their_sources():
    state = derive_narrative_state(LEDGER, 3, "……")
    assert state.character_positions == {"林远": "藏经阁", "苏晴": "药园"}
    assert (state.place, state.time) == ("藏经阁", "深夜")
    assert state.immediate_situation == "林远在藏经阁；林远获得玉佩；青云山时辰：深夜"
    by_field = {s.field: s for s in state.sources}
    assert by_field["position:林远"].ledger_id == "fact_3"
    assert by_field["position:苏晴"].chapter == 2
    assert by_field["place"].quote == "林远走进藏经阁。"
    assert by_field["time"].ledger_id == "fact_5"
    assert state.unknown == {}


def test_nothing_after_the_freeze_point_is_used():
    state = derive_narrative_state(LEDGER, 3, "")
    assert "山下" not in state.character_positions.values()
    assert all(s.chapter <= 3 for s in state.sources)


@dataclass(frozen=True)
class Unknown:
    as_of: int
    ledger: tuple[LedgerEntry, ...]
    fields: tuple[str, ...]


@pytest.mark.parametrize(
    "case",
    [
        Unknown(3, (), ("characterPositions", "place", "time", "immediateSituation")),
        Unknown(2, tuple(LEDGER), ("time",)),  # a location in chapter 2, no time fact
        Unknown(5, tuple(LEDGER[:5]), ("place", "time", "immediateSituation")),  # nothing in 5
    ],
    ids=["empty-ledger", "no-time", "last-chapter-silent"],
)
def test_what_cannot_be_derived_is_unknown_with_a_reason(case):
    state = derive_narrative_state(case.ledger, case.as_of, "")
    assert set(state.unknown) == set(case.fields)
    assert all(f"第 {case.as_of} 章" in r or "截至" in r for r in state.unknown.values())
    for name in case.fields:
        attribute = {"characterPositions": "character_positions"}.get(name, name)
        snake = "immediate_situation" if name == "immediateSituation" else attribute
        assert not getattr(state, snake)


def test_the_wire_form_carries_sources_and_unknowns():
    wire = derive_narrative_state(LEDGER, 3, "").wire()
    assert wire["sources"][0]["ledgerId"] and "unknown" in wire and "characterPositions" in wire
