"""Alembic environment: the engine comes from ``config.attributes`` (see muse.store.migrate)."""

from typing import Any

from alembic import context

from muse.store.migrate import include_object, load_all_tables

config = context.config
target_metadata = load_all_tables()


def _include_object(
    obj: Any, name: str | None, type_: str, reflected: bool, compare_to: Any
) -> bool:
    """Autogenerate for a subset of tables when ``only_tables`` is set (scripts/new_migration.py)."""
    if not include_object(obj, name, type_, reflected, compare_to):
        return False
    only = config.attributes.get("only_tables")
    if only is None:
        return True
    table = obj if type_ == "table" else getattr(obj, "table", None)
    return table is None or table.name in only


def run_migrations_online() -> None:
    engine = config.attributes["engine"]
    with engine.connect() as connection:
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=connection.dialect.name == "sqlite",
            compare_type=True,
            include_object=_include_object,
        )
        with context.begin_transaction():
            context.run_migrations()
        connection.commit()


run_migrations_online()
