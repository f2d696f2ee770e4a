"""Fact deltas of a shadow candidate enter the fact ledger inside the accept transaction (spec 001
§6: only approved deltas, with the prose, in one transaction); anything refused writes nothing."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from sqlalchemy import func, select, update

from muse.core.errors import ContractViolation
from muse.flow.accept import accept_candidate
from muse.flow.candidate_facts import (
    FactApprovalRefused,
    list_candidate_facts,
    propose_candidate_facts,
)
from muse.flow.tables import candidates, decisions, runs
from muse.knowledge.facts import (
    ShadowText,
    approve_fact_delta,
    list_fact_deltas,
    propose_fact_delta,
    reject_fact_delta,
)
from muse.knowledge.source_refs import load_refs
from muse.knowledge.tables import fact_deltas, fact_ledger
from muse.store.tables import jobs
from muse.worker.loop import Worker
from muse.works import catalog
from tests.support.fakes import write_ready
from tests.support.qingyun import EVENT_ARRIVE, EVENT_GAIN, NEXT, RESULT, make_book

FORGED = "林远在山门前拔剑斩断了石碑"  # in no text
EXTRA = "林远拿到了一本剑谱。"  # only in the second candidate's text


@pytest.fixture
def qingyun(engine) -> int:
    """A book with confirmed cards (林远, 苏晴) whose next outline has plain state sentences."""
    with engine.begin() as conn:
        return make_book(conn)


def _propose(engine, candidate_id):
    return propose_candidate_facts(engine, candidate_id, provider="offline", model="offline-1")


@pytest.fixture
def proposed(engine, qingyun):
    """A shadow candidate of chapter NEXT and its three proposed facts, by type."""
    summary = write_ready(engine, qingyun, NEXT)
    facts = _propose(engine, summary.candidate_id)
    return summary, {d.type.value: d for d in facts.deltas}


def _count(engine, table, *where) -> int:
    with engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(table).where(*where)).scalar_one()


def _state(engine, work_id) -> dict:
    """Everything an accept may write, as plain values."""
    with engine.connect() as conn:
        return {
            "revisions": catalog.chapter_revisions(conn, work_id),
            "runs": sorted(conn.execute(select(runs.c.id, runs.c.state, runs.c.revision))),
            "candidates": sorted(conn.execute(select(candidates.c.id, candidates.c.state))),
            "decisions": conn.execute(select(func.count()).select_from(decisions)).scalar(),
            "jobs": conn.execute(select(func.count()).select_from(jobs)).scalar(),
            "ledger": conn.execute(select(func.count()).select_from(fact_ledger)).scalar(),
            "deltas": sorted(conn.execute(select(fact_deltas.c.id, fact_deltas.c.status))),
        }


# -- proposing against a candidate -------------------------------------------------------------


def test_proposals_are_checked_against_the_candidate_and_carry_no_source_ref(
    engine, qingyun, proposed
):
    summary, deltas = proposed
    assert set(deltas) == {"location", "possession", "entity_state"}
    with engine.connect() as conn:
        body = conn.execute(
            select(candidates.c.body, candidates.c.sha256).where(
                candidates.c.id == summary.candidate_id
            )
        ).one()
        details = dict(conn.execute(select(fact_deltas.c.id, fact_deltas.c.origin_detail)).all())
        refs = load_refs(conn, "fact_delta", owner_ids=[d.id for d in deltas.values()])
        assert catalog.latest_chapter_number(conn, qingyun) == NEXT - 1  # not canonical
    for d in deltas.values():
        assert (d.origin, d.status, d.chapter) == ("candidate", "proposed", NEXT)
        assert body.body[d.evidence_start : d.evidence_end] == d.evidence_quote
        assert details[d.id]["candidateId"] == summary.candidate_id
        assert details[d.id]["candidateSha256"] == body.sha256
    assert {d.evidence_quote for d in deltas.values()} == {
        EVENT_ARRIVE + "。",
        EVENT_GAIN + "。",
        RESULT + "。",
    }
    assert refs == {}  # a reference may only point at canonical text
    assert _count(engine, fact_ledger) == 0


def test_proposing_again_stores_nothing_new(engine, proposed):
    summary, deltas = proposed
    again = _propose(engine, summary.candidate_id)
    assert {i.status for i in again.items} == {"duplicate"}
    assert {i.id for i in again.items} == {d.id for d in deltas.values()}
    assert _count(engine, fact_deltas) == 3


def test_a_forged_quote_is_refused_and_reported_nothing_else_lost(engine, qingyun, scripted):
    forged = {"type": "location", "subject": "林远", "location": "石碑前", "previous": None}
    scripted("extractor", "extract").edit(
        lambda d: {
            **d,
            "facts": [*d["facts"], {**forged, "evidenceQuote": FORGED, "confidence": "high"}],
        }
    )
    summary = write_ready(engine, qingyun, NEXT)
    facts = _propose(engine, summary.candidate_id)
    [refused] = [i for i in facts.items if i.status == "rejected"]
    assert refused.quote == FORGED and "不在候选" in (refused.reason or "")
    assert len(facts.deltas) == 3 and FORGED not in {d.evidence_quote for d in facts.deltas}


def test_a_quote_of_another_chapter_number_is_refused(engine, qingyun):
    summary = write_ready(engine, qingyun, NEXT)
    with engine.begin() as conn:
        cand = conn.execute(select(candidates).where(candidates.c.id == summary.candidate_id))
        row = cand.mappings().one()
        shadow = ShadowText(row["id"], row["sha256"], row["chapter"], row["body"])
        fact = {"type": "location", "chapter": NEXT - 1, "subject": "林远", "location": "青云山门"}
        with pytest.raises(ContractViolation, match="第 3 章"):
            propose_fact_delta(
                conn,
                qingyun,
                {**fact, "evidence_quote": EVENT_ARRIVE},
                origin="candidate",
                shadow=shadow,
            )


def test_a_candidate_proposal_cannot_be_approved_before_its_text_is_canonical(engine, proposed):
    _, deltas = proposed
    with engine.begin() as conn, pytest.raises(ContractViolation, match="无法批准"):
        approve_fact_delta(conn, deltas["location"].id)
    assert _count(engine, fact_ledger) == 0


# -- approving at accept -----------------------------------------------------------------------


def test_approved_deltas_enter_the_ledger_with_the_chapter_revision(engine, qingyun, proposed):
    summary, deltas = proposed
    chosen = [deltas["location"].id, deltas["possession"].id]
    outcome = accept_candidate(engine, summary.candidate_id, approve_facts=chosen)
    assert outcome.accepted and outcome.approved_facts == tuple(chosen)
    assert "2 条事实增量已入台账" in outcome.message
    with engine.connect() as conn:
        chapter = catalog.get_chapter_text(conn, qingyun, NEXT)
        ledger = {r.delta_id: r for r in conn.execute(select(fact_ledger))}
        statuses = dict(conn.execute(select(fact_deltas.c.id, fact_deltas.c.status)).all())
        refs = load_refs(conn, "fact_delta", owner_ids=chosen)
        detail = conn.execute(select(decisions.c.detail)).scalar_one()
    assert set(ledger) == set(chosen)
    assert statuses[deltas["entity_state"].id] == "proposed"  # not chosen: waits for muse facts
    for delta_id in chosen:
        [ref] = refs[(delta_id, "evidence")]
        assert (ref.chapter, ref.revision) == (NEXT, chapter.revision) == (NEXT, outcome.revision)
        assert chapter.text[ref.start : ref.end] == ledger[delta_id].evidence_quote
        assert statuses[delta_id] == "approved"
    assert detail["approvedFacts"] == chosen
    # the one left can still be approved by the author, against the canonical text
    with engine.begin() as conn:
        approve_fact_delta(conn, deltas["entity_state"].id)
    assert _count(engine, fact_ledger) == 3


def test_approve_all_facts_and_the_post_chapter_extraction_adds_no_duplicate(
    engine, qingyun, proposed
):
    summary, deltas = proposed
    outcome = accept_candidate(engine, summary.candidate_id, approve_all_facts=True)
    assert sorted(outcome.approved_facts) == sorted(d.id for d in deltas.values())
    [run] = Worker(engine).run_once()
    assert (run.job_id, run.outcome) == (outcome.job_id, "done")
    with engine.connect() as conn:
        assert {d.status for d in list_fact_deltas(conn, qingyun)} == {"approved"}
    assert _count(engine, fact_ledger) == 3


def test_same_accept_command_with_facts_twice_has_one_effect(engine, proposed):
    summary, deltas = proposed
    chosen = [deltas["location"].id]
    first = accept_candidate(engine, summary.candidate_id, command_id="c-1", approve_facts=chosen)
    second = accept_candidate(engine, summary.candidate_id, command_id="c-1", approve_facts=chosen)
    assert (first.repeated, second.repeated) == (False, True)
    assert first.approved_facts == second.approved_facts == tuple(chosen)
    assert _count(engine, fact_ledger) == 1 and _count(engine, decisions) == 1


@dataclass(frozen=True)
class BadChoice:
    name: str
    pick: str  # which id to name at accept
    message: str


BAD_CHOICES = [
    BadChoice("unknown id", "unknown", "不存在"),
    BadChoice("another candidate's", "other", "不是针对候选"),
    BadChoice("a delta of canonical text", "canonical", "针对正式正文"),
    BadChoice("already rejected", "rejected", "已处理（rejected）"),
    BadChoice("quote no longer in the text", "tampered", f"不在第 {NEXT} 章的原文中"),
]


@pytest.mark.parametrize("case", BAD_CHOICES, ids=lambda c: c.name)
def test_a_refused_fact_choice_writes_nothing(case, engine, qingyun, proposed):
    summary, deltas = proposed
    ids = {"unknown": "fact_nope", "rejected": deltas["possession"].id}
    if case.pick == "other":
        other = write_ready(engine, qingyun, NEXT)
        ids["other"] = _propose(engine, other.candidate_id).deltas[0].id
    with engine.begin() as conn:
        if case.pick == "canonical":
            chapter_one = {"type": "location", "chapter": 1, "subject": "林远", "location": "山间"}
            ids["canonical"] = propose_fact_delta(
                conn, qingyun, {**chapter_one, "evidence_quote": "林远在第1章里行走山间"}
            ).id
        if case.pick == "rejected":
            reject_fact_delta(conn, ids["rejected"])
        if case.pick == "tampered":  # as if the quote had been changed behind the flow's back
            ids["tampered"] = deltas["location"].id
            conn.execute(
                update(fact_deltas)
                .where(fact_deltas.c.id == ids["tampered"])
                .values(evidence_quote=FORGED)
            )
    before = _state(engine, qingyun)
    chosen = [deltas["entity_state"].id, ids[case.pick]]  # a good one first: rolled back too
    with pytest.raises(FactApprovalRefused, match=case.message) as err:
        accept_candidate(engine, summary.candidate_id, approve_facts=chosen)
    assert "采纳未执行" in err.value.message
    assert _state(engine, qingyun) == before  # no prose, no decision, no job, no ledger row
    outcome = accept_candidate(engine, summary.candidate_id)  # the author can still accept
    assert outcome.accepted and outcome.approved_facts == ()


def test_proposals_of_a_candidate_not_taken_never_pass_against_the_other_text(
    engine, qingyun, scripted
):
    taken = write_ready(engine, qingyun, NEXT)
    scripted("writer", "generate").edit(
        lambda d: {**d, "paragraphs": [*d["paragraphs"][:-1], EXTRA, d["paragraphs"][-1]]}
    )
    other = write_ready(engine, qingyun, NEXT)
    other_facts = {d.evidence_quote: d for d in _propose(engine, other.candidate_id).deltas}
    assert EXTRA in other_facts  # 剑谱: only in the candidate not taken
    assert accept_candidate(engine, taken.candidate_id, approve_all_facts=True).accepted
    with engine.connect() as conn:
        left = {d.id: d.status for d in list_candidate_facts(conn, other.candidate_id).deltas}
    assert set(left.values()) == {"proposed"}  # left as they were
    with engine.begin() as conn, pytest.raises(ContractViolation, match="无法批准"):
        approve_fact_delta(conn, other_facts[EXTRA].id)
    refused = accept_candidate(engine, other.candidate_id, approve_facts=[other_facts[EXTRA].id])
    assert refused.state == "revision_conflict" and refused.approved_facts == ()
    with engine.connect() as conn:
        assert (
            conn.execute(
                select(fact_deltas.c.status).where(fact_deltas.c.id == other_facts[EXTRA].id)
            ).scalar()
            == "proposed"
        )
        assert EXTRA not in {e.evidence_quote for e in conn.execute(select(fact_ledger))}
