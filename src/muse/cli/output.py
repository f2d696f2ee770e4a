"""Printing for every command: Chinese text for the author, or ``--json`` for scripts."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape

from muse.core.errors import MuseError

console = Console()
err_console = Console(stderr=True)


def print_json(data: Any) -> None:
    """Print ``data`` as JSON (UTF-8, not ASCII-escaped) on stdout."""
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n")


def emit(data: Any, as_json: bool, render: Callable[[Any], None]) -> None:
    """Print ``data`` as JSON when ``as_json``, else through ``render``."""
    if as_json:
        print_json(data)
    else:
        render(data)


def print_error(error: MuseError | str) -> None:
    err_console.print(f"[bold red]错误：[/]{escape(str(error))}", highlight=False)


def fail(error: MuseError | str, code: int = 1) -> NoReturn:
    """Inside a command: print an error for the author and exit with ``code``."""
    print_error(error)
    raise typer.Exit(code)
