"""Freezing with the replayed materials: in the context, in its hash, within the budgets."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from muse.context.contracts import TokenBudget
from muse.context.retrieval_plan import DEFAULT_BUDGET
from muse.context.tables import context_snapshots
from muse.core.errors import ContractViolation
from muse.works.authorization import take_snapshot

from .two_phase import explored, freeze, replayed, two_phase, with_cards

NEW_KEYS = {"exploration", "replayedMaterials", "authorInstruction"}


def test_replayed_materials_and_manifest_are_frozen_and_hashed(engine, marked_book):
    with_cards(engine, marked_book)
    plain = freeze(engine, marked_book, 9).context
    frozen = two_phase(engine, marked_book, 9)
    ctx = frozen.context
    assert not NEW_KEYS & set(plain.wire())  # a context frozen the old way is unchanged
    assert NEW_KEYS - {"authorInstruction"} <= set(ctx.wire())
    assert [m.read_id for m in ctx.replayed_materials] == [r.read_id for r in ctx.exploration.reads]
    by_id = {m.read_id: m for m in ctx.replayed_materials}
    # the plan's reads are what the plan-based assembly already holds
    assert by_id["p02"].status == "covered" and by_id["p02"].evidence_ids == ("pe-baseline-5",)
    assert by_id["p06"].evidence_ids[0].startswith("fe-card-")
    # an explored search found prose outside the baseline: it became proseEvidence
    added = [m for m in ctx.replayed_materials if m.status == "included"]
    assert added and all(m.origin == "explore" for m in added)
    prose = {p.id: p for p in ctx.prose_evidence}
    for material in added:
        assert material.tokens > 0
        for evidence_id in material.evidence_ids:
            assert evidence_id in prose and prose[evidence_id].chapter <= 8
    explored_sources = [s for s in ctx.manifest.sources if s.reason.startswith("写手探索")]
    assert explored_sources
    assert ctx.manifest.manifest_id != plain.manifest.manifest_id
    assert ctx.context_snapshot.sha256 != plain.context_snapshot.sha256
    with engine.connect() as conn:
        row = conn.execute(
            select(context_snapshots).where(context_snapshots.c.id == frozen.snapshot_id)
        ).one()
    assert row.sha256 == ctx.context_snapshot.sha256
    assert row.payload["exploration"]["reads"][0]["tool"] == "get_outline"


def test_same_exploration_same_state_gives_the_same_snapshot_hash(engine, marked_book):
    with_cards(engine, marked_book)
    manifest = explored(engine, marked_book, 9)
    with engine.begin() as conn:
        auth = take_snapshot(conn, marked_book, "production")

    def build():
        return freeze(
            engine,
            marked_book,
            9,
            store=False,
            authorization=auth,
            exploration=manifest,
            replayed=replayed(engine, manifest),
        )

    first, again = build(), build()
    assert first.context.context_snapshot.sha256 == again.context.context_snapshot.sha256
    assert first.context.manifest.manifest_id == again.context.manifest.manifest_id


def test_what_does_not_fit_the_budget_is_omitted_with_its_reason(engine, marked_book):
    manifest = explored(engine, marked_book, 9)
    tight = TokenBudget(
        cards=DEFAULT_BUDGET.cards, consecutive_prose=0, historical_evidence=200, patterns=0
    )
    ctx = freeze(
        engine,
        marked_book,
        9,
        exploration=manifest,
        replayed=replayed(engine, manifest),
        budget=tight,
    ).context
    by_id = {m.read_id: m for m in ctx.replayed_materials}
    x01 = by_id["x01"]  # search_prose 林远: two chunks, ~500 tokens each
    assert x01.status in ("omitted", "partial")
    reasons = [o.reason for o in ctx.omitted_sources if "x01" in o.reason]
    assert reasons and all("超出历史证据预算（200 tokens）" in r for r in reasons)
    historical = sum(s.tokens for s in ctx.manifest.sources if s.kind == "prose_excerpt")
    assert historical <= 200


def test_a_replay_that_does_not_match_the_freeze_is_refused(engine, marked_book):
    manifest = explored(engine, marked_book, 9)
    reads = replayed(engine, manifest)
    with pytest.raises(ContractViolation, match="必须一起提供"):
        freeze(engine, marked_book, 9, exploration=manifest)
    with pytest.raises(ContractViolation, match="回放结果与探索清单不一致"):
        freeze(engine, marked_book, 9, exploration=manifest, replayed=reads[1:])
    without_plan = manifest.model_copy(update={"reads": manifest.reads[1:]})
    with pytest.raises(ContractViolation, match="缺少检索计划的读取"):
        freeze(engine, marked_book, 9, exploration=without_plan, replayed=reads[1:])
    other = explored(engine, marked_book, 8)
    with pytest.raises(ContractViolation, match="探索清单属于"):
        freeze(engine, marked_book, 9, exploration=other, replayed=replayed(engine, other))
