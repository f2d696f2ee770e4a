"""``muse models`` and ``muse config``, mounted on a local Typer app."""

from __future__ import annotations

import json

import pytest
import typer
from typer.testing import CliRunner

from muse.cli.config import config_app
from muse.cli.models import models_app
from tests.agents.payloads import SECRET

app = typer.Typer()
app.add_typer(models_app, name="models")
app.add_typer(config_app, name="config")
runner = CliRunner()


@pytest.fixture(autouse=True)
def _database(db_url, monkeypatch):
    """`models list/check/policy` read the author's approvals from the test database."""
    from muse.cli.common import get_engine

    monkeypatch.setenv("MUSE_DATABASE_URL", db_url)
    get_engine.cache_clear()
    yield
    get_engine.cache_clear()


def run(*args: str):
    return runner.invoke(app, list(args))


def test_models_list_json_shows_key_sources_but_never_keys(monkeypatch):
    monkeypatch.setenv("DEEPSEEK_API_KEY", SECRET)
    result = run("models", "list", "--json")
    assert result.exit_code == 0, result.output
    assert SECRET not in result.output
    data = json.loads(result.stdout)
    providers = {p["name"]: p for p in data["providers"]}
    assert {"offline", "deepseek", "qwen", "kimi", "zhipu", "openai", "vllm", "ollama"} <= set(
        providers
    )
    assert providers["deepseek"]["key_source"] == "env"
    assert providers["qwen"]["key_source"] == "missing"
    assert providers["qwen"]["key_env"] == "DASHSCOPE_API_KEY"
    assert providers["ollama"]["key_source"] == "not_needed"
    assert providers["openai"]["output_mode"] == "json_schema"
    assert providers["deepseek"]["output_mode"] == "json_object"
    roles = {r["role"]: r for r in data["policies"]}
    assert roles["judge"]["policy"] == "judge-fixed" and roles["judge"]["aliases"] == [
        "blind_judge"
    ]


def test_models_list_table_in_chinese(monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    result = run("models", "list")
    assert result.exit_code == 0, result.output
    assert "模型提供方" in result.output and "--provider offline" in result.output


def test_models_list_includes_config_entries_with_keys_in_the_file(stub_config):
    stub_config.write_text(
        stub_config.read_text() + '\n[providers.mine]\npreset = "vllm"\n'
        f'base_url = "http://127.0.0.1:9/v1"\napi_key = "{SECRET}"\n'
    )
    result = run("models", "list", "--json")
    assert result.exit_code == 0, result.output
    assert SECRET not in result.output
    providers = {p["name"]: p for p in json.loads(result.stdout)["providers"]}
    assert providers["mine"]["key_source"] == "config"
    assert providers["stub"]["key_source"] == "env"


def test_models_check_against_the_stub(stub, stub_config):
    stub.reply('{"ok": true}', model="deepseek-chat")
    result = run("models", "check", "--provider", "stub", "--model", "deepseek-chat", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["matches"] is True and data["model_returned"] == "deepseek-chat"
    assert "writer" in data["allowed_roles"] and "judge" not in data["allowed_roles"]
    assert stub.requests[0].body["model"] == "deepseek-chat"


def test_models_check_reports_a_model_mismatch(stub, stub_config):
    stub.reply('{"ok": true}', model="deepseek-chat-0324")
    result = run("models", "check", "--provider", "stub", "--model", "deepseek-chat")
    assert result.exit_code == 0, result.output
    assert "不一致" in result.output


def test_models_check_offline_needs_no_network():
    result = run("models", "check", "--provider", "offline", "--model", "offline-1", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["matches"] is True


@pytest.mark.parametrize(
    "args, expected",
    [
        (("--provider", "deepseek", "--model", "deepseek-chat"), "DEEPSEEK_API_KEY"),
        (("--provider", "nosuch", "--model", "x"), "未知的提供方"),
    ],
)
def test_models_check_errors_are_clear(args, expected):
    result = run("models", "check", *args)
    assert result.exit_code == 1
    assert expected in result.output and "错误" in result.output


def test_config_path_honours_muse_config(isolated_env):
    result = run("config", "path")
    assert result.exit_code == 0
    assert str(isolated_env) in result.output.replace("\n", "")


def test_config_init_writes_a_template_once_and_show_masks_keys(isolated_env):
    assert run("config", "init").exit_code == 0
    assert "[providers.deepseek]" in isolated_env.read_text(encoding="utf-8")
    assert run("config", "init").exit_code == 1
    isolated_env.write_text(f'[providers.deepseek]\napi_key = "{SECRET}"\n', encoding="utf-8")
    result = run("config", "show", "--json")
    assert result.exit_code == 0 and SECRET not in result.output
    assert json.loads(result.stdout)["providers"]["deepseek"]["api_key"] == "（已设置）"


def test_a_broken_config_file_is_reported(isolated_env):
    isolated_env.write_text("[providers.deepseek]\nbase_uri = 'typo'\n", encoding="utf-8")
    result = run("config", "show")
    assert result.exit_code == 1 and "base_uri" in result.output
