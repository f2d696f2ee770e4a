"""``muse import / works / chapters / chapter show / export / work status`` as an author uses them."""

import pytest

from muse.core.errors import ImportFailed, InvalidInput

BOOK = """书名：测试之书
作者：某人

第一卷 初入江湖

第1章 开端
林远走出山门。“走吧。”他说。

第2章 下山
林远来到镇上。第三章里说到的事，此刻还没有发生。

第二卷 风起

第3章 风起
风起云涌。
"""


@pytest.fixture
def book_file(tmp_path):
    path = tmp_path / "book.txt"
    path.write_text(BOOK, encoding="utf-8")
    return path


def test_dry_run_lists_chapters_and_writes_nothing(muse, book_file):
    data = muse.json("import", str(book_file), "--title", "测试之书", "--dry-run")
    assert data["dryRun"] is True and data["workId"] is None
    assert [(c["number"], c["title"], c["volume"]) for c in data["chapters"]] == [
        (1, "开端", "初入江湖"),
        (2, "下山", "初入江湖"),
        (3, "风起", "风起"),
    ]
    assert muse.json("works") == []


def test_import_then_list_show_and_export(muse, book_file, tmp_path):
    data = muse.json("import", str(book_file), "--title", "测试之书", "--source", "public-domain")
    assert data["workId"] == 1 and data["chapterCount"] == 3
    works = muse.json("works")
    assert works[0]["source_kind"] == "public_domain" and works[0]["chapter_count"] == 3
    chapters = muse.json("chapters")
    assert [c["number"] for c in chapters] == [1, 2, 3]
    assert chapters[0]["revision"] == 1 and len(chapters[0]["content_sha256"]) == 64
    shown = muse.json("chapter", "show", "2")
    assert "第三章里说到的事" in shown["text"]
    out = tmp_path / "out.md"
    muse("export", str(out), "--format", "md")
    exported = out.read_text(encoding="utf-8")
    assert exported.startswith("# 测试之书")
    assert exported.index("开端") < exported.index("下山") < exported.index("风起云涌")


def test_exported_text_reimports_to_the_same_chapters(muse, book_file, tmp_path):
    muse("import", str(book_file), "--title", "测试之书")
    out = tmp_path / "out.txt"
    muse("export", str(out))
    again = muse.json("import", str(out), "--title", "再导入", "--dry-run")
    original = muse.json("chapters")
    assert [(c["number"], c["title"], c["hanCount"]) for c in again["chapters"]] == [
        (c["number"], c["title"], c["han_count"]) for c in original
    ]


def test_bad_file_fails_with_clear_error_and_stores_nothing(muse, tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"\x00\x01\x02binary\xff\xfe\x00")
    with pytest.raises(ImportFailed):
        muse("import", str(bad), "--title", "坏文件")
    assert muse.json("works") == []


def test_unknown_source_is_refused(muse, book_file):
    with pytest.raises(InvalidInput, match="public-domain"):
        muse("import", str(book_file), "--title", "书", "--source", "stolen")


def test_work_status_change_is_visible(muse, book_file):
    muse("import", str(book_file), "--title", "测试之书")
    data = muse.json("work", "status", "--status", "suspended")
    assert data["source_status"] == "suspended"


def test_init_reports_database(muse):
    data = muse.json("init")
    assert data["database"].startswith(("sqlite", "postgresql")) and data["revisions"]


def test_import_builds_the_search_index_so_the_first_write_need_not(muse, book_file):
    data = muse.json("import", str(book_file), "--title", "测试之书")
    assert data["searchIndex"]["chapters"] == 3 and data["searchIndex"]["chunks"] >= 3
    (status,) = muse.json("index", "status")
    assert status["fresh"] is True and status["indexedChapters"] == 3
    assert status["builtVersion"] == data["searchIndex"]["indexVersion"]
    hits = muse.json("search", "风起")
    assert hits, "the imported text is searchable right away"
