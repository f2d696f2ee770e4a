"""Structured output: the one code path from messages to a validated pydantic object.

    choose the output mode   strict ``json_schema`` where the provider supports it, else JSON
                             mode with the schema in the prompt (plus the word "JSON" where the
                             provider requires it)
    send, and on failure     429 / 5xx / connection errors: retried with bounded backoff;
                             a blank reply: retried once; a tool call: answered through the
                             ToolSession, for a bounded number of rounds
    read the reply           reported model id checked; ``finish_reason=length`` is truncation;
                             code fences stripped; JSON parsed; pydantic validation
    repair once              an invalid reply gets one repair request carrying the validation
                             error; still invalid → InvalidOutput

The whole call has one deadline (``timeout_s``); each request gets the time that is left, as a
total bound (``complete_within``), not per read. The cancel event is checked before every
request and interrupts backoff waits; a request in flight is bounded by the deadline. Every way out other than a validated object is a named
error — never an empty result.
"""

from __future__ import annotations

import contextvars
import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from pydantic import BaseModel, ValidationError

from muse.agents.errors import (
    AgentCallError,
    Cancelled,
    EmptyReply,
    InvalidOutput,
    ProviderConfigError,
    ProviderTimeout,
    ToolNotAllowed,
    ToolRoundsExceeded,
    TruncatedOutput,
)
from muse.agents.providers.base import (
    CallMeta,
    Capabilities,
    ChatReply,
    ChatRequest,
    OutputMode,
    Provider,
    ToolCall,
)
from muse.agents.receipts import CallTrace
from muse.agents.schemas import json_schema
from muse.agents.tools import ToolSession
from muse.core.redaction import redact


@dataclass(frozen=True)
class RetryPolicy:
    max_transient_retries: int = 3  # 429 / 5xx / connection errors
    base_delay_s: float = 1.0  # doubled per retry …
    max_delay_s: float = 20.0  # … up to this; a Retry-After header is honoured up to it
    max_blank_retries: int = 1
    max_tool_rounds: int = 8

    def delay(self, retry: int, retry_after_s: float | None) -> float:
        if retry_after_s is not None:
            return min(max(retry_after_s, 0.0), self.max_delay_s)
        return min(self.base_delay_s * 2.0 ** (retry - 1), self.max_delay_s)


class _ParseFailure(Exception):
    pass


_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)


def output_mode_for(
    caps: Capabilities, output_model: type[BaseModel], provider: str
) -> tuple[OutputMode, dict[str, Any] | None]:
    """The response format this provider gets for this output model."""
    if caps.supports_json_schema:
        schema = json_schema(output_model)
        name = re.sub(r"[^A-Za-z0-9_-]", "_", output_model.__name__)[:64]
        return "json_schema", {
            "name": name,
            "schema": schema,
            "strict": is_strict_compatible(schema),
        }
    if caps.supports_json_mode:
        return "json_object", None
    raise ProviderConfigError(
        f"提供方 {provider} 既不支持 json_schema 也不支持 JSON 模式，无法产出结构化输出。",
        hint="请在配置文件中核对该提供方的能力标志，或换用支持 JSON 输出的服务。",
    )


def is_strict_compatible(schema: Any) -> bool:
    """Strict json_schema needs every object closed with all its properties required."""
    if isinstance(schema, dict):
        if schema.get("type") == "object" or "properties" in schema:
            props = schema.get("properties", {})
            if schema.get("additionalProperties") is not False or set(
                schema.get("required", [])
            ) != set(props):
                return False
        return all(is_strict_compatible(v) for v in schema.values())
    if isinstance(schema, list):
        return all(is_strict_compatible(v) for v in schema)
    return True


def ensure_json_word(
    messages: list[dict[str, Any]], caps: Capabilities, mode: OutputMode
) -> list[dict[str, Any]]:
    """JSON mode on some providers rejects a prompt that never says "JSON"."""
    if mode != "json_object" or not caps.json_mode_requires_word_json:
        return messages
    if any("json" in str(m.get("content") or "").lower() for m in messages):
        return messages
    return [*messages, {"role": "user", "content": "请只输出一个 JSON 对象。"}]


def extract_json_text(text: str) -> str:
    """The JSON inside a reply: fences stripped, surrounding prose cut to the outer braces."""
    text = text.strip().lstrip("\ufeff")
    fenced = _FENCE.search(text)
    if fenced:
        text = fenced.group(1).strip()
    if not text.startswith("{") and "{" in text and "}" in text:
        text = text[text.index("{") : text.rindex("}") + 1]
    return text


def parse_output(text: str, output_model: type[BaseModel]) -> BaseModel:
    candidate = extract_json_text(text)
    try:
        data = json.loads(candidate)
    except json.JSONDecodeError as err:
        raise _ParseFailure(
            f"不是合法的 JSON：{err.msg}（第 {err.lineno} 行第 {err.colno} 列）"
        ) from err
    except (RecursionError, ValueError) as err:  # nesting too deep, an integer of 5000 digits
        raise _ParseFailure(f"JSON 无法解析（嵌套过深或数值过大）：{type(err).__name__}") from None
    if not isinstance(data, dict):
        raise _ParseFailure(f"JSON 顶层必须是对象，收到的是 {type(data).__name__}。")
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise _ParseFailure(
            "JSON 中含有孤立的代理项转义（如 \\ud800），不是合法的 Unicode 文本。"
        ) from None
    try:
        return output_model.model_validate(data)
    except RecursionError:
        raise _ParseFailure("JSON 嵌套过深，无法校验。") from None
    except ValidationError as err:
        lines = [
            f"- {'.'.join(str(p) for p in e['loc']) or '（顶层）'}：{e['msg']}（{e['type']}）"
            for e in err.errors(include_url=False)
        ]
        raise _ParseFailure("不符合输出 Schema：\n" + "\n".join(lines)) from err


