"""The 三国演义 excerpt (tests/fixtures/books/sanguoyanyi_head.txt) as (chapter, text) pairs."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from sqlalchemy import Connection

from muse.works.book_parser import parse_book
from muse.works.canonical import add_chapter
from muse.works.catalog import create_work

BOOK = Path(__file__).resolve().parents[1] / "fixtures" / "books" / "sanguoyanyi_head.txt"


@cache
def chapters() -> tuple[tuple[int, str, str], ...]:
    book = parse_book(BOOK.read_text(encoding="utf-8"))
    return tuple((c.number, c.title, c.body) for c in book.chapters)


def sanguo_work(conn: Connection) -> int:
    work_id = create_work(conn, "三国演义")
    for number, title, body in chapters():
        add_chapter(conn, work_id, number, title, body)
    return work_id
