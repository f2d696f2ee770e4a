"""Bulk review: drafts grouped by entity with evidence, decided by type and mention count."""

from __future__ import annotations

import json

import pytest
import typer
from typer.testing import CliRunner

from muse.cli import cards
from muse.cli.common import get_engine
from muse.core.errors import InvalidInput
from muse.knowledge.cards import find_card, load_cards
from muse.knowledge.contracts import CardStatus
from muse.knowledge.discovery_drafts import discover_work
from muse.knowledge.draft_review import (
    confirm_groups,
    group_drafts,
    merge_drafts,
    reject_groups,
    select_groups,
)
from muse.knowledge.drafts import list_drafts, submit_draft
from muse.knowledge.source_refs import ChapterTexts, locate_quote
from tests.knowledge.discovery_fixture import sanguo_work
from tests.support.cards import spec

LEAD = "儁令玄德为其先锋，与贼对敌。"


@pytest.fixture
def sanguo(conn):
    work = sanguo_work(conn)
    discover_work(conn, work)
    return work


def _id(conn, work, name):
    return next(d.id for d in list_drafts(conn, work) if d.name == name)


def _extracted_liu_bei(conn, work):
    """A second proposal about 刘备 (as an extraction batch would store it), under his alias."""
    ref = locate_quote(ChapterTexts(conn, work), 2, LEAD)
    fields = {
        "summary": {"value": "涿县人"},
        "identity": {"value": "先锋", "refs": [ref.model_dump()]},
        "personality": {"value": "宽和"},
    }
    return submit_draft(conn, work, spec("玄德", fields=fields, refs=[ref.model_dump()]))


def test_drafts_of_one_entity_are_one_group_with_evidence(conn, sanguo):
    _extracted_liu_bei(conn, sanguo)
    groups = {g.name: g for g in group_drafts(conn, sanguo)}
    liu = groups["刘备"]
    assert len(liu.drafts) == 2 and "玄德" not in groups
    assert liu.mentions >= 20 and liu.first_chapter == 1
    assert liu.quotes and all(q["quote"] for q in liu.quotes)
    ordered = [g.mentions or 0 for g in groups.values()]
    assert ordered == sorted(ordered, reverse=True)


@pytest.mark.parametrize(
    "type_key, minimum, expect_in, expect_out",
    [
        ("character", 10, "刘备", "邹靖"),
        ("人物", 10, "刘备", "洛阳"),
        (None, 10, "何进", "邹靖"),
        ("location", None, "洛阳", "刘备"),
    ],
)
def test_selection_by_type_and_mentions(conn, sanguo, type_key, minimum, expect_in, expect_out):
    chosen = {
        g.name
        for g in select_groups(group_drafts(conn, sanguo), type_key=type_key, min_mentions=minimum)
    }
    assert expect_in in chosen and expect_out not in chosen


def test_bulk_confirm_confirms_only_the_selection_and_merges_within_a_group(conn, sanguo):
    _extracted_liu_bei(conn, sanguo)
    chosen = select_groups(group_drafts(conn, sanguo), type_key="character", min_mentions=10)
    outcomes = confirm_groups(conn, chosen)
    assert {o.status for o in outcomes} == {"confirmed"}
    confirmed = {c.name for c in load_cards(conn, sanguo)}
    assert confirmed == {g.name for g in chosen}
    liu = find_card(conn, sanguo, "刘备")
    assert liu.fields["identity"].value == "先锋"  # the second draft merged into the first
    assert "邹靖" in {d.name for d in list_drafts(conn, sanguo)}  # below the bar: still pending


def test_bulk_reject(conn, sanguo):
    chosen = select_groups(group_drafts(conn, sanguo), type_key="location")
    rejected = reject_groups(conn, chosen, note="不是地点")
    assert rejected and {o.status for o in rejected} == {"rejected"}
    assert not any(d.type == "location" for d in list_drafts(conn, sanguo))


def test_merge_two_drafts_as_aliases_of_one_card(conn, sanguo):
    keep, other = _id(conn, sanguo, "陈留王"), _id(conn, sanguo, "何进")
    merge_drafts(conn, sanguo, keep, other)
    [kept] = [g for g in group_drafts(conn, sanguo) if g.name == "陈留王"]
    assert "何进" in kept.aliases and "何进" not in {d.name for d in list_drafts(conn, sanguo)}
    [gone] = [d for d in list_drafts(conn, sanguo, status="rejected") if d.id == other]
    shadow = find_card(conn, sanguo, "陈留王", statuses=[CardStatus.draft])
    alias = next(a for a in shadow.aliases if a.name == "何进")
    assert alias.since_chapter is None  # 何进 appears (chapter 1) before 陈留王 (chapter 3)
    assert gone.status == "rejected"


@pytest.mark.parametrize(
    "keep, other, message",
    [("刘备", "洛阳", "类型不同"), ("刘备", "刘备", "自己"), ("刘备", "draft_nope", "不是本作品")],
)
def test_bad_merges_are_refused(conn, sanguo, keep, other, message):
    ids = {d.name: d.id for d in list_drafts(conn, sanguo)}
    with pytest.raises(InvalidInput, match=message):
        merge_drafts(conn, sanguo, ids[keep], ids.get(other, other))


# --- the commands --------------------------------------------------------------------------

app = typer.Typer()
cards.register(app)


@pytest.fixture
def muse(engine, db_url, monkeypatch):
    monkeypatch.setenv("MUSE_DATABASE_URL", db_url)
    get_engine.cache_clear()
    with engine.begin() as conn:
        discover_work(conn, sanguo_work(conn))

    def run(*args: str, code: int = 0):
        result = CliRunner().invoke(app, list(args))
        assert result.exit_code == code, result.output
        return result

    yield run
    get_engine().dispose()
    get_engine.cache_clear()


def test_grouped_listing_bulk_confirm_and_merge_commands(muse):
    groups = json.loads(muse("drafts", "--group", "--json").stdout)
    assert groups[0]["name"] == "刘备" and groups[0]["evidence"]
    shown = muse("drafts", "--type", "character", "--min-mentions", "10").output
    assert "刘备" in shown and "邹靖" not in shown
    confirmed = json.loads(
        muse("drafts", "confirm", "--type", "character", "--min-mentions", "10", "--json").stdout
    )
    assert "刘备" in {o["name"] for o in confirmed}
    ids = {d["name"]: d["id"] for d in json.loads(muse("drafts", "--json").stdout)}
    assert "已合并" in muse("drafts", "merge", ids["张梁"], ids["邹靖"]).output
    assert "已驳回" in muse("drafts", "reject", "--type", "location").output


@pytest.mark.parametrize(
    "args",
    [
        ["drafts", "confirm"],
        ["drafts", "confirm", "--all", "--type", "character"],
        ["drafts", "reject"],
        ["drafts", "confirm", "--type", "魔法"],
    ],
)
def test_ambiguous_or_bad_bulk_requests_are_refused(muse, args):
    result = muse(*args, code=1)
    assert "错误" in result.output and "Traceback" not in result.output
