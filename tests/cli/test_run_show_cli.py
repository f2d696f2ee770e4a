"""``muse run show`` as readable sections, times in the author's time zone, ``--json`` as data."""

import time
from datetime import datetime, timedelta, timezone

import pytest

from tests.support.marked_book import NEXT


@pytest.fixture
def shanghai(monkeypatch):
    monkeypatch.setenv("TZ", "Asia/Shanghai")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_run_show_renders_sections_in_local_time(muse, book, shanghai):
    summary = muse.json("write", str(NEXT), "--provider", "offline", "--model", "offline-1")
    run_id = summary["run_id"]
    data = muse.json("run", "show", run_id)

    out = muse("run", "show", run_id).stdout

    for section in ("── 授权与冻结上下文", "── 第 1 稿", "── 候选", "── 模型调用回执"):
        assert section in out
    assert "{'" not in out and "': " not in out  # no raw Python dicts
    created = datetime.fromisoformat(data["createdAt"].replace("Z", "+00:00"))
    local = created.astimezone(timezone(timedelta(hours=8))).strftime("%Y-%m-%d %H:%M:%S")
    assert f"开始于：{local}" in out
    assert "模型来源：命令行参数" in out
    assert data["receipts"][0]["modelChoice"]["source"] == "flag"
    assert {"id", "events", "attempts", "receipts", "candidates"} <= set(data)


def test_bracketed_names_survive_rich_markup(muse, tmp_path, monkeypatch):
    config = tmp_path / "config.toml"
    config.write_text('[providers.deepseek]\nbase_url = "https://api.deepseek.com/v1"\n')
    monkeypatch.setenv("MUSE_CONFIG", str(config))

    out = muse("config", "show").stdout

    assert "[providers.deepseek]" in out
    assert "\\[" not in out
