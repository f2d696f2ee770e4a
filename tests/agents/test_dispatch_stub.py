"""Dispatch against a local OpenAI-compatible stub server: the structured-output path and its
failures, each checked on the request the server received and on the stored receipt."""

from __future__ import annotations

import json
import threading

import pytest
from sqlalchemy import select

from muse.agents.errors import (
    Cancelled,
    EmptyReply,
    ForbiddenInput,
    InvalidOutput,
    MalformedResponse,
    MissingApiKey,
    ModelMismatch,
    ModelNotAllowed,
    ProviderRejected,
    ProviderTimeout,
    RateLimited,
    RealRequestsDisabled,
    ServerError,
    ToolsRefused,
    TruncatedOutput,
)
from muse.agents.tables import model_calls
from muse.core.canonical import hash_value
from muse.evaluation.contracts import JudgeScores
from tests.agents.payloads import DRAFT, FAST, SECRET, WRITER_INPUT
from tests.agents.strict_draft import StrictDraft


def receipts(engine) -> list[dict]:
    with engine.connect() as conn:
        return [dict(r._mapping) for r in conn.execute(select(model_calls))]


def only_receipt(engine) -> dict:
    rows = receipts(engine)
    assert len(rows) == 1
    return rows[0]


# -- success paths ---------------------------------------------------------------------------------


def test_success_with_strict_json_schema_stores_a_full_receipt(call, stub, engine):
    stub.reply_json(DRAFT, usage=(1200, 80), cached=1000)
    result = call(run_id="run_0001")

    assert isinstance(result.output, StrictDraft)
    assert result.output.paragraphs[0].text == "他推开门，雨声扑面而来。"
    assert result.model_returned == "deepseek-chat"
    body = stub.requests[0].body
    assert stub.requests[0].path == "/v1/chat/completions"
    assert body["model"] == "deepseek-chat"
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["strict"] is True
    assert body["response_format"]["json_schema"]["schema"] == StrictDraft.model_json_schema()
    system, user = body["messages"]
    assert "网文写手" in system["content"] and "角色合同" in system["content"]
    assert "林默在雨夜推开旧宅的门" in user["content"]  # frozen task input
    assert '"newSettingDeclarations"' in user["content"]  # output schema

    row = only_receipt(engine)
    assert row["id"] == result.receipt_id and row["run_id"] == "run_0001"
    assert (row["status"], row["attempts"], row["role"], row["task"]) == (
        "ok",
        1,
        "writer",
        "generate",
    )
    assert (row["tokens_in"], row["tokens_out"], row["tokens_cached"]) == (1200, 80, 1000)
    assert (row["policy_name"], row["policy_version"]) == ("fixed", "role-policy-v1")
    assert row["model_requested"] == row["model_returned"] == "deepseek-chat"
    assert row["input_sha256"] == hash_value(WRITER_INPUT)
    assert row["output_sha256"] == hash_value(DRAFT)
    assert row["messages_sha256"] == hash_value(body["messages"])
    assert row["messages"] == body["messages"]
    assert row["raw_outputs"][0]["body"]["choices"][0]["message"]["content"] == json.dumps(
        DRAFT, ensure_ascii=False
    )
    assert row["prompt_templates"]["task"] == "writer/generate v2"
    assert row["latency_ms"] >= 0 and row["error"] is None


def test_json_mode_path_puts_schema_and_the_word_json_in_the_prompt(call, stub):
    stub.reply_json(DRAFT)
    call(provider="stub-json")
    body = stub.requests[0].body
    assert body["response_format"] == {"type": "json_object"}
    prompt = "\n".join(m["content"] for m in body["messages"])
    assert "JSON" in prompt
    assert json.dumps(StrictDraft.model_json_schema(), ensure_ascii=False, indent=2) in prompt


