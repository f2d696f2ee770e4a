"""``muse chapters``: the listing scripts run most, answered without SQLAlchemy when it can be.

The command first asks the plain read path (:mod:`muse.store.plain`, the driver itself): if the
schema is at the scripts' heads, no run waits for the start-up sweep and the work is found at
once, it lists the chapters from there, and the process never imports SQLAlchemy, pydantic or
rich (``--json``). Otherwise it runs the full path (``cli.common.get_engine``: migrate, sweep,
``resolve_work``'s messages), exactly as every other command does. Both give the same rows
(``tests/store/test_plain_reads.py``).
"""

from __future__ import annotations

from typing import Any

import typer

from muse.cli.options import JsonOption, WorkOption
from muse.cli.output import console, emit, new_table


def list_chapters(work: str = WorkOption, json_out: bool = JsonOption) -> None:
    """列出章节（章号、标题、卷、汉字数、修订版、内容哈希）。"""
    rows = plain_rows(work)
    emit(full_rows(work) if rows is None else rows, json_out, _render_chapters)


def plain_rows(work: str | None) -> list[dict[str, Any]] | None:
    """The listing from the plain read path, or ``None`` where the full path must answer."""
    from muse.flow import sweep_may_move_plain
    from muse.store.plain import PlainUnavailable, open_reader
    from muse.works import plain_chapter_list

    try:
        with open_reader() as reader:
            if not reader.schema_is_current() or sweep_may_move_plain(reader):
                return None
            return plain_chapter_list(reader, work)
    except PlainUnavailable:
        return None


def full_rows(work: str | None) -> list[dict[str, Any]]:
    from muse.cli.common import get_engine, work_id_for
    from muse.store.engine import reading
    from muse.works import list_chapters as chapters_of

    with reading(get_engine()) as conn:
        return [r.model_dump(mode="json") for r in chapters_of(conn, work_id_for(work))]


def _render_chapters(rows: list[dict[str, Any]]) -> None:
    table = new_table("章号", "标题", "卷", "汉字数", "修订版", "内容哈希")
    for r in rows:
        table.add_row(
            str(r["number"]),
            r["title"],
            r["volume"] or "",
            str(r["han_count"]),
            str(r["revision"]),
            r["content_sha256"][:12],
        )
    console.print(table)


def register(app: typer.Typer) -> None:
    app.command("chapters")(list_chapters)


__all__ = ["register"]
