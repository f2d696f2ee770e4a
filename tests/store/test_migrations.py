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


def test_cheap_revision_reads_agree_with_alembic(engine):
    """is_up_to_date reads heads from the scripts and revisions from the table without Alembic:
    on a database Alembic migrated to every head, both are what Alembic itself recorded, and
    every script head is among them or one of their dependencies."""
    from alembic.script import ScriptDirectory

    from muse.store.migrate import alembic_config, current_revisions

    with engine.connect() as conn:
        recorded = set(MigrationContext.configure(conn).get_current_heads())
    assert current_revisions(engine) == recorded == head_revisions()
    script = ScriptDirectory.from_config(alembic_config(engine))
    applied = {r.revision for r in script.iterate_revisions(list(recorded), "base")}
    assert set(script.get_heads()) <= applied


def test_a_database_never_migrated_is_not_up_to_date(tmp_path):
    from muse.store.engine import make_engine
    from muse.store.migrate import current_revisions

    blank = make_engine(f"sqlite:///{tmp_path}/blank.db")
    assert current_revisions(blank) == set()
    assert not is_up_to_date(blank)
