"""The one SQLAlchemy MetaData every domain's ``tables.py`` registers on.

A naming convention makes constraint names identical on SQLite and PostgreSQL, so Alembic
migrations and the migration test compare the same names on both backends.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, DateTime, MetaData, TypeDecorator

from muse.core.clock import as_utc

metadata = MetaData(
    naming_convention={
        "ix": "ix_%(table_name)s_%(column_0_N_name)s",
        "uq": "uq_%(table_name)s_%(column_0_N_name)s",
        "ck": "ck_%(table_name)s_%(constraint_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    }
)


class _JsonDoc(TypeDecorator[Any]):
    """JSON documents: JSONB on PostgreSQL, JSON text on SQLite.

    Never hash what comes back out: JSONB reorders keys (ARCHITECTURE.md principle 5); hashes are
    computed before storing. The PostgreSQL type is chosen per dialect rather than through
    ``with_variant(JSONB())`` so that a SQLite process never imports the PostgreSQL dialect
    (about 130 M instructions of start-up, issue 12).
    """

    impl = JSON
    cache_ok = True

    def load_dialect_impl(self, dialect: Any) -> Any:
        if dialect.name == "postgresql":
            from sqlalchemy.dialects.postgresql import JSONB

            return dialect.type_descriptor(JSONB())
        return dialect.type_descriptor(JSON())


JsonDoc = _JsonDoc()


class UtcDateTime(TypeDecorator[datetime]):
    """A timezone-aware UTC timestamp on both backends (SQLite stores naive values)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: object) -> datetime | None:
        value = as_utc(value)
        if value is not None and getattr(dialect, "name", "") == "sqlite":
            return value.replace(tzinfo=None)
        return value

    def process_result_value(self, value: datetime | None, dialect: object) -> datetime | None:
        return as_utc(value)
