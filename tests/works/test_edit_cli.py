"""``muse chapter edit / revert / history`` and ``muse rebuild`` as an author uses them."""

from __future__ import annotations

import sys
import textwrap

import pytest

from muse.core.errors import RevisionConflict
from tests.support.cards import extract_jobs, text_of

EDITED = text_of(1).replace("石猴", "灵猴")


def test_edit_from_a_file_then_history_and_revert(muse, xiyou, tmp_path):
    new = tmp_path / "第一回.txt"
    new.write_text("\ufeff" + EDITED, encoding="utf-8")
    data = muse.json("chapter", "edit", "1", "--file", str(new))
    assert (data["revision"], data["origin"], len(data["stale_refs"])) == (2, "edit", 1)
    assert muse.json("chapter", "show", "1")["text"] == EDITED  # BOM gone, text as written
    history = muse.json("chapter", "history", "1")
    assert [(h["revision"], h["origin"], h["current"]) for h in history] == [
        (1, "import", False),
        (2, "edit", True),
    ]
    assert all(len(h["content_sha256"]) == 64 and h["han_count"] > 0 for h in history)
    reverted = muse.json("chapter", "revert", "1", "--to-revision", "1")
    assert (reverted["revision"], reverted["reverted_to"]) == (3, 1)
    assert muse.json("chapter", "show", "1")["text"] == text_of(1)
    out = muse("chapter", "history", "1").stdout
    assert "回退→1" in out and "作者编辑" in out and "当前" in out


def test_edit_prints_what_followed_the_change(muse, xiyou, tmp_path):
    new = tmp_path / "new.txt"
    new.write_text(EDITED, encoding="utf-8")
    out = muse("chapter", "edit", "1", "--file", str(new)).stdout
    assert "修订版 1 → 2" in out and "检索索引" in out
    assert "新失效 1 条" in out and "不再是「石猴」" in out and "章后抽取已排队" in out


def test_stale_expected_revision_names_the_file_that_keeps_the_edit(muse, engine, xiyou, tmp_path):
    new = tmp_path / "new.txt"
    new.write_text(EDITED, encoding="utf-8")
    muse("chapter", "edit", "1", "--file", str(new))
    new.write_text("基于旧版的改写。", encoding="utf-8")
    with pytest.raises(RevisionConflict) as caught:
        muse("chapter", "edit", "1", "--file", str(new), "--expected-revision", "1")
    assert "当前修订版 2" in caught.value.message and str(new) in (caught.value.hint or "")
    assert [j["revision"] for j in extract_jobs(engine)] == [2]  # nothing from the refused edit
    assert muse.json("chapter", "show", "1")["text"] == EDITED


def _editor(tmp_path, body: str) -> str:
    script = tmp_path / "editor.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import os, sys
            path = sys.argv[1]
            text = open(path, encoding="utf-8").read()
            open(path, "w", encoding="utf-8").write({body})
            st = os.stat(path)
            os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 2_000_000_000))
            """
        ),
        encoding="utf-8",
    )
    return f'"{sys.executable}" "{script}"'


def test_edit_in_the_editor(muse, xiyou, tmp_path, monkeypatch):
    monkeypatch.setenv("EDITOR", _editor(tmp_path, 'text.replace("石猴", "灵猴")'))
    monkeypatch.delenv("VISUAL", raising=False)
    data = muse.json("chapter", "edit", "1")
    assert data["revision"] == 2
    assert muse.json("chapter", "show", "1")["text"] == EDITED


def test_editor_edit_that_loses_the_race_is_saved_to_a_file(muse, xiyou, tmp_path, monkeypatch):
    """While the author edits revision 1, the chapter moves to revision 2: the edit is refused
    and kept on disk."""
    racing = tmp_path / "racing.txt"
    racing.write_text("另一处改动。", encoding="utf-8")
    muse("chapter", "edit", "1", "--file", str(racing))
    monkeypatch.setenv("EDITOR", _editor(tmp_path, 'text + "\\n\\n作者的补记。"'))
    monkeypatch.delenv("VISUAL", raising=False)
    with pytest.raises(RevisionConflict) as caught:
        muse("chapter", "edit", "1", "--expected-revision", "1")
    kept = list(tmp_path.glob("muse-第1章-未提交修改-*.txt"))
    assert len(kept) == 1 and str(kept[0]) in (caught.value.hint or "")
    assert kept[0].read_text(encoding="utf-8") == text_of(1) + "\n\n作者的补记。"
    assert muse.json("chapter", "show", "1")["text"] == "另一处改动。"


def test_rebuild_command(muse, xiyou):
    [data] = muse.json("rebuild")
    assert (data["title"], data["chapters"], data["refs_checked"]) == ("西游记", 4, 2)
    out = muse("rebuild", "--work", "西游记").stdout
    assert "《西游记》" in out and "检索索引：4 章" in out and "出处：共 2 条" in out
    assert "设定台账：1 张卡" in out
