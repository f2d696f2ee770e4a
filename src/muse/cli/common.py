"""What every command needs: the database engine and the ``--work`` / ``--json`` options."""

from __future__ import annotations

from functools import cache

import typer
from sqlalchemy import Engine

from muse.core.errors import ConfigError
from muse.store.engine import is_sqlite, make_engine
from muse.store.migrate import is_up_to_date, upgrade
from muse.works.catalog import resolve_work

JsonOption = typer.Option(False, "--json", help="以 JSON 输出，便于脚本处理。")
WorkOption = typer.Option(None, "--work", "-w", help="作品 ID 或书名；只有一部作品时可省略。")


@cache
def get_engine() -> Engine:
    """The engine for ``MUSE_DATABASE_URL`` (or ./muse.db), migrated and ready.

    The embedded SQLite database is migrated on first use; a PostgreSQL server database is only
    migrated by an explicit ``muse init``, so an upgrade never happens behind an operator's back.
    """
    engine = make_engine()
    if not is_up_to_date(engine):
        if not is_sqlite(engine):
            raise ConfigError("数据库尚未初始化或版本落后。", hint="先运行 muse init。")
        upgrade(engine)
    return engine


def work_id_for(work: str | None) -> int:
    with get_engine().connect() as conn:
        return resolve_work(conn, work)
