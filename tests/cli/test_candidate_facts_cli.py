"""``muse candidate facts`` and ``muse accept --approve-fact / --approve-all-facts`` through the CLI."""

import pytest
from sqlalchemy import func, select

from muse.flow.production import write_chapter
from muse.flow.tables import decisions
from muse.knowledge.tables import fact_ledger
from muse.works import catalog
from tests.support.qingyun import NEXT, make_book


@pytest.fixture
def book(engine) -> int:
    """青云记 (cards the offline extractor proposes facts about), not the marked book."""
    with engine.begin() as conn:
        return make_book(conn)


def _count(engine, table) -> int:
    with engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(table)).scalar_one()


def test_propose_list_and_approve_at_accept(muse, engine, book):
    summary = write_chapter(engine, book, NEXT, provider="offline", model="offline-1")
    cand = summary.candidate_id
    assert muse.json("candidate", "facts", cand)["deltas"] == []

    refused = muse("candidate", "facts", cand, "--propose", ok=False)
    assert refused.exit_code == 1 and "--provider" in refused.output

    out = muse.json("candidate", "facts", cand, "--propose", "-p", "offline", "-m", "offline-1")
    assert [i["status"] for i in out["proposed"]] == ["proposed"] * 3
    assert out["receiptId"] and len(out["deltas"]) == 3
    ids = [d["id"] for d in out["deltas"]]
    text = muse("candidate", "facts", cand).output
    assert "待批准" in text and "--approve-fact" in text

    bad = muse("accept", cand, "--approve-fact", ids[0], "--approve-fact", "fact_nope", ok=False)
    assert bad.exit_code == 1 and "采纳未执行" in bad.output
    with engine.connect() as conn:
        assert catalog.latest_chapter_number(conn, book) == NEXT - 1
    assert _count(engine, decisions) == _count(engine, fact_ledger) == 0

    accepted = muse.json("accept", cand, "--approve-fact", ids[0], "--approve-fact", ids[1])
    assert accepted["state"] == "extraction_queued"
    assert accepted["approved_facts"] == ids[:2]
    listed = {d["id"]: d["status"] for d in muse.json("candidate", "facts", cand)["deltas"]}
    assert listed == {ids[0]: "approved", ids[1]: "approved", ids[2]: "proposed"}
    assert _count(engine, fact_ledger) == 2

    again = muse.json("accept", cand, "--approve-all-facts")  # same default command id
    assert again["repeated"] and again["approved_facts"] == ids[:2]
    assert _count(engine, fact_ledger) == 2


def test_propose_refuses_a_candidate_no_longer_waiting(muse, engine, book):
    summary = write_chapter(engine, book, NEXT, provider="offline", model="offline-1")
    muse("accept", summary.candidate_id)
    out = muse(
        "candidate",
        "facts",
        summary.candidate_id,
        "--propose",
        "-p",
        "offline",
        "-m",
        "offline-1",
        ok=False,
    )
    assert out.exit_code == 1 and "ACCEPTED" in out.output
