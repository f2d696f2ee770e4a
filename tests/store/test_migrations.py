"""Migrate an empty database and compare the result with the tables declared in code."""

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect

from muse.store.migrate import head_revisions, include_object, is_up_to_date, load_all_tables


def test_migrated_schema_matches_declared_tables(engine):
    metadata = load_all_tables()
    with engine.connect() as conn:
        ctx = MigrationContext.configure(
            conn, opts={"compare_type": True, "include_object": include_object}
        )
        diff = compare_metadata(ctx, metadata)
    assert diff == [], f"migrations and tables.py disagree: {diff}"


def test_database_is_at_head(engine):
    assert is_up_to_date(engine)
    assert head_revisions(engine)


def test_expected_core_tables_exist(engine):
    names = set(inspect(engine).get_table_names())
    assert {
        "works",
        "chapters",
        "prose_blocks",
        "volumes",
        "authorization_snapshots",
        "jobs",
    } <= names
