"""``muse discard``, ``muse candidate edit`` / ``diff`` and the candidate view, through the CLI."""

import json
import sys

import pytest
from sqlalchemy import select

from muse.core.errors import InvalidInput
from muse.flow.candidate_detail import candidate_view
from muse.flow.tables import candidates
from tests.support.fakes import write_offline
from tests.support.marked_book import NEXT


def _body(engine, candidate_id):
    with engine.connect() as conn:
        return conn.execute(
            select(candidates.c.body).where(candidates.c.id == candidate_id)
        ).scalar_one()


def test_edit_diff_show_and_discard(muse, engine, book, tmp_path):
    summary = write_offline(engine, book, NEXT)
    body = _body(engine, summary.candidate_id)
    edited = body.replace("林远", "林远", 1).replace("\n\n", "\n\n山风骤起。", 1)
    path = tmp_path / "edit.txt"
    path.write_text(edited, encoding="utf-8")

    out = muse.json(
        "candidate", "edit", summary.candidate_id, "--file", str(path), "--actor", "lin"
    )
    assert (out["state"], out["new_version"], out["kind"]) == ("PASSED", 2, "edit_merge")
    new_id = out["new_candidate_id"]

    diff = muse.json("candidate", "diff", new_id)
    assert diff["againstVersion"] == 1 and diff["insertedChars"] == len("山风骤起。")
    assert [s for c in diff["changes"] for s in c["spans"] if s["op"] == "insert"] == [
        {"op": "insert", "text": "山风骤起。"}
    ]
    shown = muse("candidate", "diff", new_id).stdout
    assert "{+山风骤起。+}" in shown or "+山风骤起。" in shown

    with engine.connect() as conn:
        view = candidate_view(conn, new_id)
    assert (
        view["attribution"] == "author_edit" and view["diff"]["againstId"] == summary.candidate_id
    )
    assert [v["state"] for v in view["versions"]] == ["ARCHIVED", "PASSED"]
    assert view["context"]["sources"] and all(s["reason"] for s in view["context"]["sources"])
    assert view["decisions"][0]["actor"] == "lin"

    out = muse.json("discard", new_id, "--command-id", "c-1")
    assert out["state"] == "DISCARDED" and out["run_state"] == "discarded"
    again = muse.json("discard", new_id, "--command-id", "c-1")
    assert again["repeated"] is True
    listed = muse.json("candidates")
    assert {c["id"]: c["state"] for c in listed}[new_id] == "DISCARDED"


def test_edit_refused_on_a_discarded_candidate_names_its_state(muse, engine, book, tmp_path):
    summary = write_offline(engine, book, NEXT)
    muse("discard", summary.candidate_id)
    path = tmp_path / "edit.txt"
    path.write_text("作者的新稿。", encoding="utf-8")
    with pytest.raises(InvalidInput, match="DISCARDED"):
        muse("candidate", "edit", summary.candidate_id, "--file", str(path), ok=False)


def test_findings_are_located_by_line_and_code_point(engine, book):  # noqa: F811
    from muse.flow.candidate_detail import locate_findings

    body = "第一行。\n林远拔剑，苏晴后退。"
    report = {
        "mechanical": {"findings": [{"kind": "k", "severity": "high", "message": "m",
                                     "quote": "苏晴后退", "start": None, "end": None}]},
        "semantic": {"findings": [{"kind": "s", "severity": "high", "message": "n",
                                   "quote": None, "start": 5, "end": 7}]},
    }  # fmt: skip
    found = locate_findings(body, report)
    assert found[0]["location"] == {
        "start": 10,
        "end": 14,
        "line": 2,
        "column": 5,
        "text": "苏晴后退",
    }
    assert found[1]["location"]["text"] == "林远" and found[1]["location"]["line"] == 2


def test_edit_in_editor_when_no_file(muse, engine, book, tmp_path, monkeypatch):
    summary = write_offline(engine, book, NEXT)
    script = tmp_path / "editor.py"
    script.write_text(
        "import sys, pathlib\n"
        "p = pathlib.Path(sys.argv[1])\n"
        "p.write_text(p.read_text(encoding='utf-8') + '\\n\\n钟声又响了一下。', encoding='utf-8')\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")
    monkeypatch.delenv("VISUAL", raising=False)
    out = muse.json("candidate", "edit", summary.candidate_id)
    assert out["state"] == "PASSED"
    assert _body(engine, out["new_candidate_id"]).endswith("\n\n钟声又响了一下。")
    monkeypatch.setenv("EDITOR", "true")  # saves nothing: cancelled, nothing changes
    result = muse("candidate", "edit", out["new_candidate_id"], ok=False)
    assert result.exit_code == 1 and "没有任何修改" in result.output


def test_render_candidate_shows_text_report_context_and_diff(engine, book, capsys):
    from muse.cli.decisions import render_candidate
    from muse.flow.edit_merge import edit_candidate

    summary = write_offline(engine, book, NEXT)
    body = _body(engine, summary.candidate_id).replace("苏晴", "她")  # rejected: 苏晴 missing
    outcome = edit_candidate(engine, summary.candidate_id, body)
    with engine.connect() as conn:
        view = candidate_view(conn, outcome.new_candidate_id)
    render_candidate(view)
    printed = capsys.readouterr().out
    assert "v2" in printed and "REJECTED" in printed and "required_entity_missing" in printed
    assert view["context"]["snapshotId"] in printed
    assert "[-苏晴-]{+她+}" in printed


def test_accept_takes_the_actor_like_every_decision(muse, engine, book):
    summary = write_offline(engine, book, NEXT)
    out = muse.json("accept", summary.candidate_id, "--actor", "lin")
    assert out["state"] == "extraction_queued"
    with engine.connect() as conn:
        view = candidate_view(conn, summary.candidate_id)
    assert [(d["kind"], d["actor"]) for d in view["decisions"]] == [("accept", "lin")]


def test_an_edit_with_an_author_note_and_garbled_text_is_rejected(muse, engine, book, tmp_path):
    """Issue 18 through the command an author uses: a bracketed author's note and mojibake
    pasted into the chapter block the new version (exit 1, both findings named)."""
    summary = write_offline(engine, book, NEXT)
    body = _body(engine, summary.candidate_id)
    path = tmp_path / "edit.txt"
    edited = body.replace("\n\n", "\n\n（作者的话：今天加更。）\n\n锟斤拷", 1)
    path.write_text(edited, encoding="utf-8")
    result = muse(
        "candidate", "edit", summary.candidate_id, "--file", str(path), "--json", ok=False
    )
    out = json.loads(result.stdout)
    assert (out["state"], out["run_state"]) == ("REJECTED", "blocked_user_action")
    assert [(f["kind"], f["severity"]) for f in out["findings"]] == [
        ("meta_text", "high"),
        ("garbled_text", "high"),
    ]
