"""Evidence requests: answered inside the as-of view into a new frozen context, within limits."""

from __future__ import annotations

from sqlalchemy import select

from muse.agents.dispatching import dispatch
from muse.context.contracts import TokenBudget
from muse.context.evidence_requests import MAX_REQUESTS, fulfil_evidence_requests
from muse.context.output_contracts import EvidenceRequest, WriterDraft
from muse.context.round_order import writer_input
from muse.context.tables import context_snapshots
from muse.planning.fine_outlines import confirm_section, save_fine_outline

from .conftest import fine_outline, marker
from .two_phase import RUN, freeze, with_cards

NOTHING = TokenBudget(cards=0, consecutive_prose=0, historical_evidence=0, patterns=0)


def _ask(*queries: str) -> list[EvidenceRequest]:
    return [EvidenceRequest(query=q, reason=f"需要「{q}」") for q in queries]


def _fulfil(engine, frozen, requests, used=0):
    with engine.begin() as conn:
        return fulfil_evidence_requests(conn, frozen, requests, used_requests=used)


def test_answers_become_fact_evidence_of_a_new_stored_context(engine, marked_book):
    with_cards(engine, marked_book)
    frozen = freeze(engine, marked_book, 5)
    result = _fulfil(engine, frozen, _ask("标记003号", "龙珠"))
    new = result.frozen
    assert new.snapshot_id != frozen.snapshot_id
    assert new.context.context_snapshot.sha256 != frozen.context.context_snapshot.sha256
    (answer,) = result.answered
    added = {f.id: f for f in new.context.fact_evidence if f.id.startswith("fe-req-")}
    assert set(answer.evidence_ids) <= {f.id for f in new.context.fact_evidence}
    assert any(marker(3) in f.text for f in added.values())
    assert all(f.source_ref["chapter"] <= 4 for f in added.values())
    assert [(g.query, g.code) for g in result.gaps] == [("龙珠", "no_hits")]
    assert ("evidence_request", "request:2") in {
        (o.kind, o.source_id) for o in new.context.omitted_sources
    }
    assert new.context.manifest.manifest_id != frozen.context.manifest.manifest_id
    assert any(s.reason.startswith("补证请求 1") for s in new.context.manifest.sources)
    assert result.requests_used == 2 and result.tokens_added == answer.tokens > 0
    with engine.connect() as conn:
        row = conn.execute(
            select(context_snapshots).where(context_snapshots.c.id == new.snapshot_id)
        ).one()
    assert row.sha256 == new.context.context_snapshot.sha256
    assert row.chapter_revisions["3"] == 1


def test_a_card_request_reuses_the_card_already_in_the_context(engine, marked_book):
    with_cards(engine, marked_book)
    frozen = freeze(engine, marked_book, 9)
    result = _fulfil(engine, frozen, _ask("林远"))
    card_fact = next(f.id for f in frozen.context.fact_evidence if f.id.startswith("fe-card-"))
    assert result.answered[0].evidence_ids[0] == card_fact


def test_at_most_three_requests_per_run(engine, marked_book):
    frozen = freeze(engine, marked_book, 9)
    result = _fulfil(engine, frozen, _ask("溪水", "松林", "龙珠", "标记002号"))
    assert [(g.index, g.code) for g in result.gaps] == [(3, "no_hits"), (4, "limit_requests")]
    assert result.requests_used == MAX_REQUESTS
    later = _fulfil(engine, result.frozen, _ask("标记001号"), used=2)
    assert later.requests_used == 3 and len(later.answered) == 1
    refused = _fulfil(engine, later.frozen, _ask("标记004号"), used=later.requests_used)
    assert [g.code for g in refused.gaps] == ["limit_requests"] and not refused.answered
    assert refused.tokens_added == 0


def test_added_context_stays_within_thirty_percent_of_the_budget(engine, marked_book):
    frozen = freeze(engine, marked_book, 2, budget=NOTHING)  # total = one baseline chapter
    limit = int(frozen.context.token_budget.total * 0.30)
    result = _fulfil(engine, frozen, _ask("溪水", "林远"))
    assert result.budget_limit == limit
    assert [g.code for g in result.gaps] == ["limit_budget", "limit_budget"]
    assert result.tokens_added == 0 and result.requests_used == 2
    assert not [f for f in result.frozen.context.fact_evidence if f.id.startswith("fe-req-")]
    roomy = freeze(engine, marked_book, 9)
    answered = _fulfil(engine, roomy, _ask("标记001号", "标记002号", "标记003号"))
    added = [f for f in answered.frozen.context.fact_evidence if f.id.startswith("fe-req-")]
    assert added and answered.tokens_added <= answered.budget_limit


def test_no_requests_leave_the_context_alone(engine, marked_book):
    frozen = freeze(engine, marked_book, 9)
    result = _fulfil(engine, frozen, [], used=1)
    assert result.frozen is frozen and result.requests_used == 1


def test_the_offline_writer_asks_for_evidence_only_when_the_outline_says_so(engine, marked_book):
    plain = dispatch(
        engine,
        role="writer",
        task="generate",
        provider="offline",
        model="offline-1",
        task_input=writer_input(freeze(engine, marked_book, 9).context),
        output_model=WriterDraft,
        run_id=RUN,
    )
    assert plain.output.evidence_requests == ()
    data = fine_outline(9) | {"title": "第9章【补证：玉佩；龙珠】"}
    with engine.begin() as conn:
        confirm_section(conn, save_fine_outline(conn, marked_book, data))
    asking = dispatch(
        engine,
        role="writer",
        task="generate",
        provider="offline",
        model="offline-1",
        task_input=writer_input(freeze(engine, marked_book, 9).context),
        output_model=WriterDraft,
        run_id=RUN,
    )
    assert [r.query for r in asking.output.evidence_requests] == ["玉佩", "龙珠"]
