"""What the author's ``muse models`` commands ask: which providers exist, is a model reachable.

``provider_statuses`` says, for every known provider, where its key would come from (env,
config file, missing, not needed) without ever reading the value out. ``check_model`` makes one
tiny request to a provider and reports what the server said, including the model id it reports
and which roles' current policies allow that model. It is a setup check for the author, not a
role call: it is not dispatched and writes no receipt (it runs before a database may exist).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from pydantic import ConfigDict

from muse.agents.config import MuseConfig, load_config
from muse.agents.contracts import RoleCatalog, load_roles
from muse.agents.policy import roles_allowing
from muse.agents.providers import endpoint, key_source, known_provider_names, resolve_provider
from muse.agents.providers.base import CallMeta, ChatRequest
from muse.agents.providers.presets import find_preset
from muse.agents.structured import ensure_json_word, output_mode_for
from muse.core.contract import UnaliasedContract
from muse.core.errors import MuseError


@dataclass(frozen=True)
class ProviderStatus:
    name: str
    label: str
    kind: str
    base_url: str | None
    key_env: str | None
    key_source: str  # env | config | missing | not_needed | error
    output_mode: str | None  # json_schema | json_object
    aliases: tuple[str, ...]
    problem: str | None = None


def provider_statuses(config: MuseConfig | None = None) -> list[ProviderStatus]:
    config = config or load_config()
    found = [
        ProviderStatus(
            "offline",
            "离线（确定性，无网络）",
            "offline",
            None,
            None,
            "not_needed",
            "json_schema",
            (),
        )
    ]
    for name in known_provider_names(config)[1:]:
        preset = find_preset(name)
        try:
            point = endpoint(name, config)
        except MuseError as err:  # a broken entry is shown, not fatal
            found.append(
                ProviderStatus(
                    name, name, "openai-compatible", None, None, "error", None, (), problem=str(err)
                )
            )
            continue
        caps = point.capabilities
        found.append(
            ProviderStatus(
                name,
                point.label,
                "openai-compatible",
                point.base_url,
                point.key_env,
                key_source(point),
                "json_schema" if caps.supports_json_schema else "json_object",
                preset.aliases if preset else (),
            )
        )
    return found


class ProbeReply(UnaliasedContract):
    model_config = ConfigDict(extra="allow")
    ok: bool


@dataclass(frozen=True)
class CheckResult:
    provider: str
    model_requested: str
    model_returned: str
    matches: bool
    latency_ms: int
    tokens_in: int
    tokens_out: int
    reply_text: str
    allowed_roles: list[str]


PROBE_PROMPT = '这是一次连通性检查。请只回复 JSON：{"ok": true}'


def check_model(
    provider: str,
    model: str,
    *,
    timeout_s: float = 60.0,
    config: MuseConfig | None = None,
    http_client: Any = None,
    catalog: RoleCatalog | None = None,
) -> CheckResult:
    """One tiny request; raises the provider's error (missing key, 401, timeout …) as is.

    ``catalog``: the role catalog to report allowed roles from (default: the packaged one; the
    CLI passes the one merged with the author's approvals)."""
    chosen = resolve_provider(provider, config=config, http_client=http_client)
    mode, schema = output_mode_for(chosen.capabilities, ProbeReply, chosen.name)
    messages = ensure_json_word(
        [{"role": "user", "content": PROBE_PROMPT}], chosen.capabilities, mode
    )
    started = time.monotonic()
    reply = chosen.complete(
        ChatRequest(
            model,
            messages,
            mode,
            schema,
            None,
            timeout_s,
            CallMeta("probe", "check", {}, ProbeReply),
        )
    )
    return CheckResult(
        provider=provider,
        model_requested=model,
        model_returned=reply.model,
        matches=reply.model == model,
        latency_ms=round((time.monotonic() - started) * 1000),
        tokens_in=reply.usage.prompt_tokens,
        tokens_out=reply.usage.completion_tokens,
        reply_text=reply.text[:200],
        allowed_roles=roles_allowing(catalog or load_roles(), model),
    )
