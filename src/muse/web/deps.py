"""What every page needs: a read connection, the engine for decisions, the acting author."""

from __future__ import annotations

import getpass
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from fastapi import Request
from sqlalchemy import Connection, Engine

from muse.store.engine import reading
from muse.works import get_work_row, latest_chapter_number


def engine_of(request: Request) -> Engine:
    engine: Engine = request.app.state.engine
    return engine


@contextmanager
def read(request: Request) -> Iterator[Connection]:
    with reading(engine_of(request)) as conn:
        yield conn


def zoned_for(conn: Connection, table: str, row_id: str) -> Connection:
    """``conn`` for the page of one run or candidate: production reads never see the evaluation
    zone (muse.flow.zones), so the page of an evaluation row — reached from the board's separate
    评测区 and labelled as such — reads through the zone; every other page does not."""
    from muse.flow import is_production_row, zone

    if is_production_row(conn, table, row_id):
        return conn
    return zone(conn)


def actor() -> str:
    """Who decides: the operating-system user running the workbench, as the CLI records it."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "author"


@dataclass(frozen=True)
class WorkNav:
    """What the page header needs about a work (``work_info`` sums the whole book: too slow for
    every page of a 2,000-chapter work)."""

    id: int
    title: str
    latest_chapter: int | None


def work_nav(conn: Connection, work_id: int) -> WorkNav:
    row = get_work_row(conn, work_id)  # raises NotFound
    return WorkNav(row.id, row.title, latest_chapter_number(conn, work_id))
