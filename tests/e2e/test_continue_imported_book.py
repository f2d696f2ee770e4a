"""Done when (issue 15): a new user imports a 100-chapter book, discovers its entities, extracts
with a model (the stub server), confirms the main people in bulk, drafts and confirms the
planning stages from the book, and writes the next chapter with the cards in its context."""

from __future__ import annotations

import json

import typer
from sqlalchemy import select
from typer.testing import CliRunner

from muse.cli import cards
from muse.cli.common import get_engine
from muse.context.contracts import WriterContext
from muse.context.tables import context_snapshots
from muse.flow.production import write_chapter
from muse.flow.tables import candidates
from muse.knowledge.card_types import card_type
from muse.knowledge.cards import get_card, load_cards, rewrite_card, spec_of
from muse.knowledge.contracts import Cycle, PlannedStep
from muse.knowledge.drafts import confirm_all, list_drafts
from muse.knowledge.facts import approve_fact_delta, list_fact_deltas
from muse.patterns.builtin import install_builtin_patterns
from muse.planning.confirming import confirm_section
from muse.planning.planner import draft_stage
from muse.planning.saving import build_signoff, save_stage_section
from muse.works.importer import import_book
from tests.agents.conftest import isolated_env, stub, stub_config  # noqa: F401
from tests.e2e.book_generator import LAST_CHAPTER_END, NEWCOMER, NEWCOMER_FROM, book_text

app = typer.Typer()
cards.register(app)
OFFLINE = {"provider": "offline", "model": "offline-1"}


def _cli(*args: str) -> dict | list:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _context_of(engine, candidate_id) -> WriterContext:
    with engine.connect() as conn:
        payload = conn.execute(
            select(context_snapshots.c.payload)
            .join(candidates, candidates.c.context_snapshot_id == context_snapshots.c.id)
            .where(candidates.c.id == candidate_id)
        ).scalar_one()
    return WriterContext.model_validate(payload)


def _author_closes_the_arcs(conn, work: int) -> None:
    """Stage 2 asks every arc to close: the author plans each card's ending."""
    for card in (c for c in load_cards(conn, work) if card_type(c.type).arc):
        ending = PlannedStep(chapter=130, cycle=Cycle.ending, step="结局", description="待定结局")
        rewrite_card(conn, card, spec_of(card).model_copy(update={"growth_arc": [ending]}))


def _confirm(engine, section_id: str) -> None:
    with engine.begin() as conn:
        confirm_section(conn, section_id)


def test_import_discover_extract_confirm_plan_and_write_the_next_chapter(
    engine,
    db_url,
    monkeypatch,
    stub,  # noqa: F811
    stub_config,  # noqa: F811
):
    monkeypatch.setenv("MUSE_DATABASE_URL", db_url)
    get_engine.cache_clear()
    work = import_book(engine, book_text().encode(), title="青云记").work_id
    assert work is not None

    # 1. model-free discovery: the people, their debut chapters, as drafts
    found = _cli("cards", "discover", "--json")
    items = {i["name"]: i for i in found["items"]}
    assert {"林远", "苏晴", "沈烈", NEWCOMER} <= set(items)
    assert items[NEWCOMER]["first"]["chapter"] == NEWCOMER_FROM
    assert items["林远"]["type"] == "character" and items["林远"]["mentions"] >= 20

    # 2. model extraction over the last chapters, through the stub server: one batch of three
    stub.reply_json(
        {
            "cards": [],
            "facts": [
                {
                    "type": "location",
                    "subject": "林远",
                    "location": "藏经阁",
                    "previous": None,
                    "evidenceQuote": "林远走进藏经阁。",
                    "confidence": "high",
                }
            ],
            "designFindings": [],
        }
    )
    extracted = _cli(
        "cards", "extract", "--chapters", "98-100", "-p", "stub", "-m", "deepseek-chat", "--json"
    )
    assert extracted["calls"] == 1 and len(stub.requests) == 1
    with engine.connect() as conn:  # the fact is a milestone on 林远's draft, at its chapter
        [draft] = [d for d in list_drafts(conn, work) if d.name == "林远"]
        grown = [m for m in get_card(conn, draft.card_id).milestones if m.cycle is Cycle.growth]
    assert [(m.chapter, m.step) for m in grown] == [(100, "位置变化")]

    # 3. bulk review: the main people confirmed at once, the location fact approved
    confirmed = _cli("drafts", "confirm", "--type", "character", "--min-mentions", "20", "--json")
    assert {"林远", "苏晴", "沈烈", NEWCOMER} <= {o["name"] for o in confirmed}
    with engine.connect() as conn:  # the confirmed card carries the milestone, with its proof
        [lin] = [c for c in load_cards(conn, work) if c.name == "林远"]
        [moved] = [m for m in lin.milestones if m.cycle is Cycle.growth]
        assert moved.chapter == 100 and moved.refs[0].quote == "林远走进藏经阁。"
    with engine.begin() as conn:
        [delta] = list_fact_deltas(conn, work, status="proposed")
        assert delta.chapter == 100 and LAST_CHAPTER_END.startswith(delta.evidence_quote)
        approve_fact_delta(conn, delta.id)

    # 4. planning from the book: 定盘 and outline drafted with the book's counts, then 2–4
    for stage in (0, 1):
        [drafted] = draft_stage(engine, work, stage, **OFFLINE)
        assert not [f for f in drafted.findings if f.severity == "error"], drafted.findings
        _confirm(engine, drafted.section_id)
    with engine.begin() as conn:
        confirm_all(conn, work)  # what the planner proposed for stage 2, if anything
        _author_closes_the_arcs(conn, work)
        signoff = save_stage_section(conn, work, 2, build_signoff(conn, work), origin="ledger")
        install_builtin_patterns(conn)
    _confirm(engine, signoff.section_id)
    [assembly] = draft_stage(engine, work, 3, **OFFLINE)
    _confirm(engine, assembly.section_id)
    [outline] = draft_stage(engine, work, 4, **OFFLINE, chapter=101)
    _confirm(engine, outline.section_id)

    # 5. the next chapter, written with the cards and the narrative state in its context
    summary = write_chapter(engine, work, 101, **OFFLINE)
    assert summary.state == "shadow_ready", summary
    context = _context_of(engine, summary.candidate_id)
    card_sources = {s.source_id for s in context.manifest.sources if s.kind == "card"}
    assert {f"card:{work}:character:林远", f"card:{work}:character:沈烈"} <= card_sources
    state = context.narrative_state
    assert state.character_positions["林远"] == "藏经阁"
    assert state.place == "藏经阁" and "time" in state.unknown
    get_engine().dispose()
    get_engine.cache_clear()
