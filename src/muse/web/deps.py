"""What every page needs: a read connection, the engine for decisions, the acting author."""

from __future__ import annotations

import getpass
from collections.abc import Iterator
from contextlib import contextmanager

from fastapi import Request
from sqlalchemy import Connection, Engine

from muse.store.engine import reading


def engine_of(request: Request) -> Engine:
    return request.app.state.engine


@contextmanager
def read(request: Request) -> Iterator[Connection]:
    with reading(engine_of(request)) as conn:
        yield conn


def actor() -> str:
    """Who decides: the operating-system user running the workbench, as the CLI records it."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "author"
