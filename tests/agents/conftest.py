"""Fixtures of the agents tests: a local stub server, a config file pointing at it, fast retries.

Every test here runs with an isolated configuration (``MUSE_CONFIG`` → a file in tmp) and with
the presets' key variables removed, so neither the developer's own config nor real keys can
change a result. Real model requests stay disallowed (tests/conftest.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from muse.agents.dispatching import dispatch
from muse.agents.providers.presets import PRESETS
from muse.agents.structured import RetryPolicy
from tests.agents.strict_draft import StrictDraft
from tests.agents.stub_server import StubServer

SECRET = "sk-stub-SECRET-7c1e9a0b"
FAST = RetryPolicy(base_delay_s=0.01, max_delay_s=0.05)
DRAFT = {"paragraphs": [{"text": "他推开门，雨声扑面而来。"}], "newSettingDeclarations": []}
WRITER_INPUT = {
    "targetChapter": 4,
    "asOf": 3,
    "fineOutline": {"hardEvents": ["林默在雨夜推开旧宅的门"]},
}


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "empty-config.toml"
    monkeypatch.setenv("MUSE_CONFIG", str(path))
    for preset in PRESETS.values():
        if preset.key_env:
            monkeypatch.delenv(preset.key_env, raising=False)
    monkeypatch.setenv("MUSE_ALLOW_MODEL_REQUESTS", "0")
    return path


@pytest.fixture
def stub() -> Iterator[StubServer]:
    server = StubServer().start()
    yield server
    server.stop()


@pytest.fixture
def stub_config(stub: StubServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Two providers on the stub: ``stub`` (strict json_schema) and ``stub-json`` (JSON mode)."""
    path = tmp_path / "config.toml"
    path.write_text(
        f"""
[providers.stub]
base_url = "{stub.url}"
api_key_env = "STUB_API_KEY"
supports_json_schema = true

[providers.stub-json]
base_url = "{stub.url}"
api_key_env = "STUB_API_KEY"
supports_json_schema = false
json_mode_requires_word_json = true
""",
        encoding="utf-8",
    )
    monkeypatch.setenv("MUSE_CONFIG", str(path))
    monkeypatch.setenv("STUB_API_KEY", SECRET)
    return path


@pytest.fixture
def call(engine, stub_config):
    """``dispatch`` with the writer/generate defaults used by most stub tests."""

    def run(**overrides):
        arguments = dict(
            role="writer",
            task="generate",
            provider="stub",
            model="deepseek-chat",
            task_input=WRITER_INPUT,
            output_model=StrictDraft,
            retry=FAST,
            timeout_s=10,
        )
        arguments.update(overrides)
        return dispatch(engine, **arguments)

    return run
