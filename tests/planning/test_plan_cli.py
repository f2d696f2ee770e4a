"""``muse plan …`` end to end through the real app on the test database."""

from __future__ import annotations

import json
import sys

import pytest
import yaml
from typer.testing import CliRunner

from muse.cli.common import get_engine
from muse.cli.main import app
from muse.planning.findings import GateBlocked
from tests.planning.conftest import fine, foundation, outline


@pytest.fixture
def muse(db_url, monkeypatch, tmp_path, work_id):
    monkeypatch.setenv("MUSE_DATABASE_URL", db_url)
    monkeypatch.chdir(tmp_path)
    get_engine.cache_clear()
    runner = CliRunner()

    def run(*args: str, code: int = 0):
        result = runner.invoke(app, list(args), catch_exceptions=False)
        assert result.exit_code == code, result.output
        return result

    run.json = lambda *args, code=0: json.loads(run(*args, "--json", code=code).stdout)
    yield run
    get_engine().dispose()
    get_engine.cache_clear()


def dump(tmp_path, name: str, data: dict):
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return str(path)


def test_free_mode_import_confirm_keeps_working(muse, tmp_path):
    data = muse.json("plan", "import", dump(tmp_path, "ch3.yaml", fine(3)), "--confirm")
    assert data["state"] == "confirmed"
    status = muse.json("plan", "show")
    assert status["mode"] == "free" and status["stages"][4]["confirmedChapters"] == "3"


def test_draft_show_confirm_and_the_refusal_names_the_stage(muse, tmp_path):
    drafted = muse.json(
        "plan", "draft", "0", "--provider", "offline", "--model", "offline-1", "--variants", "2"
    )
    assert len(drafted) == 2 and all(d["sectionId"] for d in drafted)
    shadows = muse.json("plan", "show", "0")["stages"][0]["shadows"]
    assert [s["variantIndex"] for s in shadows] == [1, 2]
    outline_draft = muse.json("plan", "import", dump(tmp_path, "o.yaml", outline()))
    with pytest.raises(GateBlocked, match="阶段 0 · 定盘尚未确认"):
        muse("plan", "confirm", outline_draft["id"])
    diff = muse.json("plan", "compare", *(d["sectionId"] for d in drafted))
    assert "work_core.genre_positioning" in {r["field"] for r in diff["differences"]}
    muse("plan", "confirm", drafted[0]["sectionId"])
    muse("plan", "discard", drafted[1]["sectionId"])
    report = muse.json("plan", "check", code=1)  # the imported outline plans 30 of 120 chapters
    assert report["mode"] == "planning"
    assert "chapter_count_mismatch" in {f["code"] for f in report["findings"]}


def test_check_exits_1_on_a_blocking_problem(muse, tmp_path):
    muse("plan", "import", dump(tmp_path, "f.yaml", foundation()), "--confirm")
    muse("plan", "import", dump(tmp_path, "o.yaml", {**outline(), "mainline": "长" * 51}))
    report = muse.json("plan", "check", code=1)
    assert [f["code"] for f in report["findings"] if f["severity"] == "error"] == [
        "mainline_too_long"
    ]


def test_edit_opens_the_editor_and_saves_a_new_shadow(muse, tmp_path, monkeypatch):
    muse("plan", "import", dump(tmp_path, "f.yaml", foundation()))
    script = tmp_path / "editor.py"
    script.write_text(
        "import sys, pathlib\np = pathlib.Path(sys.argv[1])\n"
        "p.write_text(p.read_text(encoding='utf-8').replace('热血而克制', '冷峻'), "
        "encoding='utf-8')\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")
    out = muse("plan", "edit", "定盘").stdout
    assert "已保存为 Shadow" in out
    shadows = muse.json("plan", "show", "0")["stages"][0]["shadows"]
    assert [s["origin"] for s in shadows] == ["import", "edit"]
    exported = yaml.safe_load(muse("plan", "export", "0").stdout)
    assert exported["work_core"]["tone"] == "冷峻"


def test_patterns_and_ledger_commands(muse, tmp_path):
    rows = muse.json("plan", "patterns", "builtin")
    assert rows and all(r["created"] and r["public"] for r in rows)
    assert not any(r["created"] for r in muse.json("plan", "patterns", "builtin"))
    assert {r["key"] for r in muse.json("plan", "patterns", "list")} >= {"chapter-end-hook"}
    with pytest.raises(Exception, match="还没有已确认的卡片"):
        muse("plan", "ledger", "--save")


def test_show_and_check_list_the_stored_review_mark_until_the_stage_is_confirmed_again(
    muse, tmp_path
):
    muse("plan", "import", dump(tmp_path, "f1.yaml", foundation()), "--confirm")
    muse("plan", "import", dump(tmp_path, "o1.yaml", outline()), "--confirm")
    wider = foundation(chars_per_chapter={"min": 2600, "max": 3500})
    muse("plan", "import", dump(tmp_path, "f2.yaml", wider), "--confirm")  # supersedes stage 0
    report = muse.json("plan", "check")
    [mark] = [f for f in report["findings"] if f["code"] == "upstream_superseded"]
    assert mark["severity"] == "warning" and mark["stage"] == 1
    status = muse.json("plan", "show")
    assert status["stages"][1]["needsReview"] == [mark["message"]]
    assert "需复核" in muse("plan", "show").output
    again = {**outline(), "mainline": "外门弟子一路逆袭，终成一代宗师"}
    muse("plan", "import", dump(tmp_path, "o2.yaml", again), "--confirm")
    assert not [
        f for f in muse.json("plan", "check")["findings"] if f["code"] == "upstream_superseded"
    ]
    assert muse.json("plan", "show")["stages"][1]["needsReview"] == []
