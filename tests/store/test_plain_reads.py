"""The plain read path (``store.plain``, ``works.plain_reads``): ``muse chapters`` without
SQLAlchemy. It may only ever answer what the full path answers, and must hand every case it does
not handle to the full path (on both backends)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from muse.cli.listing import full_rows, plain_rows
from muse.core.errors import MuseError
from muse.core.redaction import forget_secrets, register_secret
from muse.store import plain
from muse.store.plain import PlainUnavailable, open_reader
from muse.works import plain_chapter_list

BOOK_A = """第一卷 初入江湖

第1章 开端
林远走出山门。“走吧。”他说。

第2章 下山
林远来到镇上。

第二卷 风起

第3章 风起
风起云涌。
"""
BOOK_B = """第1章 雨夜
雨下了一夜。

第2章 天明
天亮了，苏晴推开窗。
"""


@pytest.fixture
def two_works(muse, tmp_path):
    for name, text in (("甲书", BOOK_A), ("乙书", BOOK_B)):
        path = tmp_path / f"{name}.txt"
        path.write_text(text, encoding="utf-8")
        muse("import", str(path), "--title", name)
    edited = tmp_path / "edited.txt"
    edited.write_text("天亮了，苏晴推开窗，看见院里的积水。", encoding="utf-8")
    muse("chapter", "edit", "2", "--work", "乙书", "--file", str(edited))  # revision 2
    return muse


def _plain(db_url: str, work: str | None) -> list[dict] | None:
    with open_reader(db_url) as reader:
        return plain_chapter_list(reader, work)


@pytest.mark.parametrize("work", ["1", "2", "甲书", "乙书"])
def test_the_plain_listing_is_the_full_listing(two_works, db_url, work):
    answer = _plain(db_url, work)
    assert answer is not None
    assert answer == full_rows(work)
    assert json.dumps(answer, ensure_ascii=False) == json.dumps(full_rows(work), ensure_ascii=False)


def test_the_rows_carry_volumes_and_the_current_revision(two_works, db_url):
    a, b = _plain(db_url, "甲书"), _plain(db_url, "乙书")
    assert [(c["number"], c["volume"]) for c in a] == [
        (1, "初入江湖"),
        (2, "初入江湖"),
        (3, "风起"),
    ]
    assert [(c["number"], c["volume"], c["revision"]) for c in b] == [(1, None, 1), (2, None, 2)]


@pytest.mark.parametrize(
    "work",
    [
        None,  # two works: resolve_work asks which
        "99",  # no such id
        "不存在",  # no such title
        "甲书 ",  # titles match exactly
        "'; DROP TABLE works; --",  # bound, never spliced
        "99999999999999999999999",  # wider than a 64-bit id
        "²",  # isdigit() but no number: a title nobody has
        "0",
        "甲\x00书",  # the engine would bind it cleaned (NUL replaced): the full path decides
    ],
)
def test_what_the_plain_path_cannot_answer_goes_to_the_full_path(two_works, db_url, work):
    assert _plain(db_url, work) is None
    assert plain_rows(work) is None
    with pytest.raises(MuseError):  # the full path's refusal, which `muse` prints in Chinese
        two_works("chapters", *(["--work", work] if work is not None else []))


def test_a_title_holding_a_registered_secret_is_left_to_the_full_path(two_works, db_url):
    register_secret("sekrit-value-123")
    try:
        assert _plain(db_url, "甲书sekrit-value-123") is None
    finally:
        forget_secrets()


def test_duplicate_titles_are_left_to_the_full_path(two_works, db_url, tmp_path):
    again = tmp_path / "again.txt"
    again.write_text(BOOK_B, encoding="utf-8")
    two_works("import", str(again), "--title", "甲书")
    assert _plain(db_url, "甲书") is None
    with pytest.raises(MuseError, match="有多部作品叫「甲书」"):
        two_works("chapters", "--work", "甲书")
    assert _plain(db_url, "3") == full_rows("3")


def test_a_schema_not_at_the_scripts_heads_is_left_to_the_full_path(two_works, db_url, monkeypatch):
    with open_reader(db_url) as reader:
        assert reader.schema_is_current()
    monkeypatch.setattr(plain, "script_heads", lambda: frozenset({"a_newer_revision"}))
    with open_reader(db_url) as reader:
        assert not reader.schema_is_current()
    assert plain_rows("甲书") is None
    assert two_works.json("chapters", "--work", "甲书") == full_rows("甲书")


def test_only_the_one_work_there_is_is_found_without_a_name(muse, db_url, tmp_path):
    path = tmp_path / "a.txt"
    path.write_text(BOOK_A, encoding="utf-8")
    assert _plain(db_url, None) is None  # no work yet: resolve_work says so
    with pytest.raises(MuseError, match="还没有作品"):
        muse("chapters")
    muse("import", str(path), "--title", "甲书")
    assert _plain(db_url, None) == full_rows(None) == muse.json("chapters")


@pytest.mark.parametrize(
    "url",
    [
        "sqlite://",
        "sqlite:///:memory:",
        "sqlite:///muse.db?mode=ro",
        "sqlite:///a%20b.db",
        "sqlite+pysqlite:///muse.db",
        "mysql://user@localhost/muse",
    ],
)
def test_a_url_that_is_not_plain_is_left_to_the_engine(url):
    with pytest.raises(PlainUnavailable):
        open_reader(url)


def test_a_missing_sqlite_file_is_not_created(tmp_path):
    missing = tmp_path / "nothing-here.db"
    with pytest.raises(PlainUnavailable):
        open_reader(f"sqlite:///{missing}")
    assert not missing.exists()


def test_an_unreachable_server_is_left_to_the_engine():
    with pytest.raises(PlainUnavailable):
        open_reader("postgresql://nobody@127.0.0.1:1/none?connect_timeout=2")


def test_a_file_that_is_no_database_is_left_to_the_engine(tmp_path):
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database at all" * 100)
    with pytest.raises(PlainUnavailable), open_reader(f"sqlite:///{junk}") as reader:
        reader.schema_is_current()


def test_muse_chapters_json_imports_no_sqlalchemy_no_pydantic_no_rich(two_works, db_url):
    """What the issue-12 start-up target rests on, checked without a clock."""
    code = (
        "import sys, json\n"
        "from muse.cli.main import app\n"
        "try:\n"
        "    app(['chapters', '--work', '甲书', '--json'])\n"
        "except SystemExit as e:\n"
        "    code = e.code\n"
        "sys.stderr.write(json.dumps([code, sorted(m.split('.')[0] for m in sys.modules)]))\n"
    )
    env = {**os.environ, "MUSE_DATABASE_URL": db_url}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    exit_code, modules = json.loads(done.stderr.strip().splitlines()[-1])
    assert exit_code in (0, None)
    assert json.loads(done.stdout) == full_rows("甲书")
    assert not set(modules) & {"sqlalchemy", "pydantic", "rich", "alembic", "rjieba", "openai"}


def test_the_widest_id_is_the_catalogs():
    from muse.works import catalog, plain_reads

    assert plain_reads.MAX_ID == catalog.MAX_ID
