"""Provider construction from a name, presets, config entries, costs and the HTTP client hook."""

from __future__ import annotations

from decimal import Decimal

import httpx2
import pytest

from muse.agents.config import MuseConfig, ProviderSettings, config_path, load_config
from muse.agents.errors import MissingApiKey, ProviderConfigError, RealRequestsDisabled
from muse.agents.providers import endpoint, resolve_provider
from muse.agents.providers.offline import OfflineProvider
from muse.agents.providers.openai_compatible import is_loopback_url
from muse.core.errors import ConfigError
from tests.agents.payloads import DRAFT, SECRET
from tests.agents.strict_draft import StrictDraft
from tests.agents.test_dispatch_stub import only_receipt


def cfg(**entries: dict) -> MuseConfig:
    return MuseConfig(providers={k: ProviderSettings(**v) for k, v in entries.items()})


def test_offline_needs_nothing():
    assert isinstance(resolve_provider("offline", config=cfg()), OfflineProvider)


def test_preset_aliases_resolve_to_the_preset():
    point = endpoint("dashscope", cfg())
    assert point.base_url == "https://dashscope.aliyuncs.com/compatible-mode/v1"
    assert point.key_env == "DASHSCOPE_API_KEY"
    assert endpoint("moonshot", cfg()).base_url == "https://api.moonshot.cn/v1"


def test_config_overrides_a_preset_and_names_a_custom_provider():
    config = cfg(
        deepseek={"base_url": "http://127.0.0.1:1/v1", "api_key_env": "DS_KEY"},
        **{"my-vllm": {"preset": "vllm", "base_url": "http://127.0.0.1:2/v1"}},
    )
    assert (endpoint("deepseek", config).base_url, endpoint("deepseek", config).key_env) == (
        "http://127.0.0.1:1/v1",
        "DS_KEY",
    )
    mine = endpoint("my-vllm", config)
    assert mine.capabilities.supports_json_schema and not mine.key_required


@pytest.mark.parametrize(
    "name, config, fragment",
    [
        ("nosuch", cfg(), "未知的提供方"),
        ("openai-compatible", cfg(), "base_url"),
        ("mine", cfg(mine={"preset": "nosuch"}), "不是已知预设"),
    ],
)
def test_bad_provider_names_and_entries(name, config, fragment):
    with pytest.raises(ProviderConfigError) as caught:
        endpoint(name, config)
    assert fragment in str(caught.value)


def test_missing_key_for_a_custom_endpoint_names_its_variable():
    config = cfg(**{"openai-compatible": {"base_url": "http://127.0.0.1:3/v1"}})
    with pytest.raises(MissingApiKey) as caught:
        resolve_provider("openai-compatible", config=config)
    assert "OPENAI_COMPATIBLE_API_KEY" in str(caught.value)
    assert "[providers.openai-compatible]" in str(caught.value)


def test_a_key_in_the_config_file_is_used(monkeypatch):
    config = cfg(**{"openai-compatible": {"base_url": "http://127.0.0.1:3/v1", "api_key": SECRET}})
    provider = resolve_provider("openai-compatible", config=config)
    assert provider.secrets() == (SECRET,)
    assert SECRET not in repr(config)


def test_only_loopback_urls_pass_when_real_requests_are_disallowed(monkeypatch):
    assert is_loopback_url("http://127.0.0.1:8000/v1") and is_loopback_url("http://localhost/v1")
    assert is_loopback_url("http://[::1]:8000/v1")
    assert not is_loopback_url("https://api.openai.com/v1")
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    with pytest.raises(RealRequestsDisabled):
        resolve_provider("openai", config=cfg())
    monkeypatch.setenv("MUSE_ALLOW_MODEL_REQUESTS", "1")
    assert resolve_provider("openai", config=cfg()).base_url == "https://api.openai.com/v1"


def test_an_injected_http_client_is_used(engine, stub, stub_config):
    from muse.agents.dispatching import dispatch

    stub.reply_json(DRAFT)
    client = httpx2.Client(headers={"x-muse-test": "injected"})
    dispatch(
        engine,
        role="writer",
        task="generate",
        provider="stub",
        model="deepseek-chat",
        task_input={"a": 1},
        output_model=StrictDraft,
        http_client=client,
    )
    assert stub.requests[0].headers["x-muse-test"] == "injected"


def test_cost_is_estimated_from_the_preset_price_list(engine, stub, monkeypatch):
    from muse.agents.dispatching import dispatch

    monkeypatch.setenv("DEEPSEEK_API_KEY", SECRET)
    config = cfg(deepseek={"base_url": stub.url})
    stub.reply_json(DRAFT, usage=(1_000_000, 100_000), cached=500_000)
    dispatch(
        engine,
        role="writer",
        task="generate",
        provider="deepseek",
        model="deepseek-chat",
        task_input={"a": 1},
        output_model=StrictDraft,
        config=config,
    )
    row = only_receipt(engine)
    # 500k uncached × 2 + 500k cached × 0.2 + 100k out × 3, per 1M tokens, in CNY
    assert (row["cost_estimate"], row["cost_currency"]) == (Decimal("1.400000"), "CNY")
    assert row["base_url"] == stub.url


def test_config_path_and_loading(isolated_env, monkeypatch, tmp_path):
    assert config_path() == isolated_env
    assert load_config() == MuseConfig()
    monkeypatch.delenv("MUSE_CONFIG")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    import sys

    if sys.platform.startswith("linux"):
        assert config_path() == tmp_path / "xdg" / "muse" / "config.toml"
    isolated_env.write_text("not toml [", encoding="utf-8")
    with pytest.raises(ConfigError):
        load_config(isolated_env)