def test_fenced_json_is_accepted(call, stub):
    stub.reply("好的，以下是结果：\n```json\n" + json.dumps(DRAFT, ensure_ascii=False) + "\n```\n")
    assert call().output.model_dump() == DRAFT
    assert len(stub.requests) == 1


def test_a_reported_dated_alias_declared_in_the_policy_is_accepted(call, stub):
    stub.reply_json(DRAFT, model="gpt-4o-2024-08-06")
    assert call(model="gpt-4o").model_returned == "gpt-4o-2024-08-06"


# -- repair ----------------------------------------------------------------------------------------


def test_invalid_json_gets_one_repair_request_carrying_the_error(call, stub, engine):
    stub.reply('{"paragraphs": [{"text": "他推开门"}], ')
    stub.reply_json(DRAFT)
    result = call()
    assert result.output.model_dump() == DRAFT
    repair = stub.requests[1].body["messages"]
    assert repair[-2] == {"role": "assistant", "content": '{"paragraphs": [{"text": "他推开门"}], '}
    assert "不是合法的 JSON" in repair[-1]["content"]
    row = only_receipt(engine)
    assert (row["status"], row["attempts"]) == ("ok", 2)
    assert [o["kind"] for o in row["raw_outputs"]] == ["initial", "repair"]


def test_schema_error_is_named_field_by_field_in_the_repair_request(call, stub):
    stub.reply_json({"paragraphs": [{"text": "他推开门"}]})  # newSettingDeclarations missing
    stub.reply_json(DRAFT)
    call()
    repair = stub.requests[1].body["messages"][-1]["content"]
    assert "newSettingDeclarations" in repair and "missing" in repair


def test_still_invalid_after_repair_is_a_specific_error_and_recorded(call, stub, engine):
    stub.reply("不是 JSON")
    stub.reply('{"paragraphs": []}')
    with pytest.raises(InvalidOutput) as caught:
        call()
    assert "修复请求后输出仍不合格" in caught.value.message
    row = only_receipt(engine)
    assert (row["status"], row["attempts"], row["output"]) == ("invalid_output", 2, None)
    assert len(stub.requests) == 2


# -- blank, truncated, malformed -------------------------------------------------------------------


def test_blank_reply_is_retried_once(call, stub, engine):
    stub.reply("   ")
    stub.reply_json(DRAFT)
    assert call().output.model_dump() == DRAFT
    assert stub.requests[1].body["messages"] == stub.requests[0].body["messages"]
    assert only_receipt(engine)["attempts"] == 2


def test_two_blank_replies_end_as_empty_reply(call, stub, engine):
    stub.reply("")
    stub.reply(None)
    with pytest.raises(EmptyReply):
        call()
    assert only_receipt(engine)["status"] == "empty_reply"


def test_truncated_reply_ends_as_truncated_output(call, stub, engine):
    stub.reply('{"paragraphs": [{"text": "他推开门，雨', finish_reason="length")
    with pytest.raises(TruncatedOutput):
        call()
    row = only_receipt(engine)
    assert (row["status"], row["attempts"]) == ("truncated_output", 1)


def test_truncated_json_without_length_flag_goes_through_repair(call, stub, engine):
    stub.reply('{"paragraphs": [{"text": "他推开门，雨')
    stub.reply('{"paragraphs": [{"text": "他推')
    with pytest.raises(InvalidOutput):
        call()
    assert only_receipt(engine)["status"] == "invalid_output"


def test_a_reply_that_is_not_a_chat_completion_is_malformed(call, stub, engine):
    stub.raw(b'{"unexpected": true}')
    with pytest.raises(MalformedResponse):
        call()
    assert only_receipt(engine)["status"] == "malformed_response"


# -- transport: 429, 5xx, timeout, cancel ----------------------------------------------------------


def test_429_then_success(call, stub, engine):
    stub.status(429, headers={"retry-after": "0"})
    stub.reply_json(DRAFT)
    assert call().output.model_dump() == DRAFT
    row = only_receipt(engine)
    assert (row["status"], row["attempts"]) == ("ok", 2)
    assert "RateLimited" in row["raw_outputs"][0]["error"]


