"""Two 拆书 workers meeting one new entity at the same moment leave one draft (migration 0024).

Each worker holds its own connection and transaction, as two ``muse worker`` processes do. The
first stores the entity's draft and has not committed yet when the second looks: the second sees
no pending draft and tries to store its own. On PostgreSQL the unique pending-entity index makes
that insert wait for the first transaction and then fail, and the second worker merges into the
first one's draft; on SQLite the second transaction cannot begin until the first has committed
(BEGIN IMMEDIATE), so it finds the draft and merges. Either way: one draft, holding both
proposals.
"""

from __future__ import annotations

import threading
import time

import pytest
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from muse.knowledge.book_drafts import apply_batch
from muse.knowledge.cards import get_card
from muse.knowledge.contracts import CardField, CardSpec
from muse.knowledge.drafts import list_drafts, reject_draft, submit_draft
from muse.knowledge.extraction_contracts import ChapterExtraction
from muse.knowledge.tables import card_drafts
from muse.works.catalog import chapter_revisions
from tests.knowledge.discovery_fixture import sanguo_work

Q1 = "玄德幼孤，事母至孝，家贫，贩屦织席为业，家住本县楼桑村。"


def output(fields=()):
    card = {
        "type": "character",
        "name": "玄德",
        "aliases": [],
        "fields": list(fields),
        "evidenceQuote": Q1,
        "confidence": "high",
    }
    return ChapterExtraction.model_validate({"cards": [card], "facts": [], "designFindings": []})


@pytest.fixture
def book(engine):
    with engine.begin() as conn:
        work = sanguo_work(conn)
        revisions = chapter_revisions(conn, work)
    return work, [(1, revisions[1]), (2, revisions[2])]


def test_two_workers_starting_one_entity_at_once_leave_one_merged_draft(engine, book):
    work, pairs = book
    identity = [{"key": "identity", "value": "织席贩屦之人", "evidenceQuote": Q1}]
    second: dict[str, object] = {}

    def worker_b() -> None:
        try:
            with engine.begin() as conn:
                second["report"] = apply_batch(conn, work, pairs, output(identity))
        except Exception as err:  # noqa: BLE001 - reported to the test, not lost in the thread
            second["error"] = err

    with engine.connect() as conn_a:
        tx = conn_a.begin()
        first = apply_batch(conn_a, work, pairs, output())
        assert [i.status for i in first.cards] == ["new"]
        thread = threading.Thread(target=worker_b)
        thread.start()
        time.sleep(1.0)  # let worker B look and try its insert while A's draft is uncommitted
        tx.commit()
    thread.join(timeout=60)
    assert "error" not in second, second.get("error")
    [item] = second["report"].cards  # type: ignore[attr-defined]
    assert item.status == "merged" and item.id == first.cards[0].id
    with engine.connect() as conn:
        drafts = [d for d in list_drafts(conn, work) if d.name == "玄德"]
        assert len(drafts) == 1
        card = get_card(conn, drafts[0].card_id)
    assert card.fields["identity"].value == "织席贩屦之人"  # B's proposal is in A's draft


def spec(identity: str) -> CardSpec:
    fields = {"identity": CardField(value=identity)}
    fields |= {k: CardField(doubt="正文未写明") for k in ("summary", "personality")}
    return CardSpec(type="character", name="简雍", fields=fields)


def test_the_database_refuses_a_second_keyed_pending_draft_of_one_entity(engine, book):
    work, _ = book
    with engine.begin() as conn:
        first = submit_draft(conn, work, spec("幕宾"), keyed=True)
        submit_draft(conn, work, spec("谋士"))  # not keyed: a second opinion may sit beside it
    with pytest.raises(IntegrityError), engine.begin() as conn:
        submit_draft(conn, work, spec("说客"), keyed=True)
    with engine.begin() as conn:
        reject_draft(conn, first.draft_id)  # a decided draft frees its entity's key
        again = submit_draft(conn, work, spec("说客"), keyed=True)
        keys = conn.execute(
            select(card_drafts.c.entity_key).where(card_drafts.c.status == "pending")
        ).scalars()
        assert sorted(k or "" for k in keys) == ["", "character:简雍"]
    assert again.status == "new"
