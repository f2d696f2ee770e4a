"""``muse export``: format from the file name, EPUB only to a file, bad formats refused."""

from pathlib import Path

from ebooklib import epub

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "books" / "xiyouji_head.txt"


def test_export_epub_by_extension_and_md_reimports(muse, tmp_path):
    muse("import", str(FIXTURE), "--title", "西游记")
    book = tmp_path / "西游记.epub"

    out = muse("export", str(book), "--author", "吴承恩").stdout

    assert "（epub）" in out
    parsed = epub.read_epub(str(book))
    assert parsed.get_metadata("DC", "creator")[0][0] == "吴承恩"
    assert [c.title for c in parsed.toc][:1] == ["第一回　灵根育孕源流出　心性修持大道生"]
    md = tmp_path / "西游记.md"
    muse("export", str(md))
    again = muse.json("import", str(md), "--title", "再导入", "--dry-run")
    assert [(c["number"], c["title"]) for c in again["chapters"]] == [
        (c["number"], c["title"]) for c in muse.json("chapters")
    ]


def test_export_refusals(muse, tmp_path):
    muse("import", str(FIXTURE), "--title", "西游记")
    no_file = muse("export", "--format", "epub", ok=False)
    assert no_file.exit_code == 1 and "请写出输出文件名" in no_file.stderr
    bad = muse("export", str(tmp_path / "x.doc"), "--format", "doc", ok=False)
    assert bad.exit_code == 1 and "不支持的导出格式「doc」" in bad.stderr
    assert not (tmp_path / "x.doc").exists()
