"""Fixtures of the knowledge tests: a work holding real 西游记 excerpts (card builders:
``tests/support/cards.py``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import Connection, Engine

from muse.works.canonical import add_chapter
from muse.works.catalog import create_work
from tests.knowledge.xiyouji import CHAPTERS


@pytest.fixture
def conn(engine: Engine) -> Iterator[Connection]:
    """One transaction per test, rolled back at the end (the database is fresh anyway)."""
    with engine.connect() as connection, connection.begin() as tx:
        yield connection
        tx.rollback()


@pytest.fixture
def work(conn: Connection) -> int:
    work_id = create_work(conn, "西游记")
    for number, (title, text) in CHAPTERS.items():
        add_chapter(conn, work_id, number, title, text)
    return work_id