def test_429_every_time_ends_as_rate_limited(call, stub, engine):
    for _ in range(FAST.max_transient_retries + 1):
        stub.status(429)
    with pytest.raises(RateLimited):
        call()
    assert only_receipt(engine)["attempts"] == FAST.max_transient_retries + 1


def test_500_is_retried_with_bounded_backoff_then_fails(call, stub, engine):
    for _ in range(FAST.max_transient_retries + 1):
        stub.status(500)
    with pytest.raises(ServerError):
        call()
    assert len(stub.requests) == FAST.max_transient_retries + 1
    row = only_receipt(engine)
    assert (row["status"], row["model_returned"]) == ("server_error", None)


def test_a_4xx_is_not_retried(call, stub, engine):
    stub.status(400, {"error": {"message": "bad response_format"}})
    with pytest.raises(ProviderRejected) as caught:
        call()
    assert "bad response_format" in caught.value.message
    assert len(stub.requests) == 1


def test_timeout_ends_the_call(call, stub, engine):
    stub.hang(3)
    with pytest.raises(ProviderTimeout):
        call(timeout_s=0.5)
    assert only_receipt(engine)["status"] == "timeout"


def test_cancel_set_before_the_call_sends_nothing(call, stub, engine):
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(Cancelled):
        call(cancel=cancel)
    assert stub.requests == []
    assert only_receipt(engine)["status"] == "cancelled"


def test_cancel_interrupts_the_backoff_between_attempts(call, stub, engine):
    cancel = threading.Event()
    stub.status(500, headers={"retry-after": "30"})

    def cancel_once_the_first_attempt_failed() -> None:
        # Wait for the first request rather than a fixed delay: on a loaded machine the first
        # attempt may take longer than any delay chosen here.
        while not stub.requests and not cancel.wait(0.01):
            pass
        cancel.set()

    waiter = threading.Thread(target=cancel_once_the_first_attempt_failed, daemon=True)
    waiter.start()
    slow = FAST.__class__(max_delay_s=30)
    with pytest.raises(Cancelled):
        call(cancel=cancel, retry=slow, timeout_s=60)
    waiter.join()
    assert len(stub.requests) == 1


# -- model identity --------------------------------------------------------------------------------


def test_a_different_reported_model_is_rejected_and_recorded(call, stub, engine):
    stub.reply_json(DRAFT, model="deepseek-chat-lite")
    with pytest.raises(ModelMismatch) as caught:
        call()
    assert "deepseek-chat-lite" in caught.value.message
    row = only_receipt(engine)
    assert (row["status"], row["model_requested"], row["model_returned"]) == (
        "model_mismatch",
        "deepseek-chat",
        "deepseek-chat-lite",
    )
    assert row["output"] is None


def test_judge_gets_no_alias_leeway(call, stub, engine):
    stub.reply_json({"candidates": []}, model="deepseek-v4.1-flash-20260801")
    with pytest.raises(ModelMismatch):
        call(
            role="blind_judge",
            task="score",
            model="deepseek-v4.1-flash",
            task_input={"candidates": [{"label": "A", "text": "……"}]},
            output_model=JudgeScores,
        )


# -- refused before anything is sent ---------------------------------------------------------------


def test_model_not_in_policy_is_refused_naming_the_policy(call, stub, engine):
    with pytest.raises(ModelNotAllowed) as caught:
        call(model="some-unlisted-model")
    assert "fixed@role-policy-v1" in caught.value.message
    assert stub.requests == []
    row = only_receipt(engine)
    assert (row["status"], row["attempts"]) == ("refused_policy", 0)


def test_empty_model_is_refused(call, stub):
    with pytest.raises(ModelNotAllowed) as caught:
        call(model="")
    assert "显式指定" in caught.value.message
    assert stub.requests == []


