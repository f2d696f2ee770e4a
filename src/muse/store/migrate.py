"""Running Alembic migrations from code (``muse init``, tests, the demo).

The migration scripts live inside the package (``muse/store/migrations``) so an installed Muse can
migrate its own database without a checkout. Every domain's ``tables.py`` is imported by
:func:`load_all_tables` so that the metadata is complete before anything compares it.

Each domain owns an Alembic branch (``branch_labels = ("<domain>",)``) whose first revision
starts from the foundation revision ``0001``; a domain's later migrations extend its own branch.
Parallel work on two domains therefore never fights over one linear chain, and ``upgrade``
always migrates to every head.
"""

from __future__ import annotations

import importlib
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine

from muse.store.metadata import metadata

# Domain table modules, in dependency order. A new domain adds its module here.
TABLE_MODULES = (
    "muse.store.tables",
    "muse.works.tables",
    "muse.agents.tables",
    "muse.knowledge.tables",
    "muse.planning.tables",
    "muse.patterns.tables",
    "muse.context.tables",
    "muse.context.index_tables",
    "muse.flow.tables",
    "muse.evaluation.tables",
)

_MIGRATIONS = Path(__file__).with_name("migrations")


def load_all_tables():
    for name in TABLE_MODULES:
        importlib.import_module(name)
    return metadata


def alembic_config(engine: Engine) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(_MIGRATIONS))
    cfg.attributes["engine"] = engine
    return cfg


def upgrade(engine: Engine, revision: str = "heads") -> None:
    """Migrate to every head: each domain owns a branch that starts from the foundation."""
    command.upgrade(alembic_config(engine), revision)


def head_revisions(engine: Engine) -> set[str]:
    return set(ScriptDirectory.from_config(alembic_config(engine)).get_heads())


def current_revisions(engine: Engine) -> set[str]:
    with engine.connect() as conn:
        return set(MigrationContext.configure(conn).get_current_heads())


def is_up_to_date(engine: Engine) -> bool:
    return current_revisions(engine) == head_revisions(engine)


def include_object(obj, name, type_, reflected, compare_to) -> bool:  # noqa: ANN001
    """Leave out of schema comparison the objects migrations create with raw DDL.

    Some objects cannot be declared portably in SQLAlchemy (SQLite FTS5 virtual tables, a
    PostgreSQL generated tsvector column and its GIN index). Their owners list them in
    ``metadata.info["raw_ddl_objects"]`` as (type, name) pairs, columns as "table.column".
    """
    if type_ == "column":
        name = f"{obj.table.name}.{name}"
    return (type_, name) not in metadata.info.get("raw_ddl_objects", ())
