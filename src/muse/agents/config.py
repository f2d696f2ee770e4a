"""The author's configuration file: provider endpoints and, if the author wants, API keys.

The file is TOML at the platform's user configuration path (``~/.config/muse/config.toml`` on
Linux, ``~/Library/Application Support/muse/config.toml`` on macOS, ``%APPDATA%\\muse\\config.toml``
on Windows), or wherever ``MUSE_CONFIG`` points. It holds *how to reach* a provider; it never
chooses a provider or a model for a call (every call names both: a command's flags, or the
work's ``muse models use`` choice stored in the database). Keys are better kept in
environment variables; a key written here is read, used and never stored or printed.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

from pydantic import BaseModel, ConfigDict, SecretStr, ValidationError

from muse.core.errors import ConfigError, MuseError
from muse.core.redaction import register_secret
from muse.core.secret_sources import CONFIG_ENV as CONFIG_ENV  # re-exported
from muse.core.secret_sources import config_path as config_path


class ProviderSettings(BaseModel):
    """One ``[providers.<name>]`` table."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    preset: str | None = None  # base a custom name on a preset (e.g. "vllm")
    base_url: str | None = None  # overrides the preset's URL
    api_key: SecretStr | None = None  # discouraged: prefer api_key_env
    api_key_env: str | None = None  # the variable to read the key from
    supports_json_schema: bool | None = None  # capability overrides; None: preset default
    supports_json_mode: bool | None = None
    json_mode_requires_word_json: bool | None = None
    supports_tools: bool | None = None


class MuseConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    providers: dict[str, ProviderSettings] = {}


def load_config(path: Path | None = None) -> MuseConfig:
    """The configuration; an absent file is an empty configuration, a broken one an error."""
    path = path or config_path()
    if not path.exists():
        return MuseConfig()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        return MuseConfig.model_validate(data)
    except (OSError, tomllib.TOMLDecodeError) as err:
        raise ConfigError(f"配置文件 {path} 无法读取：{err}") from err
    except ValidationError as err:
        problems = "；".join(
            f"{'.'.join(str(p) for p in e['loc'])}：{e['msg']}"
            for e in err.errors(include_url=False)
        )
        raise ConfigError(f"配置文件 {path} 有误：{problems}") from err


def register_configured_secrets(config: MuseConfig | None = None) -> None:
    """Register every key Muse could be given (``core.redaction``): each ``api_key`` of the
    config file, the variable each entry names in ``api_key_env``, and every environment
    variable named ``*_API_KEY`` (the presets' variables and the derived ones all are)."""
    try:
        config = config or load_config()
    except MuseError:
        config = MuseConfig()
    names = {name for name in os.environ if name.upper().endswith("_API_KEY")}
    for settings in config.providers.values():
        if settings.api_key_env:
            names.add(settings.api_key_env)
        if settings.api_key is not None:
            register_secret(settings.api_key.get_secret_value())
    for name in names:
        register_secret(os.environ.get(name))


CONFIG_TEMPLATE = """\
# Muse 配置文件（TOML）。这里只写"怎么连到模型服务"（地址、密钥从哪来）。
# 用哪个模型：命令行 --provider/--model，或用 muse models use writer 提供方:模型ID 为作品选定；
# 不会从这里或环境变量自动选择模型。
#
# API 密钥建议放在环境变量里（如 DEEPSEEK_API_KEY、DASHSCOPE_API_KEY、MOONSHOT_API_KEY、
# ZHIPUAI_API_KEY、OPENAI_API_KEY）。写在本文件里也可以，Muse 只读取使用，不会入库、不会打印。
# 不联网试用：muse models use writer offline:offline-1

# [providers.deepseek]
# api_key_env = "DEEPSEEK_API_KEY"     # 默认就是它，可改成别的变量名
# base_url = "https://api.deepseek.com/v1"

# 本机 Ollama（预设 ollama 默认就是 http://127.0.0.1:11434/v1，无需密钥；换机器时改地址）：
# [providers.ollama]
# base_url = "http://192.168.1.20:11434/v1"

# 自建 vLLM（基于预设，换个地址）：
# [providers.my-vllm]
# preset = "vllm"
# base_url = "http://192.168.1.10:8000/v1"

# 任意 OpenAI 兼容服务（地址写到 /v1 为止；没有密钥就不写 api_key_env）：
# [providers.openai-compatible]
# base_url = "https://llm.example.com/v1"
# api_key_env = "MY_LLM_API_KEY"
# supports_json_schema = false          # 服务支持严格 json_schema 时改为 true
# json_mode_requires_word_json = true
"""
