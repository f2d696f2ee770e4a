"""The offline provider: deterministic, no network, schema-valid output for every role and task.

It exists for the demo, dry runs and tests. It answers like a server: a chat-completion body
with the model id (``offline-1``), usage estimates and the output as JSON text, which then goes
through the same structured-output path as any real reply. Same input, same output.

Output comes from a registry keyed by (role, task). The built-in generators live in
``muse.offline``, which the composition roots (CLI entry, demo, tests) install with
:func:`set_builtin_loader`; this module never imports them. ``register_offline_generator`` lets a
test plug in its own generator (it takes precedence over the built-in ones); where no generator
answers, a generic fallback builds a schema-valid instance of the output model seeded by the
input hash (``schema_sample``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from pydantic import BaseModel, ValidationError

from muse.agents.contracts import OFFLINE_MODEL, load_roles
from muse.agents.errors import InvalidOutput, ProviderRejected
from muse.agents.providers.base import Capabilities, ChatReply, ChatRequest, Price, Usage
from muse.agents.providers.schema_sample import sample_instance
from muse.agents.schemas import json_schema
from muse.core.canonical import hash_value

OFFLINE_MODELS = (OFFLINE_MODEL,)

OfflineGenerator = Callable[[dict[str, Any], type[BaseModel]], dict[str, Any] | None]

_registered: dict[tuple[str, str], OfflineGenerator] = {}
_builtin: dict[tuple[str, str], list[OfflineGenerator]] = {}
_loader: list[Callable[[str, str], None]] = []


def set_builtin_loader(load: Callable[[str, str], None]) -> None:
    """Install the function that registers the built-in generators of a (role, task)
    (``muse.offline.load``); it runs before every offline call and must be idempotent (module
    imports are)."""
    _loader[:] = [load]


def register_offline_generator(role: str, task: str, fn: OfflineGenerator) -> None:
    """Use ``fn(task_input, output_model) -> dict`` for offline calls of (role, task).

    ``role`` may be an alias (``blind_judge``); the registration applies to the canonical role.
    A later registration for the same key replaces the earlier one.
    """
    _registered[(load_roles().canonical_role(role), task)] = fn


def unregister_offline_generator(role: str, task: str) -> None:
    _registered.pop((load_roles().canonical_role(role), task), None)


def builtin_generator(role: str, task: str) -> Callable[[OfflineGenerator], OfflineGenerator]:
    """Decorator for built-in generators; several may serve one key, each declining (``None``)
    the inputs or output models it does not know. Tried in registration order."""

    def wrap(fn: OfflineGenerator) -> OfflineGenerator:
        chain = _builtin.setdefault((role, task), [])
        if fn not in chain:
            chain.append(fn)
        return fn

    return wrap


_VOLATILE = re.compile(
    r"\b[a-z]+_[0-9a-f]{20}\b"  # a Muse id (run_…, ctx_…, card_…): new on every run
    r"|\b[0-9a-f]{64}\b"  # a sha256, which may cover such ids
    r"|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?"  # a time
)


def stable_input(value: Any) -> Any:
    """``value`` with what differs between two runs on the same inputs (ids, hashes, times,
    also inside longer strings) blanked out, so the offline provider gives the same output for
    the same book, outline, cards and model."""
    if isinstance(value, dict):
        return {k: stable_input(v) for k, v in value.items()}
    if isinstance(value, list):
        return [stable_input(v) for v in value]
    if isinstance(value, str):
        return _VOLATILE.sub("·", value)
    return value


def offline_seed(
    role: str, task: str, task_input: dict[str, Any], output_model: type[BaseModel]
) -> str:
    return hash_value(
        {
            "role": role,
            "task": task,
            "input": stable_input(task_input),
            "schema": json_schema(output_model),
        }
    )


def generate_offline(
    role: str, task: str, task_input: dict[str, Any], output_model: type[BaseModel]
) -> dict[str, Any]:
    """The offline output for one call: registered, then built-in, then the schema fallback."""
    key = (_canonical(role), task)
    for load in _loader:
        load(*key)
    registered = [_registered[key]] if key in _registered else []
    for generator in [*registered, *_builtin.get(key, [])]:
        data = generator(task_input, output_model)
        if data is not None:  # a generator may decline an input or output model it does not know
            return data
    return fallback_instance(role, task, task_input, output_model)


def fallback_instance(
    role: str, task: str, task_input: dict[str, Any], output_model: type[BaseModel]
) -> dict[str, Any]:
    data = sample_instance(
        json_schema(output_model), offline_seed(role, task, task_input, output_model)
    )
    try:
        output_model.model_validate(data)
    except ValidationError as err:
        raise InvalidOutput(
            f"离线提供方无法为 {output_model.__name__} 自动生成合法输出：{err.error_count()} 处校验错误。",
            hint=f"请用 register_offline_generator('{role}', '{task}', fn) 注册专用的离线生成器。",
        ) from err
    assert isinstance(data, dict)  # it validated as a model, so it is a JSON object
    return data


def _canonical(role: str) -> str:
    """The canonical role for a known role or alias; other names (a probe) stay as they are."""
    catalog = load_roles()
    return catalog.aliases.get(role, role)


def _estimate_tokens(text: str) -> int:
    return max(1, round(len(text) / 1.5))


class OfflineProvider:
    name = "offline"
    kind = "offline"
    base_url = None
    capabilities = Capabilities(
        supports_json_schema=True,
        supports_tools=True,
        prices={"*": Price(Decimal("0"), Decimal("0"))},
    )

    def secrets(self) -> tuple[str, ...]:
        return ()

    def complete(self, request: ChatRequest) -> ChatReply:
        if request.model not in OFFLINE_MODELS:
            raise ProviderRejected(
                f"离线提供方没有模型 {request.model}。",
                hint=f"离线提供方的模型：{'、'.join(OFFLINE_MODELS)}。",
            )
        meta = request.meta
        data = generate_offline(meta.role, meta.task, meta.task_input, meta.output_model)
        text = json.dumps(data, ensure_ascii=False, sort_keys=True)
        prompt = "".join(str(m.get("content") or "") for m in request.messages)
        usage = Usage(_estimate_tokens(prompt), _estimate_tokens(text), None)
        raw = {
            "id": f"offline-{hash_value(data)[:16]}",
            "object": "chat.completion",
            "model": request.model,
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": text},
                }
            ],
            "usage": {
                "prompt_tokens": usage.prompt_tokens,
                "completion_tokens": usage.completion_tokens,
                "total_tokens": usage.prompt_tokens + usage.completion_tokens,
            },
        }
        return ChatReply(text=text, model=request.model, finish_reason="stop", usage=usage, raw=raw)
