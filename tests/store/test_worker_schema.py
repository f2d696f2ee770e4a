"""The PostgreSQL run lends one migrated schema to each test in turn (``tests/support/pg_schema.py``):
after a test it is emptied back to the migrations' state, or replaced when the test changed it."""

from __future__ import annotations

import os

import pytest
from sqlalchemy import text

from muse.store.engine import make_engine
from muse.works.catalog import create_work

pytestmark = pytest.mark.skipif(
    os.environ.get("MUSE_TEST_BACKEND", "sqlite") != "postgresql", reason="a PostgreSQL test run"
)


@pytest.fixture
def worker(_pg_worker_schema):
    if _pg_worker_schema is None:
        pytest.skip("the role may not empty a schema: every test gets a schema of its own")
    return _pg_worker_schema


def _comment(conn) -> str | None:
    return conn.execute(
        text(
            "SELECT col_description(attrelid, attnum) FROM pg_attribute"
            " WHERE attrelid = 'works'::regclass AND attname = 'title'"
        )
    ).scalar_one()


def test_rows_go_and_sequences_restart_but_the_schema_stays(worker):
    name, engine = worker.name, make_engine(worker.url)
    try:
        with engine.begin() as conn:
            first = [create_work(conn, f"书{i}") for i in range(3)]
            versions = conn.execute(text("SELECT count(*) FROM alembic_version")).scalar_one()
        worker.reset()
        assert worker.name == name  # emptied, not replaced
        with engine.begin() as conn:
            assert conn.execute(text("SELECT count(*) FROM works")).scalar_one() == 0
            assert conn.execute(text("SELECT count(*) FROM alembic_version")).scalar_one() == (
                versions
            )
            assert create_work(conn, "又一本") == first[0]  # the sequence starts again
    finally:
        engine.dispose()
        worker.reset()


def test_a_changed_schema_is_replaced_by_a_freshly_migrated_one(worker):
    name, engine = worker.name, make_engine(worker.url)
    try:
        with engine.begin() as conn:
            migrated = _comment(conn)
            conn.execute(text("COMMENT ON COLUMN works.title IS 'changed by a test'"))
            assert _comment(conn) == "changed by a test" != migrated
    finally:
        engine.dispose()
    worker.reset()
    assert worker.name != name
    engine = make_engine(worker.url)
    try:
        with engine.connect() as conn:
            assert _comment(conn) == migrated
            gone = conn.execute(
                text("SELECT count(*) FROM pg_namespace WHERE nspname = :n"), {"n": name}
            ).scalar_one()
        assert gone == 0
    finally:
        engine.dispose()
