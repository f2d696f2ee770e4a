"""Fact deltas: a closed set of six types, verbatim evidence, approval into the ledger."""

from __future__ import annotations

import typing
import unicodedata

import pytest
from sqlalchemy import Engine, func, select

from muse.core.errors import ContractViolation, InvalidInput
from muse.knowledge.fact_types import FACT_TYPE_LABELS, FactDeltaProposal, FactType
from muse.knowledge.facts import (
    approve_fact_delta,
    fact_ledger_entries,
    list_fact_deltas,
    propose_fact_delta,
    reject_fact_delta,
)
from muse.knowledge.source_refs import revalidate_source_refs
from muse.knowledge.tables import fact_deltas, fact_ledger
from muse.works.canonical import add_chapter, write_revision
from muse.works.catalog import create_work
from tests.knowledge.xiyouji import CHAPTERS
from tests.support.cards import text_of

ONE_OF_EACH = [
    {
        "type": "entity_state",
        "chapter": 1,
        "subject": "石猴",
        "attribute": "身份",
        "value": "众猴之王",
        "evidence_quote": "我等即拜他为王",
    },
    {
        "type": "relation",
        "chapter": 1,
        "subject": "美猴王",
        "target": "祖师",
        "relation": "师父",
        "change": "建立",
        "evidence_quote": "师父，师父！我弟子志心朝礼",
    },
    {
        "type": "location",
        "chapter": 3,
        "subject": "悟空",
        "location": "森罗殿",
        "evidence_quote": "径登森罗殿上",
    },
    {
        "type": "possession",
        "chapter": 3,
        "subject": "悟空",
        "item": "如意棒",
        "change": "获得",
        "evidence_quote": "悟空执着如意棒",
    },
    {
        "type": "knowledge",
        "chapter": 4,
        "subject": "玉帝",
        "knows": "弼马温反下天宫",
        "evidence_quote": "弼马温孙悟空因嫌官小，昨日反下天宫去了",
    },
    {
        "type": "ability_cost",
        "chapter": 3,
        "subject": "悟空",
        "ability": "七十二般地煞变化",
        "cost": "字段存疑：原文未交代",
        "evidence_quote": "有七十二般地煞变化之功",
    },
]


def test_the_set_of_fact_types_is_closed_at_six():
    assert {t.value for t in FactType} == {
        "entity_state",
        "relation",
        "location",
        "possession",
        "knowledge",
        "ability_cost",
    }
    members = typing.get_args(typing.get_args(FactDeltaProposal)[0])
    assert len(members) == 6 and set(FACT_TYPE_LABELS) == set(FactType)


@pytest.mark.parametrize("proposal", ONE_OF_EACH, ids=lambda p: p["type"])
def test_each_type_is_proposed_with_its_evidence_located(conn, work, proposal):
    delta = propose_fact_delta(conn, work, proposal)
    assert (delta.type, delta.status, delta.chapter) == (
        proposal["type"],
        "proposed",
        proposal["chapter"],
    )
    text = text_of(proposal["chapter"])
    assert text[delta.evidence_start : delta.evidence_end] == proposal["evidence_quote"]
    assert "evidence_quote" not in delta.payload and "type" not in delta.payload


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"type": "rumour"}, "事实增量不合格式"),
        ({"evidence_quote": "悟空拿着金箍棒"}, "不在第 3 章的原文中"),  # paraphrase, not verbatim
        (
            {"evidence_quote": "悟空执着如意棒", "chapter": 4},
            "不在第 4 章的原文中",
        ),  # wrong chapter
        ({"chapter": 9}, "没有这一章"),
        ({"item": ""}, "事实增量不合格式"),
        ({"extra": "x"}, "事实增量不合格式"),
    ],
)
def test_a_proposal_that_breaks_the_contract_is_refused_and_nothing_is_stored(
    conn, work, change, message
):
    with pytest.raises(ContractViolation, match=message):
        propose_fact_delta(conn, work, {**ONE_OF_EACH[3], **change})
    assert conn.execute(select(func.count()).select_from(fact_deltas)).scalar() == 0


def test_the_quote_is_compared_after_nfc(conn, work):
    quote = "凡兵是\uf967堪用"  # U+F967: a compatibility form of 不, the same text after NFC
    assert unicodedata.normalize("NFC", quote) == "凡兵是不堪用" != quote
    delta = propose_fact_delta(conn, work, {**ONE_OF_EACH[3], "evidence_quote": quote})
    assert delta.evidence_quote == "凡兵是不堪用"


def test_approval_writes_the_ledger_and_only_approved_deltas_are_in_it(conn, work):
    kept = propose_fact_delta(conn, work, ONE_OF_EACH[3])
    dropped = propose_fact_delta(conn, work, ONE_OF_EACH[2])
    entry = approve_fact_delta(conn, kept.id)
    reject_fact_delta(conn, dropped.id, note="不重要")
    assert (entry.delta_id, entry.subject, entry.payload) == (
        kept.id,
        "悟空",
        {"item": "如意棒", "change": "获得"},
    )
    assert [e.delta_id for e in fact_ledger_entries(conn, work)] == [kept.id]
    assert {d.id: d.status for d in list_fact_deltas(conn, work)} == {
        kept.id: "approved",
        dropped.id: "rejected",
    }
    with pytest.raises(InvalidInput, match="已处理"):
        approve_fact_delta(conn, kept.id)
    with pytest.raises(InvalidInput, match="已处理"):
        approve_fact_delta(conn, dropped.id)


def test_approval_belongs_to_the_callers_transaction(engine: Engine):
    with engine.begin() as conn:
        work = create_work(conn, "西游记")
        add_chapter(conn, work, 3, *CHAPTERS[3])
        delta_id = propose_fact_delta(conn, work, ONE_OF_EACH[3]).id
    with engine.connect() as conn, conn.begin() as tx:
        approve_fact_delta(conn, delta_id)
        tx.rollback()  # the accept flow failed after approving: nothing of it may remain
    with engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(fact_ledger)).scalar() == 0
        assert list_fact_deltas(conn, work)[0].status == "proposed"


def test_approval_checks_the_quote_against_the_text_as_it_is_then(conn, work):
    moved = propose_fact_delta(conn, work, ONE_OF_EACH[3])
    gone = propose_fact_delta(conn, work, ONE_OF_EACH[2])
    edited = "（前文）" + text_of(3).replace("径登森罗殿上", "走进森罗殿")
    write_revision(conn, work, 3, edited, expected_revision=1, origin="edit")
    report = revalidate_source_refs(conn, work)
    assert {s.owner_id for s in report.newly_stale} == {moved.id, gone.id}
    assert all(d.evidence_stale for d in list_fact_deltas(conn, work))
    with pytest.raises(ContractViolation, match="无法批准"):
        approve_fact_delta(conn, gone.id)
    approve_fact_delta(conn, moved.id)  # still verbatim in the new text, at a new place
    delta = next(d for d in list_fact_deltas(conn, work) if d.id == moved.id)
    assert (
        not delta.evidence_stale
        and edited[delta.evidence_start : delta.evidence_end] == "悟空执着如意棒"
    )


def test_the_ledger_as_of_a_chapter_holds_nothing_later(conn, work):
    for proposal in ONE_OF_EACH:
        approve_fact_delta(conn, propose_fact_delta(conn, work, proposal).id)
    assert {e.chapter for e in fact_ledger_entries(conn, work, as_of=3)} == {1, 3}
    assert len(fact_ledger_entries(conn, work)) == 6
    assert [e.chapter for e in fact_ledger_entries(conn, work)] == sorted(
        e.chapter for e in fact_ledger_entries(conn, work)
    )
