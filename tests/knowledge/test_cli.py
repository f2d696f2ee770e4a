"""The author's commands, run through Typer against a real database (MUSE_DATABASE_URL)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from muse.cli import cards
from muse.cli.common import get_engine
from muse.knowledge.facts import propose_fact_delta
from muse.works.canonical import add_chapter
from muse.works.catalog import create_work
from tests.knowledge.test_yaml_io import doc_example
from tests.knowledge.xiyouji import CHAPTERS

app = typer.Typer()
cards.register(app)


@pytest.fixture
def muse(engine, db_url, monkeypatch):
    monkeypatch.setenv("MUSE_DATABASE_URL", db_url)
    get_engine.cache_clear()
    with engine.begin() as conn:
        work = create_work(conn, "西游记")
        for number, (title, text) in CHAPTERS.items():
            add_chapter(conn, work, number, title, text)
    runner = CliRunner()

    def run(*args: str, code: int = 0):
        result = runner.invoke(app, list(args))
        assert result.exit_code == code, result.output
        return result

    run.work = work
    yield run
    get_engine().dispose()
    get_engine.cache_clear()


def as_json(result):
    return json.loads(result.stdout)


def test_import_confirm_list_show_export(muse, tmp_path: Path):
    path = tmp_path / "西游记.yaml"
    path.write_text(doc_example(), encoding="utf-8")
    imported = as_json(muse("cards", "import", str(path), "--json"))
    assert {o["status"] for o in imported["outcomes"]} == {"new"}
    assert as_json(muse("cards", "list", "--json"))["cards"] == []
    drafts = as_json(muse("drafts", "--json"))
    assert len(drafts) == 7
    assert "已确认：孙悟空" in muse("drafts", "confirm", "--all").output
    listed = as_json(muse("cards", "list", "--type", "人物", "--json"))
    assert sorted(c["name"] for c in listed["cards"]) == ["孙悟空", "菩提祖师"]

    shown = as_json(muse("card", "show", "美猴王", "--as-of", "3", "--json"))
    assert shown["exists"] and shown["state"]["step"] == "龙宫得宝"
    reasons = {(x["item"], x["reason"]) for x in shown["excluded"]}
    assert ("全书终态", "end_state") in reasons and ("别名「齐天大圣」", "future") in reasons
    text = muse("card", "show", "孙悟空", "--as-of", "3").output
    assert "第 3 章结束时的状态" in text and "被排除的内容" in text and "斗战胜佛" not in text
    assert "全书终态（规划）：受封斗战胜佛" in muse("card", "show", "孙悟空").output
    absent = as_json(muse("card", "show", "天庭", "--as-of", "3", "--json"))
    assert absent["state"] is None and absent["excluded"][0]["reason"] == "not_debuted"

    out = tmp_path / "export.yaml"
    muse("cards", "export", str(out))
    assert out.read_text(encoding="utf-8") == muse("cards", "export").stdout
    assert "名称: 孙悟空" in out.read_text(encoding="utf-8")
    ledger = as_json(muse("cards", "ledger", "--json"))
    assert ledger["unclosed"] == [] and ledger["chapters"] == [1, 2, 3, 4]


def test_conflict_is_shown_and_resolved_from_the_command_line(muse, tmp_path: Path):
    path = tmp_path / "a.yaml"
    path.write_text(doc_example(), encoding="utf-8")
    muse("cards", "import", str(path), "--confirm")
    path.write_text(
        "卡片:\n  - 类型: 人物\n    名称: 孙悟空\n    字段:\n      简介: 花果山仙石所生的石猴，拜师学道，大闹天宫。\n"
        "      身份: 弼马温\n      性格: 心高气傲，不服拘管。\n",
        encoding="utf-8",
    )
    imported = as_json(muse("cards", "import", str(path), "--confirm", "--json"))
    [outcome] = imported["outcomes"]
    assert outcome["status"] == "update" and len(outcome["conflicts"]) == 1
    shown = as_json(muse("card", "show", "孙悟空", "--json"))  # the card, not the draft's shadow
    assert (shown["status"], shown["fields"]["identity"]["value"]) == (
        "confirmed",
        "花果山水帘洞美猴王",
    )
    [conflict] = as_json(muse("conflicts", "--json"))
    assert conflict["subject_label"] == "字段「身份」"
    assert conflict["confirmed_side"]["value"] == "花果山水帘洞美猴王"
    assert conflict["draft_side"]["value"] == "弼马温"
    assert "弼马温" in muse("conflicts").output
    muse("conflicts", "resolve", conflict["id"], code=1)  # no choice given
    muse("conflicts", "resolve", conflict["id"], "--keep", "--replace", code=1)
    muse("conflicts", "resolve", conflict["id"], "--merge", "--value", "美猴王，后封弼马温")
    muse("drafts", "confirm", outcome["draft_id"])
    card = as_json(muse("card", "show", "孙悟空", "--json"))
    assert card["fields"]["identity"]["value"] == "美猴王，后封弼马温"
    assert as_json(muse("conflicts", "--all", "--json"))[0]["resolution"] == "merge"


def test_reject_a_draft(muse, tmp_path: Path):
    path = tmp_path / "a.yaml"
    path.write_text(doc_example(), encoding="utf-8")
    muse("cards", "import", str(path))
    first = as_json(muse("drafts", "--json"))[0]
    assert "已驳回" in muse("drafts", "reject", first["id"], "--note", "不要").output
    assert len(as_json(muse("drafts", "--json"))) == 6
    assert as_json(muse("drafts", "--all", "--json"))[0]["status"] == "rejected"
    muse("drafts", "confirm", code=1)  # neither ids nor --all


def test_facts_list_approve_and_the_ledger(muse, engine):
    with engine.begin() as conn:
        delta = propose_fact_delta(
            conn,
            muse.work,
            {
                "type": "possession",
                "chapter": 3,
                "subject": "悟空",
                "item": "如意棒",
                "change": "获得",
                "evidence_quote": "悟空执着如意棒",
            },
        )
    listed = as_json(muse("facts", "--json"))
    assert [d["id"] for d in listed["deltas"]] == [delta.id] and listed["ledger"] == []
    assert "持有变化" in muse("facts").output
    assert "已入账" in muse("facts", "approve", delta.id).output
    after = as_json(muse("facts", "--status", "approved", "--json"))
    assert after["ledger"][0]["delta_id"] == delta.id
    assert as_json(muse("facts", "--as-of", "2", "--json"))["ledger"] == []
    muse("facts", "approve", delta.id, code=1)


def test_errors_are_chinese_and_name_the_place(muse, tmp_path: Path, engine):
    bad = tmp_path / "坏.yaml"
    bad.write_text(
        "卡片:\n  - 类型: 人物\n    名称: 孙悟空\n    字段: {简介: 石猴}\n", encoding="utf-8"
    )
    result = muse("cards", "import", str(bad), code=1)
    assert "坏.yaml:4:" in result.output and "缺少必填字段「身份」" in result.output
    assert "没有名为「唐僧」的卡片" in muse("card", "show", "唐僧", code=1).output
    with engine.begin() as conn:
        create_work(conn, "三国演义")
    assert "请用 --work 指定" in muse("cards", "list", code=1).output
    assert as_json(muse("cards", "list", "--work", "三国演义", "--json"))["cards"] == []
    assert as_json(muse("cards", "list", "--work", str(muse.work), "--json"))["cards"] == []
