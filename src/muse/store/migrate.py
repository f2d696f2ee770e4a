"""Running Alembic migrations from code (``muse init``, tests, the demo).

The migration scripts live inside the package (``muse/store/migrations``) so an installed Muse can
migrate its own database without a checkout. Every domain's ``tables.py`` is imported by
:func:`load_all_tables` so that the metadata is complete before anything compares it.

Each domain owns an Alembic branch (``branch_labels = ("<domain>",)``) whose first revision
starts from the foundation revision ``0001``; a domain's later migrations extend its own branch.
Parallel work on two domains therefore never fights over one linear chain, and ``upgrade``
always migrates to every head.

Alembic costs ~0.3 s CPU to import, so it is imported only to migrate: the check every command
makes (:func:`is_up_to_date`) reads the heads from the scripts (:mod:`muse.store.heads`) and the
current revisions from ``alembic_version`` directly (a test compares both with Alembic's own
answers).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from sqlalchemy import Engine, MetaData, inspect, text

from muse.store.heads import MIGRATIONS, script_heads
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


def load_all_tables() -> MetaData:
    for name in TABLE_MODULES:
        importlib.import_module(name)
    return metadata


def alembic_config(engine: Engine) -> Config:
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.attributes["engine"] = engine
    return cfg


def upgrade(engine: Engine, revision: str = "heads") -> None:
    """Migrate to every head: each domain owns a branch that starts from the foundation."""
    from alembic import command

    command.upgrade(alembic_config(engine), revision)


def head_revisions(engine: Engine | None = None) -> set[str]:
    """The revisions ``alembic_version`` holds once every head is applied (:mod:`.heads`)."""
    return set(script_heads())


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
