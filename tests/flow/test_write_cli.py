"""``muse write`` (live progress, summary, --json, --max-rewrites) and ``muse run show``."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from muse.cli.common import get_engine
from muse.cli.main import app
from tests.support.marked_book import NEXT


@pytest.fixture
def muse(db_url, monkeypatch, tmp_path):
    monkeypatch.setenv("MUSE_DATABASE_URL", db_url)
    monkeypatch.chdir(tmp_path)
    get_engine.cache_clear()
    runner = CliRunner()

    def run(*args: str, code: int = 0):
        result = runner.invoke(app, list(args), catch_exceptions=False)
        assert result.exit_code == code, result.output
        return result.stdout

    yield run
    get_engine().dispose()
    get_engine.cache_clear()


def _break_first(scripted):
    calls = {"n": 0}

    def edit(draft):
        calls["n"] += 1
        if calls["n"] > 1:
            return draft
        return {**draft, "claims": [c for c in draft["claims"] if c["constraintId"] != "H1"]}

    scripted("writer", "generate").edit(edit)


def test_write_shows_each_node_and_the_rewrite(muse, book, scripted):
    _break_first(scripted)
    out = muse("write", str(NEXT), "-p", "offline", "-m", "offline-1")
    for label in ("校验授权", "检索与冻结上下文", "写手生成", "机械门", "写手返修", "语义检测"):
        assert label in out, out
    assert "第 2 稿（自动返修第 1 轮）" in out and " ms" in out
    assert "候选待审" in out and "muse accept" in out


def test_write_json_prints_the_summary_only(muse, book, scripted):
    _break_first(scripted)
    data = json.loads(muse("write", str(NEXT), "-p", "offline", "-m", "offline-1", "--json"))
    assert data["state"] == "shadow_ready" and data["attempt"] == 2
    assert [a["outcome"] for a in data["attempts"]] == ["rejected", "passed"]
    assert data["attempts"][0]["revision_list"][0]["kind"] == "hard_constraint_missing"


def test_blocked_summary_locates_findings_in_the_text(muse, book, scripted):
    scripted("writer", "generate").edit(
        lambda d: {**d, "paragraphs": ["好的，以下是正文。", *d["paragraphs"]]}
    )
    out = muse(
        "write", str(NEXT), "-p", "offline", "-m", "offline-1", "--max-rewrites", "0", code=3
    )
    assert "已停止，等待作者决定" in out and "上限 0 轮" in out
    assert "meta_text 第 1 段" in out and "原文：【好的，以下是正文。】" in out
    assert f"muse write {NEXT}" in out


def test_run_show_lists_every_attempt_node_hash_and_receipt(muse, book, scripted):
    _break_first(scripted)
    run_id = json.loads(muse("write", str(NEXT), "-p", "offline", "-m", "offline-1", "--json"))[
        "run_id"
    ]
    data = json.loads(muse("run", "show", run_id, "--json"))
    assert [a["attempt"] for a in data["attempts"]] == [1, 2]
    nodes_1 = {e["node"] for e in data["attempts"][0]["nodes"]}
    nodes_2 = {e["node"] for e in data["attempts"][1]["nodes"]}
    assert {"validating_context", "retrieving", "writing", "mechanical_gate"} <= nodes_1
    assert {"rewriting", "detecting", "semantic_detector"} <= nodes_2
    assert data["maxRewrites"] == 2
    [snapshot] = data["contextSnapshots"]
    assert len(snapshot["sha256"]) == 64 and snapshot["manifestId"]
    assert [(c["version"], c["state"]) for c in data["candidates"]] == [
        (1, "REJECTED"),
        (2, "PASSED"),
    ]
    roles = [(r["role"], r["task"], r["status"]) for r in data["receipts"]]
    assert roles == [
        ("writer", "explore", "ok"),  # phase 1 of the two-phase writer
        ("writer", "generate", "ok"),
        ("writer", "generate", "ok"),
        ("detector", "check", "ok"),
    ]
    assert all(len(r["inputSha256"]) == 64 for r in data["receipts"])
    text = muse("run", "show", run_id)
    assert "── 第 2 稿" in text and "返修：" in text and "模型调用回执" in text


def test_revise_from_the_command_line(muse, book):
    data = json.loads(muse("write", str(NEXT), "-p", "offline", "-m", "offline-1", "--json"))
    out = json.loads(muse("revise", data["candidate_id"], "改：结尾留个悬念。", "--json"))
    assert out["round"] == 2 and out["words"] == "改：结尾留个悬念。"
    assert out["summary"]["state"] == "shadow_ready" and out["newRunId"] != data["run_id"]
    text = muse("revise", data["candidate_id"], "改：结尾留个悬念。")
    assert "同一命令已执行过" in text
