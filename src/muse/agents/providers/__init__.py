"""Providers, and how a provider name in a call becomes a provider.

    "offline"                  the deterministic local provider (no key, no network)
    a preset name or alias     openai-compatible with that preset: deepseek, qwen (dashscope),
                               kimi (moonshot), zhipu (glm, bigmodel), openai, vllm, ollama;
                               ``[providers.<name>]`` in the config file may override the base
                               URL, the key variable and capability flags
    a name in the config file  openai-compatible from that entry: ``preset`` (optional) plus
                               ``base_url`` — e.g. ``[providers.my-vllm] preset = "vllm"``
    "openai-compatible"        any OpenAI-compatible service; ``base_url`` (and the key
                               variable) come from ``[providers.openai-compatible]``

Anything else is a ``ProviderConfigError`` listing the known names. Keys are read from the
environment variable (the preset's, or ``api_key_env``) first, then from ``api_key`` in the
config file; a missing key names both ways to fix it and mentions ``--provider offline``.
``register_provider`` installs an in-process factory under a name (embedding, tests).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from muse.agents.config import (
    MuseConfig,
    ProviderSettings,
    config_path,
    load_config,
    register_configured_secrets,
)
from muse.agents.errors import MissingApiKey, ProviderConfigError
from muse.agents.providers.base import Capabilities, Provider
from muse.agents.providers.offline import OfflineProvider
from muse.agents.providers.openai_compatible import OpenAICompatibleProvider
from muse.agents.providers.presets import CUSTOM_CAPABILITIES, PRESETS, Preset, find_preset
from muse.core.redaction import register_secret

GENERIC = "openai-compatible"

_factories: dict[str, Callable[[], Provider]] = {}


def register_provider(name: str, factory: Callable[[], Provider]) -> None:
    """Resolve ``name`` to ``factory()`` in this process, before presets and the config file."""
    _factories[name] = factory


def unregister_provider(name: str) -> None:
    _factories.pop(name, None)


@dataclass(frozen=True)
class Endpoint:
    """Everything needed to reach one named provider, without the key's value."""

    name: str
    label: str
    base_url: str | None
    key_env: str | None
    key_required: bool
    capabilities: Capabilities
    settings: ProviderSettings


def _derived_key_env(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "_", name).upper() + "_API_KEY"


def _apply_flags(caps: Capabilities, settings: ProviderSettings) -> Capabilities:
    flags = {
        key: getattr(settings, key)
        for key in (
            "supports_json_schema",
            "supports_json_mode",
            "json_mode_requires_word_json",
            "supports_tools",
        )
        if getattr(settings, key) is not None
    }
    return replace(caps, **flags)


def endpoint(name: str, config: MuseConfig | None = None) -> Endpoint:
    """The endpoint of a non-offline provider name (see the module docstring)."""
    config = config or load_config()
    settings = config.providers.get(name, ProviderSettings())
    preset: Preset | None = find_preset(name)
    if settings.preset is not None:
        preset = find_preset(settings.preset)
        if preset is None:
            raise ProviderConfigError(
                f"配置文件中 [providers.{name}] 的 preset = {settings.preset} 不是已知预设。",
                hint=f"已知预设：{'、'.join(PRESETS)}。",
            )
    if preset is None and name not in config.providers and name != GENERIC:
        raise ProviderConfigError(
            f"未知的提供方：{name}。",
            hint=f"可用：offline、{'、'.join(PRESETS)}、{GENERIC}，或在配置文件 {config_path()} "
            "中用 [providers.<名字>] 自定义。",
        )
    base_url = settings.base_url or (preset.base_url if preset else None)
    if not base_url:
        raise ProviderConfigError(
            f"提供方 {name} 没有服务地址。",
            hint=f"请在配置文件 {config_path()} 的 [providers.{name}] 中写 base_url。",
        )
    return Endpoint(
        name=name,
        label=preset.label if preset else f"自定义（{name}）",
        base_url=base_url,
        key_env=settings.api_key_env
        or (preset.key_env if preset else None)
        or _derived_key_env(name),
        key_required=preset.key_required if preset else True,
        capabilities=_apply_flags(preset.capabilities if preset else CUSTOM_CAPABILITIES, settings),
        settings=settings,
    )


def key_source(point: Endpoint) -> str:
    """Where the key would come from: env | config | missing | not_needed (never the value)."""
    if point.key_env and os.environ.get(point.key_env):
        return "env"
    if point.settings.api_key is not None and point.settings.api_key.get_secret_value():
        return "config"
    return "missing" if point.key_required else "not_needed"


def api_key(point: Endpoint) -> str | None:
    """The key's value (registered as a secret first), checked for what HTTP headers refuse."""
    source = key_source(point)
    if source in ("env", "config"):
        value = _key_value(point, source)
        register_secret(value)
        check_key_format(value, point, source)
        return value
    if source == "missing":
        raise MissingApiKey(
            f"未找到提供方 {point.name} 的 API 密钥：请设置环境变量 {point.key_env}，"
            f"或在配置文件 {config_path()} 的 [providers.{point.name}] 中写 api_key。",
            hint="不联网试用可改用 --provider offline --model offline-1。",
        )
    return None


def _key_value(point: Endpoint, source: str) -> str:
    if source == "env":
        return os.environ[point.key_env or ""]
    return point.settings.api_key.get_secret_value()  # type: ignore[union-attr]


def check_key_format(value: str, point: Endpoint, source: str) -> None:
    """A key with surrounding whitespace, a line break, a control or a non-ASCII character can
    never be sent in an HTTP header: say exactly that, instead of a bare "Connection error"."""
    where = (
        f"环境变量 {point.key_env}"
        if source == "env"
        else f"配置文件 {config_path()} 的 [providers.{point.name}] api_key"
    )
    problem = None
    if value != value.strip():
        problem = "首尾有空白或换行（常见于从文件复制或 echo 写入）"
    elif not value.isascii():
        problem = "含有非 ASCII 字符（例如全角字符或中文标点）"
    elif any(ord(c) < 0x20 or ord(c) == 0x7F for c in value):
        problem = "含有控制字符"
    if problem:
        raise ProviderConfigError(
            f"提供方 {point.name} 的 API 密钥（{where}）{problem}，无法放入请求头。",
            hint="请重新设置密钥，只保留密钥本身的字符。",
        )


def resolve_provider(
    name: str, *, config: MuseConfig | None = None, http_client: Any = None
) -> Provider:
    """The provider a call names. ``http_client`` is handed to the openai SDK (tests, proxies)."""
    if name in _factories:
        return _factories[name]()
    if name == "offline":
        return OfflineProvider()
    register_configured_secrets(config)
    point = endpoint(name, config)
    return OpenAICompatibleProvider(
        name=name,
        base_url=point.base_url or "",
        api_key=api_key(point),
        capabilities=point.capabilities,
        http_client=http_client,
    )


def known_provider_names(config: MuseConfig | None = None) -> list[str]:
    """offline, every preset, then the config file's own names."""
    config = config or load_config()
    custom = [n for n in config.providers if find_preset(n) is None]
    return ["offline", *PRESETS, *custom]