def repair_message(failure: str) -> dict[str, str]:
    return {
        "role": "user",
        "content": (
            "你上一条回复没有通过校验，错误如下：\n"
            f"{failure}\n\n"
            "请重新输出完整的 JSON 对象：严格符合前面给出的 JSON Schema，修正上述每一处错误，"
            "不要解释，不要使用代码块，不要输出 JSON 以外的任何文字。"
        ),
    }


def _wait(delay: float, cancel: threading.Event | None, deadline: float) -> None:
    delay = max(0.0, min(delay, deadline - time.monotonic()))
    if cancel is not None:
        if cancel.wait(delay):
            raise Cancelled("调用已被取消。")
    elif delay:
        time.sleep(delay)


def redacted(reply: ChatReply) -> ChatReply:
    """The reply with every registered secret removed from what the model wrote: a key echoed
    in a reply never reaches a candidate, a hash, canon or the export (``core.redaction``)."""
    calls = tuple(ToolCall(c.id, c.name, redact(c.arguments)) for c in reply.tool_calls)
    return replace(reply, text=redact(reply.text), tool_calls=calls)


def complete_within(provider: Provider, request: ChatRequest) -> ChatReply:
    """``provider.complete(request)`` bounded by a total deadline of ``request.timeout_s``.

    An HTTP client's timeout bounds each read, so a reply dripping one byte a second never
    times out; here the request runs on a helper thread and the caller stops waiting when the
    call's time is up. A late reply is dropped with the thread.
    """
    replies: list[ChatReply] = []
    errors: list[BaseException] = []
    done = threading.Event()
    context = contextvars.copy_context()

    def target() -> None:
        try:
            replies.append(context.run(provider.complete, request))
        except BaseException as err:  # noqa: BLE001 - handed back to the caller's thread
            errors.append(err)
        finally:
            done.set()

    threading.Thread(target=target, name="muse-model-call", daemon=True).start()
    if not done.wait(request.timeout_s):
        abort = getattr(provider, "abort", None)
        if abort is not None:
            abort()
        raise ProviderTimeout(
            f"{provider.name} 请求超时：{request.timeout_s:.1f} 秒内没有收完回复。"
        )
    if errors:
        raise errors[0]
    return replies[0]


def _assistant_tool_message(reply: Any) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": reply.text or None,
        "tool_calls": [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in reply.tool_calls
        ],
    }


def run_structured(
    provider: Provider,
    *,
    model: str,
    output_model: type[BaseModel],
    meta: CallMeta,
    mode: OutputMode,
    json_schema: dict[str, Any] | None,
    tools: ToolSession | None,
    retry: RetryPolicy,
    timeout_s: float,
    cancel: threading.Event | None,
    verify_model: Callable[[str], None],
    trace: CallTrace,
) -> BaseModel:
    """Run the conversation in ``trace.messages`` until a validated ``output_model`` comes back."""
    deadline = time.monotonic() + timeout_s
    transient = blank = rounds = 0
    kind, repaired = "initial", False
    while True:
        if cancel is not None and cancel.is_set():
            raise Cancelled("调用已被取消。")
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise ProviderTimeout(f"调用超时：{timeout_s:.1f} 秒内没有得到合格输出。")
        request = ChatRequest(
            model,
            list(trace.messages),
            mode,
            json_schema,
            tools.schemas() if tools else None,
            remaining,
            meta,
        )
        trace.attempts += 1
        try:
            reply = redacted(complete_within(provider, request))
        except AgentCallError as err:
            trace.record_failure(kind, err)
            if not err.retryable or transient >= retry.max_transient_retries:
                raise
            transient += 1
            kind = "retry"
            _wait(retry.delay(transient, err.retry_after_s), cancel, deadline)
            continue
        trace.record_reply(kind, reply)
        verify_model(reply.model)
        if reply.tool_calls:
            if tools is None or not tools.offered:
                names = "、".join(c.name for c in reply.tool_calls)
                raise ToolNotAllowed(f"本任务不开放任何工具，模型却调用了：{names}。")
            rounds += 1
            if rounds > retry.max_tool_rounds:
                raise ToolRoundsExceeded(f"工具调用超过 {retry.max_tool_rounds} 轮仍未给出结果。")
            trace.messages.append(_assistant_tool_message(reply))
            for call in reply.tool_calls:
                trace.messages.append(
                    {
                        "role": "tool",
                        "tool_call_id": call.id,
                        "content": tools.answer(call.name, call.arguments),
                    }
                )
            kind = "tool_round"
            continue
        if reply.finish_reason == "length":
            raise TruncatedOutput(
                "模型输出被截断（达到长度上限），JSON 不完整。",
                hint="请缩短输入或调高该模型的输出上限。",
            )
        if not reply.text.strip():
            if blank >= retry.max_blank_retries:
                raise EmptyReply(f"模型连续 {blank + 1} 次返回空白回复。")
            blank += 1
            kind = "blank_retry"
            continue
        try:
            return parse_output(reply.text, output_model)
        except _ParseFailure as failure:
            if repaired:
                raise InvalidOutput(f"修复请求后输出仍不合格：{failure}") from None
            repaired, kind = True, "repair"
            trace.messages.append({"role": "assistant", "content": reply.text})
            trace.messages.append(repair_message(str(failure)))