def test_judge_input_with_forbidden_keys_is_refused_before_dispatch(call, stub, engine):
    judge_input = {
        "rubric": "五维量表",
        "candidates": [{"label": "A", "text": "……", "armId": "C", "candidateSha256": "ab" * 32}],
        "oracle": "原著第 4 章",
    }
    with pytest.raises(ForbiddenInput) as caught:
        call(
            role="judge",
            task="score",
            model="deepseek-v4.1-flash",
            task_input=judge_input,
            output_model=JudgeScores,
        )
    message = caught.value.message
    assert "candidates[0].armId" in message and "candidates[0].candidateSha256" in message
    assert "oracle" in message
    assert stub.requests == []
    assert only_receipt(engine)["status"] == "refused_input"


def test_writer_generate_sends_no_tools_key(call, stub):
    stub.reply_json(DRAFT)
    call()
    assert "tools" not in stub.requests[0].body
    assert "tool_choice" not in stub.requests[0].body


def test_a_toolset_for_writer_generate_is_refused(call, stub, engine):
    from muse.agents.tools import ToolSet
    from tests.agents.minimal_reader import MinimalAsOfReader

    with pytest.raises(ToolsRefused):
        call(tools=ToolSet(MinimalAsOfReader(engine, 1, 3)))
    assert stub.requests == []
    assert only_receipt(engine)["status"] == "refused_tools"


# -- keys ------------------------------------------------------------------------------------------


def test_missing_key_names_the_variable_and_the_offline_provider(engine, stub):
    from muse.agents.dispatching import dispatch

    with pytest.raises(MissingApiKey) as caught:
        dispatch(
            engine,
            role="writer",
            task="generate",
            provider="deepseek",
            model="deepseek-chat",
            task_input=WRITER_INPUT,
            output_model=StrictDraft,
        )
    text = str(caught.value)
    assert "DEEPSEEK_API_KEY" in text and "--provider offline" in text
    assert only_receipt(engine)["status"] == "missing_key"


def test_real_requests_are_refused_when_disallowed(engine, monkeypatch):
    from muse.agents.dispatching import dispatch

    monkeypatch.setenv("DEEPSEEK_API_KEY", SECRET)
    with pytest.raises(RealRequestsDisabled) as caught:
        dispatch(
            engine,
            role="writer",
            task="generate",
            provider="deepseek",
            model="deepseek-chat",
            task_input=WRITER_INPUT,
            output_model=StrictDraft,
        )
    assert "api.deepseek.com" in caught.value.message
    row = only_receipt(engine)
    assert (row["status"], row["attempts"]) == ("requests_disabled", 0)
    assert SECRET not in repr(row)


def test_the_api_key_is_sent_but_never_stored(call, stub, engine):
    stub.status(400, {"error": {"message": f"invalid key {SECRET}"}})  # a server echoing the key
    with pytest.raises(ProviderRejected):
        call()
    stub.reply_json(DRAFT)
    call()
    assert stub.requests[0].headers["authorization"] == f"Bearer {SECRET}"
    rows = receipts(engine)
    assert len(rows) == 2
    for row in rows:
        assert SECRET not in json.dumps(row, ensure_ascii=False, default=str)
    # the rejected call's receipt holds the error (rows come back in no set order on PostgreSQL)
    [failed] = [row for row in rows if row["error"]]
    assert "[已隐去]" in failed["error"]


def test_a_reply_with_a_nul_character_is_still_recorded(call, stub, engine):
    draft = {"paragraphs": [{"text": "门\x00开了"}], "newSettingDeclarations": []}
    stub.reply_json(draft)
    assert call().output.paragraphs[0].text == "门\x00开了"
    row = only_receipt(engine)
    assert row["output"]["paragraphs"][0]["text"] == "门\ufffd开了"
    assert row["output_sha256"] == hash_value(draft)
