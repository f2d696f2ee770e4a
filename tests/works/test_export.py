"""Export writes the headings as imported, round-trips through import, and builds a real EPUB."""

import io
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from ebooklib import epub

from muse.works.canonical import add_chapter
from muse.works.export import (
    HeadingStyle,
    export_book,
    export_epub,
    heading_style,
    round_trip_differences,
)
from muse.works.importer import import_book

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "books"

VOLUMES = """前言：这是一本测试书。

第一卷　潜龙在渊

第1章 少年
林远走出山门。
“走吧。”他说。

第2章：下山
山路很长。

第二卷 风起云涌

第3章 风起
风起了。
"""


def _import(engine, data: bytes, title: str = "书") -> int:
    return import_book(engine, data, title=title).work_id


@pytest.mark.parametrize(
    "name", ["xiyouji_head.txt", "sanguoyanyi_head.txt", "xiyouji_tail_merged.txt"]
)
@pytest.mark.parametrize("fmt", ["txt", "md"])
def test_corpus_excerpts_round_trip(engine, name, fmt):
    work_id = _import(engine, (FIXTURES / name).read_bytes())
    with engine.connect() as conn:
        assert round_trip_differences(conn, work_id, fmt) == []
        text = export_book(conn, work_id, fmt)
    assert "第1章" not in text


def test_headings_are_written_as_imported(engine):
    work_id = _import(engine, (FIXTURES / "xiyouji_head.txt").read_bytes())
    with engine.connect() as conn:
        lines = export_book(conn, work_id, "txt").splitlines()
    assert "第一回　灵根育孕源流出　心性修持大道生" in lines
    assert "第三回　四海千山皆拱伏　九幽十类尽除名" in lines


def test_volumes_and_separators_round_trip(engine):
    work_id = _import(engine, VOLUMES.encode())
    with engine.connect() as conn:
        for fmt in ("txt", "md"):
            assert round_trip_differences(conn, work_id, fmt) == []
        md = export_book(conn, work_id, "md").splitlines()
    assert "## 第一卷　潜龙在渊" in md and "### 第2章：下山" in md


def test_a_chapter_muse_wrote_gets_a_heading_in_the_books_style(engine):
    work_id = _import(engine, (FIXTURES / "xiyouji_head.txt").read_bytes())
    with engine.begin() as conn:
        add_chapter(conn, work_id, 4, "官封弼马心何足　名注齐天意未宁", "却说美猴王荣归故里。")
    with engine.connect() as conn:
        lines = export_book(conn, work_id, "txt").splitlines()
        assert round_trip_differences(conn, work_id, "txt") == []
    assert "第四回　官封弼马心何足　名注齐天意未宁" in lines


@dataclass(frozen=True)
class StyleCase:
    headings: tuple[str, ...]
    number: int
    title: str
    expected: str


STYLES = [
    StyleCase((), 12, "重逢", "第12章 重逢"),
    StyleCase(("第一回　甲　乙", "第二回　丙　丁"), 21, "戊　己", "第二十一回　戊　己"),
    StyleCase(("第1章：开端", "第2章：下山"), 3, "风起", "第3章：风起"),
    StyleCase(("第一章 开端",), 5, "", "第五章"),
]


@pytest.mark.parametrize("case", STYLES, ids=lambda c: c.expected)
def test_heading_style(case):
    assert heading_style(list(case.headings)).heading(case.number, case.title) == case.expected
    assert HeadingStyle().heading(1, "") == "第1章"


def test_epub_has_metadata_toc_with_volumes_and_every_chapter(engine, tmp_path):
    work_id = _import(engine, VOLUMES.encode(), title="潜龙")
    with engine.connect() as conn:
        data = export_epub(conn, work_id, author="某人")
    assert zipfile.ZipFile(io.BytesIO(data)).testzip() is None
    path = tmp_path / "book.epub"
    path.write_bytes(data)

    book = epub.read_epub(str(path))

    assert book.get_metadata("DC", "title")[0][0] == "潜龙"
    assert book.get_metadata("DC", "creator")[0][0] == "某人"
    assert book.get_metadata("DC", "language")[0][0] == "zh"
    sections = [(s.title, [c.title for c in items]) for s, items in book.toc[1:]]
    assert sections == [
        ("第一卷　潜龙在渊", ["第1章 少年", "第2章：下山"]),
        ("第二卷 风起云涌", ["第3章 风起"]),
    ]
    first = book.get_item_with_href("chapter-00001.xhtml").get_content().decode()
    assert "<p>林远走出山门。</p>" in first and "<p>“走吧。”他说。</p>" in first
