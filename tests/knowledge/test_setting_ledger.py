"""The setting ledger: setting × chapter consumption matrix, untouched cards, arcs that do not close."""

from __future__ import annotations

import pytest

from muse.knowledge.cards import insert_card
from muse.knowledge.contracts import CardStatus
from muse.knowledge.setting_gates import arc_problems, setting_ledger
from tests.knowledge.builders import card
from tests.knowledge.conftest import spec, text_of

CLOSED = {
    "milestones": [{"chapter": 1, "cycle": "登场"}],
    "growth_arc": [{"chapter": 100, "cycle": "结局"}],
}


def test_matrix_counts_names_and_aliases_per_canonical_chapter(conn, work):
    insert_card(conn, work, spec(aliases=["美猴王", "悟空"], **CLOSED), CardStatus.confirmed)
    insert_card(
        conn, work, spec("如意金箍棒", type="artifact", aliases=["如意棒"]), CardStatus.confirmed
    )
    insert_card(conn, work, spec("唐僧", **CLOSED), CardStatus.confirmed)
    insert_card(conn, work, spec("草稿", aliases=["悟空"]), CardStatus.draft)
    ledger = setting_ledger(conn, work)
    rows = {r.name: r for r in ledger.rows}
    expected = {}
    for chapter in (1, 2, 3, 4):
        text = text_of(chapter)
        # 孙悟空 is counted once as itself, never again as 悟空 inside it
        n = (
            text.count("孙悟空")
            + text.count("美猴王")
            + (text.count("悟空") - text.count("孙悟空"))
        )
        if n:
            expected[chapter] = n
    assert rows["孙悟空"].mentions == expected
    assert rows["如意金箍棒"].mentions == {3: 1}
    assert ledger.untouched == [rows["唐僧"].card_id]
    assert ledger.chapters == [1, 2, 3, 4]
    assert "草稿" not in rows


def test_the_ledger_stops_at_upto(conn, work):
    insert_card(conn, work, spec(aliases=["美猴王"], **CLOSED), CardStatus.confirmed)
    ledger = setting_ledger(conn, work, upto=2)
    assert ledger.chapters == [1, 2]
    assert set(ledger.rows[0].mentions) <= {1, 2}


@pytest.mark.parametrize(
    ("parts", "problems"),
    [
        (CLOSED, []),
        ({"milestones": [{"chapter": 1, "cycle": "登场"}, {"chapter": 9, "cycle": "结局"}]}, []),
        ({"growth_arc": [{"cycle": "登场"}, {"cycle": "成长"}, {"cycle": "结局"}]}, []),
        ({"milestones": [{"chapter": 1, "cycle": "登场"}]}, ["缺少「结局」"]),
        ({"growth_arc": [{"chapter": 50, "cycle": "结局"}]}, ["缺少「登场」"]),
        ({}, ["缺少「登场」", "缺少「结局」"]),
        (
            {
                "milestones": [{"chapter": 9, "cycle": "登场"}],
                "growth_arc": [{"chapter": 3, "cycle": "结局"}],
            },
            ["早于「登场」"],
        ),
    ],
)
def test_a_planned_arc_must_close_from_debut_to_ending(parts, problems):
    found = arc_problems(card(**parts))
    assert len(found) == len(problems)
    assert all(p in f for p, f in zip(problems, found, strict=True))


def test_types_without_an_arc_are_never_unclosed(conn, work):
    insert_card(conn, work, spec("三界", type="world"), CardStatus.confirmed)
    insert_card(conn, work, spec(), CardStatus.confirmed)
    assert [a.name for a in setting_ledger(conn, work).unclosed] == ["孙悟空"]
