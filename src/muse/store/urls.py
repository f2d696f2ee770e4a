"""Which database: the URL from the flag, ``MUSE_DATABASE_URL`` or the workspace's ``muse.db``.

No SQLAlchemy here: the engine (:mod:`muse.store.engine`) and the plain read path
(:mod:`muse.store.plain`) read the same URL.
"""

from __future__ import annotations

import os
from pathlib import Path

DEFAULT_SQLITE_FILE = "muse.db"


def database_url(explicit: str | None = None) -> str:
    """The database URL: explicit, else ``MUSE_DATABASE_URL``, else SQLite in the workspace."""
    url = explicit or os.environ.get("MUSE_DATABASE_URL")
    if url:
        return normalize_url(url)
    return f"sqlite:///{Path.cwd() / DEFAULT_SQLITE_FILE}"


def normalize_url(url: str) -> str:
    """Route plain ``postgresql://`` URLs to psycopg 3."""
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url
