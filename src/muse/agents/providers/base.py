"""What a provider is: messages (plus an optional output schema and tools) in, one reply out.

A provider sends exactly one request per ``complete`` call and reports what the server said:
the text, any tool calls, the model id the server reports, token usage and the raw response
body. Retries, repair, tool loops, model-id checks and receipts live above it (``structured``,
``dispatch``), so every provider gets the same behaviour from one code path.

Failures are raised as the agents error classes (``RateLimited``, ``ServerError``,
``ProviderTimeout`` …); a provider never returns an empty reply in place of an error.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Literal, Protocol

from pydantic import BaseModel

OutputMode = Literal["json_schema", "json_object"]


@dataclass(frozen=True)
class Price:
    """Estimated price per 1M tokens (a preset's published list price; edit when it changes)."""

    input: Decimal
    output: Decimal
    cached_input: Decimal | None = None
    currency: str = "CNY"


@dataclass(frozen=True)
class Capabilities:
    supports_json_schema: bool = False  # strict response_format json_schema
    supports_json_mode: bool = True  # response_format json_object
    json_mode_requires_word_json: bool = False  # the prompt must contain the word "JSON"
    supports_tools: bool = True
    prices: dict[str, Price] = field(default_factory=dict)  # model id → price

    def price_for(self, model: str) -> Price | None:
        return self.prices.get(model) or self.prices.get("*")


@dataclass(frozen=True)
class CallMeta:
    """Who is asking: used by the offline provider to build its output, ignored by HTTP ones."""

    role: str
    task: str
    task_input: dict[str, Any]
    output_model: type[BaseModel]


@dataclass(frozen=True)
class ChatRequest:
    model: str
    messages: list[dict[str, Any]]
    output_mode: OutputMode
    json_schema: dict[str, Any] | None  # {"name", "schema", "strict"} for json_schema mode
    tools: list[dict[str, Any]] | None  # OpenAI tool definitions; None: no tools key at all
    timeout_s: float
    meta: CallMeta


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: str  # JSON text, as the model wrote it


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int | None = None  # None: the provider did not report it


@dataclass(frozen=True)
class ChatReply:
    text: str
    model: str  # the model id the server reports
    tool_calls: tuple[ToolCall, ...] = ()
    finish_reason: str | None = None
    usage: Usage = Usage()
    raw: Any = None  # the raw response body (JSON), stored in the receipt


class Provider(Protocol):
    @property
    def name(self) -> str:
        """As the caller named it: offline, deepseek, a config entry …"""
        ...

    @property
    def kind(self) -> str:
        """offline | openai-compatible"""
        ...

    @property
    def base_url(self) -> str | None: ...

    @property
    def capabilities(self) -> Capabilities: ...

    def complete(self, request: ChatRequest) -> ChatReply: ...

    def secrets(self) -> tuple[str, ...]:
        """Values that must never be stored or logged (API keys)."""
        ...
