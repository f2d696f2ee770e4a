"""``muse cards discover`` through Typer against a real database."""

from __future__ import annotations

import json

import pytest
import typer
from typer.testing import CliRunner

from muse.cli import cards
from muse.cli.common import get_engine
from tests.knowledge.discovery_fixture import sanguo_work

app = typer.Typer()
cards.register(app)


@pytest.fixture
def muse(engine, db_url, monkeypatch):
    monkeypatch.setenv("MUSE_DATABASE_URL", db_url)
    get_engine.cache_clear()
    with engine.begin() as conn:
        sanguo_work(conn)
    runner = CliRunner()

    def run(*args: str, code: int = 0):
        result = runner.invoke(app, list(args))
        assert result.exit_code == code, result.output
        return result

    yield run
    get_engine().dispose()
    get_engine.cache_clear()


def test_discover_proposes_drafts_then_is_idempotent(muse):
    preview = json.loads(muse("cards", "discover", "--dry-run", "--json").stdout)
    assert preview["proposed"] > 10 and all(i["draftId"] is None for i in preview["items"])
    assert json.loads(muse("drafts", "--json").stdout) == []
    shown = muse("cards", "discover", "--chapters", "1-3").output
    assert "拆书发现" in shown and "刘备" in shown and "新生成" in shown
    drafts = json.loads(muse("drafts", "--json").stdout)
    assert len(drafts) == preview["proposed"]
    again = json.loads(muse("cards", "discover", "--json").stdout)
    assert again["proposed"] == 0 and again["known"] == len(again["items"])
    assert len(json.loads(muse("drafts", "--json").stdout)) == len(drafts)


def test_json_items_carry_evidence(muse):
    data = json.loads(muse("cards", "discover", "--dry-run", "--json").stdout)
    liu = next(i for i in data["items"] if i["name"] == "刘备")
    assert liu["type"] == "character" and liu["first"]["chapter"] == 1
    assert liu["aliases"][0]["name"] == "玄德" and liu["samples"][0]["quote"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--chapters", "9-1"], "章节范围"),
        (["--chapters", "x"], "章节范围"),
        (["--chapters", "40-50"], "没有正文章节"),
    ],
)
def test_bad_input_is_refused_in_chinese(muse, args, message):
    result = muse("cards", "discover", *args, code=1)
    assert message in result.output and "Traceback" not in result.output
    assert json.loads(muse("drafts", "--json").stdout) == []
