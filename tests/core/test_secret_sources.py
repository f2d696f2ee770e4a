"""Start-up registers every key without the configuration model (core.secret_sources)."""

from __future__ import annotations

import pytest

from muse.core import redaction
from muse.core.secret_sources import register_known_secrets, secrets_in_config


@pytest.fixture(autouse=True)
def _no_secrets(monkeypatch):
    for name in [n for n in __import__("os").environ if n.upper().endswith("_API_KEY")]:
        monkeypatch.delenv(name)
    redaction.forget_secrets()
    yield
    redaction.forget_secrets()


def test_environment_keys_and_the_files_keys_and_variables_are_registered(tmp_path, monkeypatch):
    config = tmp_path / "config.toml"
    config.write_text(
        '[providers.deepseek]\napi_key = "sk-in-the-file-123"\n'
        '[providers.mine]\napi_key_env = "MY_SERVER_TOKEN"\nbase_url = "http://x/v1"\n',
        encoding="utf-8",
    )
    monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-from-the-env-456")
    monkeypatch.setenv("MY_SERVER_TOKEN", "token-named-by-the-file")
    monkeypatch.setenv("UNRELATED", "not-a-secret-at-all")
    register_known_secrets(config)
    assert redaction.registered_secrets() == {
        "sk-in-the-file-123",
        "sk-from-the-env-456",
        "token-named-by-the-file",
    }
    assert "sk-in-the-file-123" not in redaction.redact("key sk-in-the-file-123 here")


def test_a_file_the_configuration_model_refuses_still_has_its_keys_registered(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text(
        '[providers.deepseek]\napi_key = "sk-despite-a-typo-789"\nbase_ulr = "oops"\n',
        encoding="utf-8",
    )
    register_known_secrets(config)
    assert "sk-despite-a-typo-789" in redaction.registered_secrets()


@pytest.mark.parametrize(
    "content", [b"not = [toml", b"\xff\xfe\x00binary", b'providers = "a string"']
)
def test_an_unreadable_or_odd_file_adds_nothing_and_raises_nothing(tmp_path, monkeypatch, content):
    config = tmp_path / "config.toml"
    config.write_bytes(content)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-still-from-the-env")
    register_known_secrets(config)
    assert redaction.registered_secrets() == {"sk-still-from-the-env"}
    register_known_secrets(tmp_path / "absent.toml")
    register_known_secrets(tmp_path)  # a directory


def test_secrets_in_config_ignores_values_of_the_wrong_type():
    data = {"providers": {"a": {"api_key": 5, "api_key_env": ""}, "b": "x", "c": {"api_key": "k"}}}
    assert secrets_in_config(data) == (["k"], [])
