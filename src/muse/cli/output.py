"""Printing for every command: Chinese text for the author, or ``--json`` for scripts.

Renderers write rich markup (``[green]…[/]``) around values that come from the author or a
model: a title, a model id, a config name such as ``[providers.deepseek]``, an error message.
Such a value must print as itself, so :func:`emit` hands its renderer a copy of the data with
every string escaped (:func:`markup_safe`); a renderer that prints something else escapes it
with :func:`escape`. ``--json`` prints the data unchanged. Stored times are UTC; the author sees
them in the local time zone (:func:`local_time`).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, NoReturn

import typer

from muse.core.errors import MuseError

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table


class LazyConsole:
    """A rich ``Console`` built on first use, so that a command printing ``--json`` (or nothing)
    never imports rich (about 100 M instructions of start-up, issue 12). Attribute access goes
    to the real console; :meth:`real` is the console itself, for rich APIs that take one."""

    def __init__(self, *, stderr: bool = False) -> None:
        self._stderr = stderr
        self._real: Console | None = None

    def real(self) -> Console:
        if self._real is None:
            from rich.console import Console

            self._real = Console(stderr=self._stderr)
        return self._real

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real(), name)


console = LazyConsole()
err_console = LazyConsole(stderr=True)


def new_table(*columns: str, **options: Any) -> Table:
    """A ``rich.table.Table`` (rich is imported when a table is first printed)."""
    from rich.table import Table

    return Table(*columns, **options)


def print_table(title: str, columns: str, rows: Iterable[Iterable[object]]) -> None:
    """A table with space-separated ``columns``; cells are printed as text."""
    table = new_table(title=title, title_justify="left", header_style="bold")
    for column in columns.split():
        table.add_column(column)
    for row in rows:
        table.add_row(*(str(cell) for cell in row))
    console.print(table)


def escape(text: str) -> str:
    """``text`` with rich markup escaped (:func:`rich.markup.escape`, imported when used)."""
    from rich.markup import escape as rich_escape

    return rich_escape(text)


def print_json(data: Any) -> None:
    """Print ``data`` as JSON (UTF-8, not ASCII-escaped) on stdout."""
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n")


def markup_safe(data: Any) -> Any:
    """``data`` with every string (values and keys, nested) escaped for rich markup."""
    if isinstance(data, str):
        return escape(data)
    if isinstance(data, dict):
        return {markup_safe(k): markup_safe(v) for k, v in data.items()}
    if isinstance(data, list):
        return [markup_safe(v) for v in data]
    if isinstance(data, tuple):
        return tuple(markup_safe(v) for v in data)
    return data


def emit(data: Any, as_json: bool, render: Callable[[Any], None], *, escaped: bool = True) -> None:
    """Print ``data`` as JSON when ``as_json``, else through ``render`` with strings escaped.

    ``escaped=False`` is for a renderer that prints prose as itself (:func:`print_prose`, or
    ``markup=False``) and escapes with :func:`escape` whatever it puts inside markup.
    """
    if as_json:
        print_json(data)
    else:
        render(markup_safe(data) if escaped else data)


def print_prose(text: str) -> None:
    """Chapter text as itself: never markup; hard-wrapped only on a terminal (a file or pipe
    gets the text byte for byte, one paragraph per line)."""
    if console.is_terminal:
        console.print(text, markup=False, highlight=False)
        return
    console.file.write(text if text.endswith("\n") else text + "\n")
    console.file.flush()


def local_time(value: datetime | str | None) -> str:
    """A stored UTC time (datetime or ISO string) in the author's local time zone, or "—"."""
    if value is None or value == "":
        return "—"
    if isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return value
    else:
        moment = value
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone().strftime("%Y-%m-%d %H:%M:%S")


def print_error(error: MuseError | str) -> None:
    err_console.print(f"[bold red]错误：[/]{escape(str(error))}", highlight=False)


def fail(error: MuseError | str, code: int = 1) -> NoReturn:
    """Inside a command: print an error for the author and exit with ``code``."""
    print_error(error)
    raise typer.Exit(code)
