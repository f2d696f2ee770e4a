"""needs_evidence (spec 001 §6): evidence gaps are searched in the as-of view; found material
stops the run for the author's authorization, nothing found becomes new-setting candidates, and
a gap that collides with canon fails closed."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from muse.flow.accept import accept_candidate
from muse.flow.queries import show_candidate
from muse.flow.run_detail import show_run_detail
from muse.flow.tables import candidates, run_evidence
from muse.knowledge.card_import import import_cards_yaml
from tests.context.test_card_context import CARDS
from tests.support.fakes import write_offline
from tests.support.marked_book import NEXT


@pytest.fixture
def gaps_reported(scripted):
    """The detector reports no problem, only the given evidence gaps."""

    def install(*subjects: str):
        gaps = [{"subject": s, "needed": "前文中关于它的交代"} for s in subjects]
        scripted("detector", "check").reply(
            lambda task_input: {
                "verdict": "needs_evidence",
                "issues": [],
                "evidenceGaps": gaps,
                "summary": "证据不足",
            },
        )

    return install


def _gap_rows(engine, run_id):
    with engine.connect() as conn:
        return (
            conn.execute(
                select(run_evidence)
                .where(run_evidence.c.run_id == run_id)
                .order_by(run_evidence.c.gap_index)
            )
            .mappings()
            .all()
        )


def _candidate_state(engine, candidate_id):
    with engine.connect() as conn:
        return conn.execute(
            select(candidates.c.state).where(candidates.c.id == candidate_id)
        ).scalar()


def test_gap_with_hits_stops_in_authorization_required(engine, book, gaps_reported):
    gaps_reported("标记003号的来历")
    summary = write_offline(engine, book, NEXT)
    assert summary.state == "authorization_required", summary.reason
    assert "由作者决定" in summary.reason and summary.attempt == 1  # no automatic rewrite
    assert _candidate_state(engine, summary.candidate_id) == "REJECTED"
    [row] = _gap_rows(engine, summary.run_id)
    assert row["outcome"] == "found" and row["new_setting"] is None
    chapters = {e["sourceRef"]["chapter"] for e in row["fact_evidence"]}
    assert 3 in chapters and all(c <= NEXT - 1 for c in chapters)  # never past the freeze point
    assert any("标记003号" in e["text"] for e in row["fact_evidence"])
    with engine.connect() as conn:
        detail = show_run_detail(conn, summary.run_id)
    assert detail["evidenceGaps"][0]["outcome"] == "found"
    assert detail["stateLabel"] == "待作者授权"


def test_gap_without_hits_becomes_a_new_setting_candidate(engine, book, gaps_reported):
    gaps_reported("镇魂铃")
    summary = write_offline(engine, book, NEXT)
    assert summary.state == "shadow_ready", summary.reason
    assert summary.new_setting_candidates == [
        {
            "name": "镇魂铃",
            "kind": "other",
            "statement": "前文中关于它的交代",
            "source": "detector_gap",
        }
    ]
    [row] = _gap_rows(engine, summary.run_id)
    assert (row["outcome"], row["fact_evidence"]) == ("new_setting", [])
    with engine.connect() as conn:
        shown = show_candidate(conn, summary.candidate_id)
    semantic = shown["report"]["semantic"]
    assert semantic["status"] == "passed" and semantic["modelVerdict"] == "needs_evidence"
    assert semantic["gapResolution"] == "new_setting_candidates"
    assert semantic["newSettingCandidates"][0]["name"] == "镇魂铃"
    assert shown["report"]["evidenceGaps"][0]["outcome"] == "new_setting"
    # The candidate goes to the author, who may accept it; the setting itself is not canon.
    assert accept_candidate(engine, summary.candidate_id).accepted


def test_declared_new_setting_named_like_a_confirmed_card_fails_closed(
    engine, book, gaps_reported, scripted
):
    with engine.begin() as conn:
        import_cards_yaml(conn, book, CARDS, confirm=True)
    declaration = {"name": "苏晴", "kind": "身份", "description": "苏晴其实是魔教圣女"}
    scripted("writer", "generate").edit(lambda d: {**d, "newSettingDeclarations": [declaration]})
    gaps_reported("苏晴的真实身份")
    summary = write_offline(engine, book, NEXT)
    assert summary.state == "blocked_user_action" and "正典冲突" in summary.reason
    assert _candidate_state(engine, summary.candidate_id) == "REJECTED"
    [row] = _gap_rows(engine, summary.run_id)
    assert row["outcome"] == "conflict" and "苏晴" in row["note"]


def test_gap_about_a_card_in_open_conflict_fails_closed(engine, book, gaps_reported):
    cards = CARDS + (
        "  - 类型: 物品\n    名称: 玄铁剑\n    字段:\n      简介: 一柄重剑。\n      用途: 斩妖\n"
        "    演变历程:\n      - {章: 2, 周期: 登场, 台阶: 出世, 出处: [{章: 2, 引文: 林远在第2章里行走山间}]}\n"
    )
    with engine.begin() as conn:
        import_cards_yaml(conn, book, cards, confirm=True)
        import_cards_yaml(conn, book, cards.replace("用途: 斩妖", "用途: 护身"))  # contradiction
    gaps_reported("玄铁剑的来历")
    summary = write_offline(engine, book, NEXT)
    assert summary.state == "blocked_user_action", summary.reason
    [row] = _gap_rows(engine, summary.run_id)
    assert row["outcome"] == "conflict" and "玄铁剑" in row["note"]


def test_a_mix_of_found_and_new_goes_to_the_author(engine, book, gaps_reported):
    gaps_reported("镇魂铃", "标记005号")
    summary = write_offline(engine, book, NEXT)
    assert summary.state == "authorization_required"
    assert [r["outcome"] for r in _gap_rows(engine, summary.run_id)] == ["new_setting", "found"]


def _rejection(quote_of, evidence):
    """A "rejected" report with one blocking issue: ``quote_of(body)`` and ``evidence``."""

    def report(task_input):
        body = task_input["candidate"]["body"]
        return {
            "verdict": "rejected",
            "issues": [
                {
                    "category": "fact_conflict",
                    "severity": "blocking",
                    "quote": quote_of(body),
                    "explanation": "与前文矛盾",
                    "evidence": evidence,
                }
            ],
            "evidenceGaps": [],
            "summary": "有阻断问题",
        }

    return report


UNVERIFIABLE_REJECTIONS = {
    "real quote, empty evidence": _rejection(lambda body: body[:8], []),
    "blank quote": _rejection(lambda body: "   ", []),
    "empty quote": _rejection(lambda body: "", []),
    "rejected without an issue": lambda task_input: {
        "verdict": "rejected",
        "issues": [],
        "evidenceGaps": [],
        "summary": "不行",
    },
}


@pytest.mark.parametrize("case", sorted(UNVERIFIABLE_REJECTIONS))
def test_an_unverifiable_rejection_never_becomes_a_pass(engine, book, scripted, case):
    scripted("detector", "check").reply(UNVERIFIABLE_REJECTIONS[case])
    summary = write_offline(engine, book, NEXT)
    assert summary.state == "authorization_required", (summary.state, summary.reason)
    assert "由作者决定" in summary.reason
    assert summary.new_setting_candidates == []
    assert _candidate_state(engine, summary.candidate_id) == "REJECTED"
    with engine.connect() as conn:
        semantic = show_candidate(conn, summary.candidate_id)["report"]["semantic"]
    assert semantic["status"] != "passed" and semantic["gapResolution"] is None
