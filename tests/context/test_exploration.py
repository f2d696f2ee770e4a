"""The writer's explore phase: read-only tools offered, plan reads first, bad reads dropped."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from muse.agents.contracts import load_roles
from muse.agents.ledger import call_tool_reads
from muse.agents.receipts import get_receipt
from muse.agents.structured import RetryPolicy
from muse.context.as_of import AsOfView
from muse.context.explore.contracts import ExplorationManifest
from muse.context.explore.plan_reads import planned_reads
from tests.support.stub_server import StubServer

from .two_phase import RUN, explored, outline_of, with_cards

READ_ONLY = ["read_chapter", "search_prose", "get_card", "get_outline", "get_style", "get_patterns"]


def _draft_read(tool, why="用途", number=None, query=None, name=None, limit=None):
    return {
        "tool": tool,
        "number": number,
        "query": query,
        "name": name,
        "limit": limit,
        "why": why,
    }


def test_plan_reads_come_first_then_explored_reads_without_duplicates(engine, marked_book):
    with_cards(engine, marked_book)
    manifest = explored(engine, marked_book, 9)
    with engine.connect() as conn:
        plan = planned_reads(AsOfView(conn, marked_book, 8), outline_of(engine, marked_book, 9)[1])
    origins = [r.origin for r in manifest.reads]
    assert origins == sorted(origins, key=lambda o: o != "plan")  # every plan read first
    assert [(r.tool, r.args) for r in manifest.reads if r.origin == "plan"][:5] == [
        ("get_outline", {}),
        ("read_chapter", {"number": 5}),
        ("read_chapter", {"number": 6}),
        ("read_chapter", {"number": 7}),
        ("read_chapter", {"number": 8}),
    ]
    assert len([r for r in manifest.reads if r.origin == "plan"]) == len(plan)
    keys = [json.dumps([r.tool, r.args], sort_keys=True) for r in manifest.reads]
    assert len(keys) == len(set(keys))
    explored_reads = [r for r in manifest.reads if r.origin == "explore"]
    assert ("search_prose", {"query": "林远", "limit": 2}) in [
        (r.tool, r.args) for r in explored_reads
    ]
    # the offline explorer re-proposes the previous chapter and the cards: merged, and reported
    duplicates = {(d.tool, json.dumps(d.args)) for d in manifest.dropped if d.reason == "duplicate"}
    assert ("read_chapter", json.dumps({"number": 8})) in duplicates
    assert not [r for r in explored_reads if r.tool == "get_card"]  # the plan already reads them


def test_explore_is_dispatched_with_the_read_only_tools_and_has_its_receipt(engine, marked_book):
    manifest = explored(engine, marked_book, 9)
    receipt = get_receipt(engine, manifest.explore_receipt_id)
    assert receipt is not None and receipt.status == "ok"
    assert (receipt.role, receipt.task, receipt.run_id) == ("writer", "explore", RUN)
    offered = receipt.request_params["toolsOffered"]
    assert offered == READ_ONLY
    assert set(offered) == set(load_roles().task("writer", "explore").tools)
    assert receipt.task_input["plannedReads"][0]["tool"] == "get_outline"
    assert manifest.notes.startswith("【离线模式】")


def test_bad_reads_are_dropped_with_their_reason(engine, marked_book, scripted):
    reads = [
        _draft_read("delete_chapter", number=3),
        _draft_read("read_chapter", number=9),  # as_of is 8
        _draft_read("read_chapter"),  # no chapter number
        _draft_read("search_prose", query="溪" * 101),  # longer than the tool allows
        _draft_read("search_prose", query="溪水", limit=99),  # limit above 50
        _draft_read("read_chapter", why="第一章的开场", number=1),
    ]
    scripted("writer", "explore").reply(lambda _: {"reads": reads, "notes": "脚本探索"})
    manifest = explored(engine, marked_book, 9)
    dropped = [(d.tool, d.reason) for d in manifest.dropped]
    assert dropped == [
        ("delete_chapter", "unknown_tool"),
        ("read_chapter", "future_chapter"),
        ("read_chapter", "bad_args"),
        ("search_prose", "bad_args"),
        ("search_prose", "bad_args"),
    ]
    assert "第 9 章在冻结点（第 8 章）之后" in manifest.dropped[1].detail
    kept = [(r.tool, r.args, r.why) for r in manifest.reads if r.origin == "explore"]
    assert kept == [("read_chapter", {"number": 1}, "第一章的开场")]
    assert all(r.tool in READ_ONLY for r in manifest.reads)


def test_the_manifest_contract_refuses_what_vetting_drops(engine, marked_book):
    manifest = explored(engine, marked_book, 9)
    data = manifest.wire()
    data["reads"][0]["tool"] = "write_chapter"
    with pytest.raises(ValidationError):
        ExplorationManifest.model_validate(data)
    data = manifest.wire()
    data["reads"][0]["extra"] = 1
    with pytest.raises(ValidationError):
        ExplorationManifest.model_validate(data)


def test_explore_tool_reads_through_a_real_provider_are_ledgered(
    engine, marked_book, tmp_path, monkeypatch
):
    stub = StubServer().start()
    try:
        config = tmp_path / "config.toml"
        config.write_text(
            f'[providers.stub]\nbase_url = "{stub.url}"\napi_key_env = "STUB_API_KEY"\n'
            "supports_json_schema = true\n",
            encoding="utf-8",
        )
        monkeypatch.setenv("MUSE_CONFIG", str(config))
        monkeypatch.setenv("STUB_API_KEY", "sk-stub")
        stub.tool_calls(("read_chapter", {"number": 8}), ("read_chapter", {"number": 9}))
        stub.reply_json(
            {
                "reads": [_draft_read("search_prose", why="溪水的描写", query="溪水", limit=1)],
                "notes": "读了第 8 章。",
            }
        )
        manifest = explored(
            engine,
            marked_book,
            9,
            provider="stub",
            model="deepseek-chat",
            retry=RetryPolicy(base_delay_s=0.01, max_delay_s=0.05),
            timeout_s=20,
        )
    finally:
        stub.stop()
    offered = [t["function"]["name"] for t in stub.requests[0].body["tools"]]
    assert offered == READ_ONLY
    reads = call_tool_reads(engine, manifest.explore_receipt_id)
    assert [(r.tool, r.arguments, r.status, r.run_id) for r in reads] == [
        ("read_chapter", {"number": 8}, "ok", RUN),
        ("read_chapter", {"number": 9}, "refused", RUN),
    ]
    assert [(r.tool, r.args) for r in manifest.reads if r.origin == "explore"] == [
        ("search_prose", {"query": "溪水", "limit": 1})
    ]
    assert manifest.notes == "读了第 8 章。"
