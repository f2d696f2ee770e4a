"""Running Alembic migrations from code (``muse init``, tests, the demo).

The migration scripts live inside the package (``muse/store/migrations``) so an installed Muse can
migrate its own database without a checkout. Every domain's ``tables.py`` is imported by
:func:`load_all_tables` so that the metadata is complete before anything compares it.

Each domain owns an Alembic branch (``branch_labels = ("<domain>",)``) whose first revision
starts from the foundation revision ``0001``; a domain's later migrations extend its own branch.
Parallel work on two domains therefore never fights over one linear chain, and ``upgrade``
always migrates to every head.

Alembic costs ~0.3 s CPU to import, so it is imported only to migrate: the check every command
makes (:func:`is_up_to_date`) reads the heads from the scripts' ``revision`` / ``down_revision``
lines and the current revisions from ``alembic_version`` directly (a test compares both with
Alembic's own answers).
"""

from __future__ import annotations

import ast
import importlib
import re
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Engine, MetaData, inspect, text

from muse.store.metadata import metadata

if TYPE_CHECKING:
    from alembic.config import Config

# Domain table modules, in dependency order. A new domain adds its module here.
TABLE_MODULES = (
    "muse.store.tables",
    "muse.works.tables",
    "muse.agents.tables",
    "muse.knowledge.tables",
    "muse.planning.tables",
    "muse.patterns.tables",
    "muse.context.tables",
    "muse.context.search.tables",
    "muse.flow.tables",
    "muse.evaluation.tables",
)

_MIGRATIONS = Path(__file__).with_name("migrations")


def load_all_tables() -> MetaData:
    for name in TABLE_MODULES:
        importlib.import_module(name)
    return metadata


def alembic_config(engine: Engine) -> Config:
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(_MIGRATIONS))
    cfg.attributes["engine"] = engine
    return cfg


def upgrade(engine: Engine, revision: str = "heads") -> None:
    """Migrate to every head: each domain owns a branch that starts from the foundation."""
    from alembic import command

    command.upgrade(alembic_config(engine), revision)


def head_revisions(engine: Engine | None = None) -> set[str]:
    """The revisions ``alembic_version`` holds once every head is applied: those no other script
    names as its ``down_revision`` or in its ``depends_on`` (Alembic does not record a revision
    another recorded one depends on)."""
    return set(_script_heads())


_SCRIPT_LINE = re.compile(r"^(revision|down_revision|depends_on)\s*=\s*(.+?)\s*(#.*)?$", re.M)


@cache
def _script_heads() -> frozenset[str]:
    revisions: set[str] = set()
    parents: set[str] = set()
    for script in (_MIGRATIONS / "versions").glob("*.py"):
        found = {k: v for k, v, _ in _SCRIPT_LINE.findall(script.read_text(encoding="utf-8"))}
        if "revision" not in found:
            continue  # __init__.py
        revisions.add(ast.literal_eval(found["revision"]))
        for key in ("down_revision", "depends_on"):
            named = ast.literal_eval(found.get(key, "None"))
            parents.update((named,) if isinstance(named, str) else named or ())
    return frozenset(revisions - parents)


def current_revisions(engine: Engine) -> set[str]:
    """The revisions ``alembic_version`` records (empty for a database never migrated)."""
    with engine.connect() as conn:
        if not inspect(conn).has_table("alembic_version"):
            return set()
        return set(conn.execute(text("SELECT version_num FROM alembic_version")).scalars())


def is_up_to_date(engine: Engine) -> bool:
    return current_revisions(engine) == head_revisions()


def include_object(
    obj: Any, name: str | None, type_: str, reflected: bool, compare_to: Any
) -> bool:
    """Leave out of schema comparison the objects migrations create with raw DDL.

    Some objects cannot be declared portably in SQLAlchemy (SQLite FTS5 virtual tables, a
    PostgreSQL generated tsvector column and its GIN index). Their owners list them in
    ``metadata.info["raw_ddl_objects"]`` as (type, name) pairs, columns as "table.column".
    """
    if type_ == "column":
        name = f"{obj.table.name}.{name}"
    return (type_, name) not in metadata.info.get("raw_ddl_objects", ())
