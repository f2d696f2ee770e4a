"""What every command needs: the ready database engine (the shared options: :mod:`.options`)."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from muse.cli.output import err_console, fail
from muse.core.errors import ConfigError, MuseError
from muse.core.limits import MAX_YAML_MB, read_capped
from muse.store.engine import is_sqlite, make_engine
from muse.store.migrate import is_up_to_date, upgrade
from muse.works import resolve_work

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from muse.agents import ModelChoice


def get_engine() -> Engine:
    """The ready engine; the first call also sweeps runs a crash left non-terminal."""
    engine = ready_engine()
    global _swept
    if not _swept:
        _swept = True
        _sweep(engine)
    return engine


_swept = False


@cache
def ready_engine() -> Engine:
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


def _sweep(engine: Engine) -> None:
    """Runs a crash left non-terminal are swept to their timeout state on startup (issue 6).
    The sweep itself is imported only when the probe finds a run it could move."""
    from sqlalchemy.exc import SQLAlchemyError

    from muse.flow import sweep_may_move

    try:
        if not sweep_may_move(engine):
            return
    except SQLAlchemyError:
        pass  # the sweep itself reports what is wrong
    from muse.flow import sweep_on_startup

    report = sweep_on_startup(engine)
    if report.moved:
        err_console.print(
            f"[yellow]注意：[/]{len(report.moved)} 个中断的运行已标记为超时（muse runs 查看）。"
        )
    if report.error:
        err_console.print(f"[yellow]注意：[/]启动时清理中断运行失败：{report.error}")


def read_yaml_text(path: Path, max_mb: float = MAX_YAML_MB) -> str:
    """An author's YAML file as text: size-capped, decoded like a book file (UTF-8 with or
    without BOM, UTF-16 with BOM, GB18030; binary refused with the byte offset)."""
    from muse.works import decode_book

    return decode_book(read_capped(path, max_mb, what="文件", flag="--max-mb")).text


def chosen_model(work_id: int, role: str, provider: str | None, model: str | None) -> ModelChoice:
    """The flags if given, else the work's ``muse models use`` choice for ``role`` (never env)."""
    from muse.agents import resolve_model

    try:
        return resolve_model(get_engine(), work_id, role, provider, model)
    except MuseError as err:
        fail(err)


def work_id_for(work: str | None) -> int:
    with get_engine().connect() as conn:
        return resolve_work(conn, work)


def _reset() -> None:
    """Forget the engine (tests point MUSE_DATABASE_URL elsewhere between runs)."""
    global _swept
    ready_engine.cache_clear()
    _swept = False


get_engine.cache_clear = _reset  # type: ignore[attr-defined]
