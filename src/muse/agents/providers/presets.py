"""Presets for OpenAI-compatible services: base URL, key variable, capability flags, prices.

A preset is data, not code: everything vendor-specific that the openai-compatible provider needs
to talk to a service correctly. Flags follow each vendor's documentation (e.g. DeepSeek and Qwen
support JSON mode but not strict ``json_schema``, and JSON mode requires the word "JSON" in the
prompt). Prices are list prices per 1M tokens at the time of writing, used only for the cost
*estimate* in receipts; the author can check them with ``muse models list``.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal as D

from muse.agents.providers.base import Capabilities, Price


@dataclass(frozen=True)
class Preset:
    name: str
    label: str  # what the author reads
    base_url: str
    key_env: str | None  # environment variable holding the key
    key_required: bool
    capabilities: Capabilities
    aliases: tuple[str, ...] = ()


PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset(
            "deepseek",
            "DeepSeek 深度求索",
            "https://api.deepseek.com/v1",
            "DEEPSEEK_API_KEY",
            True,
            Capabilities(
                supports_json_schema=False,
                json_mode_requires_word_json=True,
                prices={
                    "deepseek-chat": Price(D("2"), D("3"), D("0.2")),
                    "deepseek-reasoner": Price(D("2"), D("3"), D("0.2")),
                },
            ),
        ),
        Preset(
            "qwen",
            "通义千问（阿里云百炼 DashScope）",
            "https://dashscope.aliyuncs.com/compatible-mode/v1",
            "DASHSCOPE_API_KEY",
            True,
            Capabilities(
                supports_json_schema=False,
                json_mode_requires_word_json=True,
                prices={
                    "qwen-max": Price(D("2.4"), D("9.6")),
                    "qwen3-max": Price(D("6"), D("24")),
                    "qwen-plus": Price(D("0.8"), D("2")),
                    "qwen-turbo": Price(D("0.3"), D("0.6")),
                },
            ),
            aliases=("dashscope",),
        ),
        Preset(
            "kimi",
            "Kimi（月之暗面 Moonshot）",
            "https://api.moonshot.cn/v1",
            "MOONSHOT_API_KEY",
            True,
            Capabilities(
                supports_json_schema=False,
                json_mode_requires_word_json=True,
                prices={
                    "kimi-k2-0905-preview": Price(D("4"), D("16"), D("1")),
                    "kimi-k2-turbo-preview": Price(D("8"), D("58"), D("1")),
                    "moonshot-v1-128k": Price(D("10"), D("30")),
                },
            ),
            aliases=("moonshot",),
        ),
        Preset(
            "zhipu",
            "智谱 GLM（BigModel）",
            "https://open.bigmodel.cn/api/paas/v4",
            "ZHIPUAI_API_KEY",
            True,
            Capabilities(
                supports_json_schema=False,
                json_mode_requires_word_json=True,
                prices={
                    "glm-4.6": Price(D("2"), D("8"), D("0.4")),
                    "glm-4-plus": Price(D("5"), D("5")),
                    "glm-4-flash": Price(D("0"), D("0")),
                },
            ),
            aliases=("glm", "bigmodel"),
        ),
        Preset(
            "openai",
            "OpenAI",
            "https://api.openai.com/v1",
            "OPENAI_API_KEY",
            True,
            Capabilities(
                supports_json_schema=True,
                json_mode_requires_word_json=True,
                prices={
                    "gpt-4o": Price(D("2.5"), D("10"), D("1.25"), "USD"),
                    "gpt-4o-mini": Price(D("0.15"), D("0.6"), D("0.075"), "USD"),
                    "gpt-4.1": Price(D("2"), D("8"), D("0.5"), "USD"),
                    "gpt-4.1-mini": Price(D("0.4"), D("1.6"), D("0.1"), "USD"),
                    "gpt-5": Price(D("1.25"), D("10"), D("0.125"), "USD"),
                    "gpt-5-mini": Price(D("0.25"), D("2"), D("0.025"), "USD"),
                },
            ),
        ),
        Preset(
            "vllm",
            "vLLM（自建服务）",
            "http://127.0.0.1:8000/v1",
            "VLLM_API_KEY",
            False,
            Capabilities(supports_json_schema=True, prices={"*": Price(D("0"), D("0"))}),
        ),
        Preset(
            "ollama",
            "Ollama（本机）",
            "http://127.0.0.1:11434/v1",
            None,
            False,
            Capabilities(supports_json_schema=True, prices={"*": Price(D("0"), D("0"))}),
        ),
    )
}

# A custom endpoint named in the config file: conservative flags unless the config says more.
CUSTOM_CAPABILITIES = Capabilities(
    supports_json_schema=False, supports_json_mode=True, json_mode_requires_word_json=True
)


def find_preset(name: str) -> Preset | None:
    """The preset called ``name`` or one of its aliases (``dashscope`` → ``qwen``)."""
    if name in PRESETS:
        return PRESETS[name]
    return next((p for p in PRESETS.values() if name in p.aliases), None)
