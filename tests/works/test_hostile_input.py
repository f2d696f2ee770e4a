"""Hostile text and files (issue 19 §4, §6): the prose character set is decided once and applied
to every way text enters the book; every file is read with a cap; an absurd chapter stops the
import. Each refusal is a Chinese message that names the problem and stores nothing."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select, text
from typer.testing import CliRunner

from muse.cli.main import app
from muse.core.errors import ImportFailed, InvalidInput
from muse.core.prose_chars import find_refused, refusal_message, strip_refused
from muse.flow.chapter_edit import edit_chapter
from muse.works import catalog
from muse.works.canonical import add_chapter
from muse.works.catalog import create_work
from muse.works.importer import analyse, import_book
from muse.works.tables import prose_blocks, works

CLEAN = "林远推开门，雨声扑面而来。\n\n他回头望了一眼。"

HOSTILE_CHARS = {
    "NUL": ("\x00", "NUL"),
    "ESC sequence": ("\x1b[31m", "ESC"),
    "bidi override": ("\u202e", "双向文字控制符"),
    "bidi isolate": ("\u2066", "双向文字控制符"),
    "zero-width space": ("\u200b", "零宽空格"),
    "zero-width joiner": ("\u200d", "零宽连接符"),
    "BOM inside the text": ("\ufeff", "BOM"),
    "C1 control": ("\x85", "控制字符"),
    "DEL": ("\x7f", "控制字符"),
    "lone surrogate": ("\ud800", "孤立代理项"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE_CHARS))
def test_the_character_set_refuses_and_names_each_hostile_character(case):
    bad, name = HOSTILE_CHARS[case]
    text_ = CLEAN[:3] + bad + CLEAN[3:]
    message = refusal_message(text_)
    assert message is not None and name in message and "第 4 个字符" in message
    assert strip_refused(text_)[0] == CLEAN
    assert find_refused(CLEAN) == [] and refusal_message("甲\t乙\n丙") is None


@pytest.mark.parametrize("case", sorted(HOSTILE_CHARS))
def test_an_author_edit_with_a_hostile_character_is_refused_on_both_backends(engine, case):
    bad, name = HOSTILE_CHARS[case]
    with engine.begin() as conn:
        work_id = create_work(conn, "书")
        add_chapter(conn, work_id, 1, "第一章", CLEAN)
    with pytest.raises(InvalidInput) as caught:
        edit_chapter(engine, work_id, 1, "他停下脚步。" + bad + "雨还在下。")
    assert name in caught.value.message
    with engine.connect() as conn:
        assert catalog.get_chapter_text(conn, work_id, 1).revision == 1
        assert conn.execute(select(func.count()).select_from(prose_blocks)).scalar() == 1


def test_an_import_strips_hostile_characters_and_says_so(engine):
    body = "第1章 开端\n林远\u200b推开门，\u202e雨声扑面而来。\n\n第2章 后来\n他\u2060走了。"
    report = import_book(engine, body.encode("utf-8"), title="书")
    assert any("零宽空格（U+200B） × 1" in w and "双向文字控制符" in w for w in report.warnings)
    with engine.connect() as conn:
        stored = [
            (r.text, r.n)
            for r in conn.execute(
                text("SELECT text, length(text) AS n FROM prose_blocks ORDER BY chapter_id")
            )
        ]
    assert [t for t, _ in stored] == ["林远推开门，雨声扑面而来。", "他走了。"]
    assert all(len(t) == n for t, n in stored)  # the database counts what Python counts


def test_an_absurd_chapter_stops_the_import(engine):
    data = ("第1章 开端\n" + "字" * 300_000).encode("utf-8")  # one line, no other heading
    with pytest.raises(ImportFailed) as caught:
        import_book(engine, data, title="书")
    assert "超过单章上限" in caught.value.message and "--max-chapter-chars" in caught.value.hint
    with engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(works)).scalar() == 0
    book, _ = analyse(data, "书", max_chapter_chars=400_000)  # the author's explicit raise
    assert len(book.chapters[0].body) == 300_000


def _import(*args: str):
    """``muse import`` as the console script runs it: a Muse error is printed in Chinese by
    ``main`` (exit 1), so here it must arrive as a MuseError, never as anything else."""
    return CliRunner().invoke(app, ["import", *args])


def test_import_of_an_endless_device_is_refused_at_the_cap(muse):
    result = _import("/dev/zero", "--title", "零")
    assert isinstance(result.exception, InvalidInput), repr(result.exception)
    assert "超过大小上限 64 MB" in str(result.exception) and "--max-mb" in str(result.exception)


def test_import_of_a_file_over_the_cap_is_refused_and_the_flag_raises_it(muse, tmp_path):
    path = tmp_path / "书.txt"
    path.write_bytes(("第1章 开端\n" + "林远推开门。" * 200_000).encode("utf-8"))  # ~3.6 MB
    refused = _import(str(path), "--title", "书", "--max-mb", "1")
    assert isinstance(refused.exception, InvalidInput) and "超过大小上限 1 MB" in str(
        refused.exception
    )
    refused = _import(str(path), "--title", "书", "--dry-run")
    assert isinstance(refused.exception, ImportFailed) and "超过单章上限" in str(refused.exception)
    done = muse.json(
        "import", str(path), "--title", "书", "--dry-run", "--max-chapter-chars", "2000000"
    )
    assert done["chapterCount"] == 1
