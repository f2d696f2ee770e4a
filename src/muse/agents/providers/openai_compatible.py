"""The openai-compatible provider, on the official ``openai`` SDK (the only module importing it).

One request per ``complete``: the SDK's own retries are off (``max_retries=0``) because retries,
backoff and cancellation belong to the structured-output loop, where they are counted in the
receipt. The SDK is given the base URL and the key explicitly, so nothing about the endpoint is
picked up from ``OPENAI_*`` environment variables. The reply is read from the raw JSON body, so
vendor extensions (DeepSeek's ``prompt_cache_hit_tokens``, ``reasoning_content``) are kept.

``MUSE_ALLOW_MODEL_REQUESTS=0`` (set by the test suite) refuses every base URL that is not a
loopback address: local stub servers work, a real service is never reached by accident.
"""

from __future__ import annotations

import ipaddress
import os
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from muse.agents.errors import (
    MalformedResponse,
    ProviderRejected,
    ProviderTimeout,
    RateLimited,
    RealRequestsDisabled,
    ServerError,
    TransportError,
)
from muse.agents.providers.base import Capabilities, ChatReply, ChatRequest, ToolCall, Usage

if TYPE_CHECKING:
    import openai

ALLOW_ENV = "MUSE_ALLOW_MODEL_REQUESTS"
KEYLESS_PLACEHOLDER = "not-needed"  # the SDK wants some key; local servers ignore it


def is_loopback_url(url: str) -> bool:
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_requests_allowed(base_url: str) -> None:
    """Refuse a non-loopback URL when real model requests are disallowed (tests)."""
    disabled = os.environ.get(ALLOW_ENV, "1").strip().lower() in {"0", "false", "no", "off"}
    if disabled and not is_loopback_url(base_url):
        raise RealRequestsDisabled(
            f"已禁止真实模型请求（{ALLOW_ENV}=0），拒绝访问 {base_url}。",
            hint="测试与演示请用 --provider offline，或指向本机（127.0.0.1）的桩服务。",
        )


class OpenAICompatibleProvider:
    kind = "openai-compatible"

    def __init__(
        self,
        *,
        name: str,
        base_url: str,
        api_key: str | None,
        capabilities: Capabilities,
        http_client: Any = None,
    ) -> None:
        self.name = name
        self.base_url = base_url.rstrip("/")
        check_requests_allowed(self.base_url)  # refuse before anything is built or sent
        self.capabilities = capabilities
        self._api_key = api_key
        import openai  # the SDK costs ~0.5 s to import: only when a real provider is built

        self._owns_client = http_client is None
        self._client = openai.OpenAI(
            api_key=api_key or KEYLESS_PLACEHOLDER,
            base_url=self.base_url,
            max_retries=0,
            http_client=http_client,
        )

    def secrets(self) -> tuple[str, ...]:
        return (self._api_key,) if self._api_key else ()

    def abort(self) -> None:
        """Drop the connections of a request whose deadline passed (``structured.complete_within``),
        so an abandoned slow reply stops at once; a client the caller lent us is left alone."""
        if self._owns_client:
            self._client.close()

    def complete(self, request: ChatRequest) -> ChatReply:
        check_requests_allowed(self.base_url)  # and again: the environment may have changed
        import openai  # already loaded by __init__; the name is needed for the except clauses

        try:
            raw = self._client.chat.completions.with_raw_response.create(**self._body(request))
        except openai.APIStatusError as err:
            raise _status_error(err) from err
        except openai.APITimeoutError as err:
            raise ProviderTimeout(f"{self.name} 请求超时（{request.timeout_s:.1f} 秒）。") from err
        except openai.APIConnectionError as err:
            raise TransportError(f"无法连接 {self.name}（{self.base_url}）：{err}") from err
        try:
            body = raw.http_response.json()
        except ValueError as err:
            text = raw.http_response.text[:500]
            raise MalformedResponse(f"{self.name} 的回复不是 JSON：{text}") from err
        return parse_reply(body, self.name)

    def _body(self, request: ChatRequest) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": request.model,
            "messages": request.messages,
            "timeout": request.timeout_s,
        }
        if request.output_mode == "json_schema":
            body["response_format"] = {"type": "json_schema", "json_schema": request.json_schema}
        else:
            body["response_format"] = {"type": "json_object"}
        if request.tools:  # no tools: no "tools" key at all (the writer's generate task)
            body["tools"] = request.tools
        return body


def _retry_after(err: openai.APIStatusError) -> float | None:
    value = err.response.headers.get("retry-after") if err.response is not None else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def _status_error(err: openai.APIStatusError) -> Exception:
    status = err.status_code
    detail = f"HTTP {status}：{err.message}"
    if status == 429:
        return RateLimited(f"请求过于频繁或额度不足（{detail}）", retry_after_s=_retry_after(err))
    if status >= 500 or status in (408, 409):
        return ServerError(f"模型服务出错（{detail}）", retry_after_s=_retry_after(err))
    if status in (401, 403):
        return ProviderRejected(f"密钥无效或无权限（{detail}）", hint="请检查 API 密钥与账户权限。")
    return ProviderRejected(f"模型服务拒绝了请求（{detail}）")


def _text_of(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, list):  # some vendors return content parts
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return str(content)


def parse_reply(body: Any, provider: str) -> ChatReply:
    """A ``ChatReply`` from a chat-completions JSON body; anything else is MalformedResponse."""
    try:
        choice = body["choices"][0]
        message = choice.get("message") or {}
        calls = tuple(
            ToolCall(c["id"], c["function"]["name"], c["function"].get("arguments") or "{}")
            for c in message.get("tool_calls") or ()
        )
        usage = body.get("usage") or {}
        details = usage.get("prompt_tokens_details") or {}
        cached = details.get("cached_tokens", usage.get("prompt_cache_hit_tokens"))
        return ChatReply(
            text=_text_of(message.get("content")),
            model=str(body.get("model") or ""),
            tool_calls=calls,
            finish_reason=choice.get("finish_reason"),
            usage=Usage(
                _token_count(usage.get("prompt_tokens"), "prompt_tokens", provider) or 0,
                _token_count(usage.get("completion_tokens"), "completion_tokens", provider) or 0,
                _token_count(cached, "cached_tokens", provider),
            ),
            raw=body,
        )
    except (KeyError, IndexError, TypeError, AttributeError, ValueError) as err:
        raise MalformedResponse(f"{provider} 的回复不是有效的对话补全结构：{err!r}") from err


MAX_REPORTED_TOKENS = 100_000_000  # no single call reads or writes more; beyond is a bad reply


def _token_count(value: Any, field: str, provider: str) -> int | None:
    """A reported token count: a whole number in [0, MAX_REPORTED_TOKENS], else the reply is
    malformed (a count of 10^20 would not even fit the receipt)."""
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise MalformedResponse(f"{provider} 回复的 usage.{field} 不是数字：{value!r:.80}")
    try:
        number = int(value)
    except (ValueError, OverflowError) as err:
        raise MalformedResponse(f"{provider} 回复的 usage.{field} 不是整数：{value!r:.80}") from err
    if not 0 <= number <= MAX_REPORTED_TOKENS:
        raise MalformedResponse(
            f"{provider} 回复的 usage.{field} = {str(number)[:30]} 超出合理范围"
            f"（0–{MAX_REPORTED_TOKENS}），拒绝采信该回复。"
        )
    return number
