"""The fixed input order of a round (spec 001 §2.3) and the tool-less generation input."""

from __future__ import annotations

import json

import pytest

from muse.agents.dispatching import dispatch
from muse.agents.errors import ToolsRefused
from muse.agents.prompts import model_view
from muse.agents.receipts import get_receipt
from muse.agents.tools import ToolSet
from muse.context.as_of import AsOfView
from muse.context.explore.tool_reader import AsOfToolReader
from muse.context.output_contracts import WriterDraft
from muse.context.round_order import ITEMS, round_inputs, writer_input
from muse.core.errors import InvalidInput
from muse.works.authorization import take_snapshot

from .two_phase import RUN, freeze, two_phase, with_cards

WORDS = "改：把分别那场戏写得更克制，\r\n苏晴不要哭。"


def _generate(engine, task_input, **kwargs):
    return dispatch(
        engine,
        role="writer",
        task="generate",
        provider="offline",
        model="offline-1",
        task_input=task_input,
        output_model=WriterDraft,
        run_id=RUN,
        **kwargs,
    )


def test_round_inputs_are_the_seven_items_in_the_spec_order(engine, marked_book):
    ctx = two_phase(engine, marked_book, 9).context
    items = round_inputs(ctx)
    assert [(i.position, i.key) for i in items] == [
        (1, "work_facts"),
        (2, "fine_outline"),
        (3, "previous_chapters"),
        (4, "style_and_patterns"),
        (5, "prevention"),
        (6, "method_checks"),
        (7, "author_words"),
    ]
    assert items[0].content["asOf"] == 8 and items[0].content["targetChapter"] == 9
    assert items[0].content["replayedMaterials"]
    assert items[1].content["fineOutline"]["target_chapter"] == 9
    assert {p["purpose"] for p in items[2].content["proseEvidence"]} >= {"baseline"}
    assert "outputContract" in items[4].content
    assert items[5].content == {} and "待建" in items[5].summary
    assert items[6].summary == "写第 9 章"


def test_the_writer_input_is_the_context_in_that_order(engine, marked_book):
    ctx = two_phase(engine, marked_book, 9, author_words=WORDS, round_number=2).context
    data = writer_input(ctx)
    assert data == ctx.wire()  # same keys, same values: exactly the serialized context
    keys = list(data)
    positions = {f: n for n, _, _, fields in ITEMS for f in fields}
    order = [positions[k] for k in keys if k in positions]
    assert order == sorted(order) and keys[-1] == "authorInstruction"
    assert keys.index("workId") > keys.index("omittedSources")  # provenance before item 1


def test_round_two_changes_only_item_seven(engine, marked_book):
    with_cards(engine, marked_book)
    with engine.begin() as conn:
        auth = take_snapshot(conn, marked_book, "production")
    first = freeze(engine, marked_book, 9, authorization=auth).context
    second = freeze(engine, marked_book, 9, authorization=auth, author_words=WORDS, round_number=2)
    one, two = round_inputs(first), round_inputs(second.context)
    assert [i.content for i in one[:6]] == [i.content for i in two[:6]]
    assert two[6].content == {
        "authorInstruction": {"round": 2, "words": WORDS.replace("\r\n", "\n")}
    }
    assert two[6].summary == WORDS.replace("\r\n", "\n")
    assert first.context_snapshot.sha256 != second.context.context_snapshot.sha256
    with pytest.raises(InvalidInput, match="第 2 轮必须带上作者上一轮的原话"):
        freeze(engine, marked_book, 9, authorization=auth, round_number=2)


def test_generation_input_is_exactly_the_serialized_context_and_offers_no_tools(
    engine, marked_book
):
    ctx = two_phase(engine, marked_book, 9, author_words=WORDS, round_number=2).context
    result = _generate(engine, writer_input(ctx))
    receipt = get_receipt(engine, result.receipt_id)
    assert receipt.task_input == ctx.wire()
    assert receipt.request_params["toolsOffered"] == []
    user = receipt.messages[1]["content"]
    # what the model reads: the stored input without run identity (prompts.model_view), last
    serialized = json.dumps(model_view(writer_input(ctx)), ensure_ascii=False, indent=2)
    assert serialized in user and user.rstrip().endswith(serialized + "\n```")
    assert ctx.run_id not in user
    spots = [user.index(f'"{key}"') for key in ("workId", "fineOutline", "proseEvidence")]
    spots += [user.index(f'"{key}"') for key in ("outputContract", "authorInstruction")]
    assert spots == sorted(spots)
    with engine.connect() as conn:
        tools = ToolSet(AsOfToolReader(AsOfView(conn, marked_book, 8), 9))
        with pytest.raises(ToolsRefused):
            _generate(engine, writer_input(ctx), tools=tools)
