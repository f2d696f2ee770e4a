"""Read-only tools: the minimal as-of reader, the whitelist, the ledger and the tool-call loop."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import insert

from muse.agents.errors import AsOfViolation, ToolNotAllowed, ToolRoundsExceeded
from muse.agents.ledger import call_tool_reads, dependency_list, tool_read_log
from muse.agents.tools import ToolSet
from muse.context.explore.contracts import ExploreDraft
from muse.core.canonical import hash_value, sha256_hex
from muse.core.clock import utc_now
from muse.core.errors import InvalidInput
from muse.core.text import count_han
from muse.works.tables import chapters, prose_blocks, works
from tests.agents.minimal_reader import MinimalAsOfReader
from tests.agents.payloads import FAST
from tests.agents.test_dispatch_stub import only_receipt

CHAPTERS = {
    1: ["第一章初稿：旧宅。", "林默第一次走进旧宅，门轴吱呀作响。"],  # revision 1, then 2 (current)
    2: ["林默在井边捡到一枚铜钱。"],
    3: ["雨夜，铜钱在林默掌心发烫。"],
    4: ["林默推开地窖的门，看见了父亲。"],  # after the freeze point
}
EXPLORE = {"reads": [], "notes": "已读细纲与前一章。"}


@pytest.fixture
def work_id(engine) -> int:
    now = utc_now()
    with engine.begin() as conn:
        wid = conn.execute(
            insert(works).values(
                title="旧宅",
                source_kind="own",
                allowed_purposes=["production"],
                source_status="active",
                source_version="manuscript",
                default_chapter_chars=3000,
                created_at=now,
                updated_at=now,
            )
        ).inserted_primary_key[0]
        for number, revisions in CHAPTERS.items():
            cid = conn.execute(
                insert(chapters).values(
                    work_id=wid,
                    number=number,
                    title=f"第{number}章",
                    current_revision=len(revisions),
                    created_at=now,
                    updated_at=now,
                )
            ).inserted_primary_key[0]
            for revision, text in enumerate(revisions, start=1):
                conn.execute(
                    insert(prose_blocks).values(
                        chapter_id=cid,
                        revision=revision,
                        text=text,
                        content_sha256=sha256_hex(text),
                        han_count=count_han(text),
                        origin="import",
                        attribution={},
                        created_at=now,
                    )
                )
    return wid


# -- the minimal as-of reader ----------------------------------------------------------------------


def test_reader_returns_the_current_revision(engine, work_id):
    chapter = MinimalAsOfReader(engine, work_id, as_of=3).read_chapter(1)
    assert chapter["revision"] == 2 and chapter["text"] == CHAPTERS[1][1]
    assert chapter["contentSha256"] == sha256_hex(CHAPTERS[1][1])


def test_reader_works_on_a_connection_too(engine, work_id):
    with engine.connect() as conn:
        assert MinimalAsOfReader(conn, work_id, 3).read_chapter(2)["text"] == CHAPTERS[2][0]


def test_reading_a_chapter_after_as_of_is_refused(engine, work_id):
    with pytest.raises(AsOfViolation):
        MinimalAsOfReader(engine, work_id, as_of=3).read_chapter(4)


def test_search_never_reaches_past_as_of(engine, work_id):
    reader = MinimalAsOfReader(engine, work_id, as_of=3)
    assert [h["chapter"] for h in reader.search_prose("林默")] == [1, 2, 3]
    assert reader.search_prose("地窖") == []
    hit = reader.search_prose("铜钱", limit=1)[0]
    assert (hit["chapter"], CHAPTERS[2][0][hit["start"] : hit["end"]]) == (2, "铜钱")


def test_missing_chapter_and_unbuilt_sources_read_as_empty(engine, work_id):
    reader = MinimalAsOfReader(engine, work_id, as_of=10)
    assert reader.read_chapter(7) is None
    assert (
        reader.get_card("林默"),
        reader.get_outline(),
        reader.get_style(),
        reader.get_patterns(),
    ) == (None, None, None, [])


# -- the ledger ------------------------------------------------------------------------------------


def test_every_read_is_in_the_ledger_and_ok_reads_form_the_dependency_list(engine, work_id):
    tools = ToolSet(MinimalAsOfReader(engine, work_id, 3))
    first = tools.call("read_chapter", {"number": 2}, engine=engine, run_id="run_a")
    tools.call("search_prose", {"query": "铜钱"}, engine=engine, run_id="run_a")
    with pytest.raises(AsOfViolation):
        tools.call("read_chapter", {"number": 4}, engine=engine, run_id="run_a")
    with pytest.raises(InvalidInput):
        tools.call("read_chapter", {"number": "两"}, engine=engine, run_id="run_a")

    log = tool_read_log(engine, "run_a")
    assert [(r.tool, r.status) for r in log] == [
        ("read_chapter", "ok"),
        ("search_prose", "ok"),
        ("read_chapter", "refused"),
        ("read_chapter", "error"),
    ]
    assert log[0].result_sha256 == hash_value(first) and log[0].arguments == {"number": 2}
    assert log[2].result_sha256 is None and "冻结点" in log[2].error
    assert [r.tool for r in dependency_list(engine, "run_a")] == ["read_chapter", "search_prose"]
    assert dependency_list(engine, "run_other") == []


def test_a_tool_outside_the_whitelist_is_refused_and_logged(engine, work_id):
    tools = ToolSet(MinimalAsOfReader(engine, work_id, 3), allowed=["read_chapter"])
    with pytest.raises(ToolNotAllowed):
        tools.call("search_prose", {"query": "铜钱"}, engine=engine, run_id="run_b")
    [row] = tool_read_log(engine, "run_b")
    assert (row.tool, row.status, row.result_sha256) == ("search_prose", "refused", None)


def test_unknown_tool_names_are_rejected_when_building_a_toolset(engine, work_id):
    with pytest.raises(InvalidInput):
        ToolSet(MinimalAsOfReader(engine, work_id, 3), allowed=["write_chapter"])


# -- the tool-call loop through the stub server ----------------------------------------------------


def explore(call, engine, work_id, **overrides):
    arguments = dict(
        role="writer",
        task="explore",
        output_model=ExploreDraft,
        run_id="run_x",
        tools=ToolSet(MinimalAsOfReader(engine, work_id, 3)),
    )
    arguments.update(overrides)
    return call(**arguments)


def test_tool_loop_answers_reads_refuses_the_rest_and_records_everything(
    call, stub, engine, work_id
):
    stub.tool_calls(
        ("read_chapter", {"number": 3}),
        ("delete_chapter", {"number": 3}),
        ("read_chapter", {"number": 4}),
    )
    stub.reply_json(EXPLORE)
    result = explore(call, engine, work_id)

    assert result.output.notes == "已读细纲与前一章。"
    offered = [t["function"]["name"] for t in stub.requests[0].body["tools"]]
    assert offered == [
        "read_chapter",
        "search_prose",
        "get_card",
        "get_outline",
        "get_style",
        "get_patterns",
    ]
    answers = [m for m in stub.requests[1].body["messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in answers] == ["call_0", "call_1", "call_2"]
    assert json.loads(answers[0]["content"])["result"]["text"] == CHAPTERS[3][0]
    assert "白名单" in json.loads(answers[1]["content"])["error"]
    assert "冻结点" in json.loads(answers[2]["content"])["error"]

    reads = call_tool_reads(engine, result.receipt_id)
    assert [(r.tool, r.status, r.run_id) for r in reads] == [
        ("read_chapter", "ok", "run_x"),
        ("delete_chapter", "refused", "run_x"),
        ("read_chapter", "refused", "run_x"),
    ]
    assert [r.arguments for r in dependency_list(engine, "run_x")] == [{"number": 3}]
    row = only_receipt(engine)
    assert (row["status"], row["attempts"]) == ("ok", 2)
    assert row["request_params"]["toolsOffered"] == offered
    assert any(m["role"] == "tool" for m in row["messages"])


def test_a_narrowed_toolset_offers_only_its_tools(call, stub, engine, work_id):
    stub.reply_json(EXPLORE)
    explore(
        call,
        engine,
        work_id,
        tools=ToolSet(MinimalAsOfReader(engine, work_id, 3), allowed=["search_prose"]),
    )
    assert [t["function"]["name"] for t in stub.requests[0].body["tools"]] == ["search_prose"]


def test_tool_rounds_are_bounded(call, stub, engine, work_id):
    for _ in range(FAST.max_tool_rounds + 1):
        stub.tool_calls(("get_style", {}))
    with pytest.raises(ToolRoundsExceeded):
        explore(call, engine, work_id)
    assert only_receipt(engine)["status"] == "tool_rounds_exceeded"
    assert len(dependency_list(engine, "run_x")) == FAST.max_tool_rounds


def test_a_tool_call_in_a_tool_less_task_ends_the_call(call, stub, engine):
    stub.tool_calls(("read_chapter", {"number": 1}))
    with pytest.raises(ToolNotAllowed):
        call()  # writer/generate: no tools offered
    assert "tools" not in stub.requests[0].body
    assert only_receipt(engine)["status"] == "tool_refused"
