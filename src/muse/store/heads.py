"""The schema revisions a migrated database records, read from the migration scripts.

Alembic costs ~0.3 s CPU to import, so it is imported only to migrate: the check every command
makes reads the heads from the scripts' ``revision`` / ``down_revision`` / ``depends_on`` lines
(a test compares them with Alembic's own answer). This module imports neither Alembic nor
SQLAlchemy, so the plain read path (:mod:`muse.store.plain`) can make the same check.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

MIGRATIONS = Path(__file__).with_name("migrations")

_SCRIPT_LINE = re.compile(r"^(revision|down_revision|depends_on)\s*=\s*(.+?)\s*(#.*)?$", re.M)


@cache
def script_heads() -> frozenset[str]:
    """The revisions ``alembic_version`` holds once every head is applied: those no other script
    names as its ``down_revision`` or in its ``depends_on`` (Alembic does not record a revision
    another recorded one depends on)."""
    revisions: set[str] = set()
    parents: set[str] = set()
    for script in (MIGRATIONS / "versions").glob("*.py"):
        found = {k: v for k, v, _ in _SCRIPT_LINE.findall(script.read_text(encoding="utf-8"))}
        if "revision" not in found:
            continue  # __init__.py
        revisions.add(ast.literal_eval(found["revision"]))
        for key in ("down_revision", "depends_on"):
            named = ast.literal_eval(found.get(key, "None"))
            parents.update((named,) if isinstance(named, str) else named or ())
    return frozenset(revisions - parents)
