"""Shared fixtures: a fresh, migrated database per test on the backend under test.

``MUSE_TEST_BACKEND`` is ``sqlite`` (default) or ``postgresql``; the PostgreSQL run needs
``MUSE_TEST_DATABASE_URL``. Both backends migrate once per test process (per xdist worker) into a
template and give every test a copy of it, so each test starts from the real migrations, not from
``create_all``, without paying for them again:

* SQLite copies the migrated template file.
* PostgreSQL clones a migrated template *database* (``CREATE DATABASE … TEMPLATE``), which copies
  everything the migrations made exactly as they left it — tables, seed rows, sequences at their
  start, trigger functions and triggers — and drops the clone (``WITH (FORCE)``) afterwards. The
  template lives on the server of ``MUSE_TEST_DATABASE_URL`` under a unique name and is dropped at
  the end of the session; nothing ever connects to it after its migration, which is what
  ``CREATE DATABASE … TEMPLATE`` requires.
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, make_url, text

from muse import offline
from muse.store.engine import make_engine, normalize_url
from muse.store.migrate import upgrade

BACKEND = os.environ.get("MUSE_TEST_BACKEND", "sqlite")

# Real model requests are disallowed in tests; only local stub servers and the offline provider.
os.environ["MUSE_ALLOW_MODEL_REQUESTS"] = "0"

# The test suite is a composition root: it installs the offline provider's generators.
offline.install()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "sqlite_only: a test about SQLite itself")
    if BACKEND == "postgresql" and not os.environ.get("MUSE_TEST_DATABASE_URL"):
        raise pytest.UsageError("MUSE_TEST_BACKEND=postgresql needs MUSE_TEST_DATABASE_URL")


def pytest_report_header(config: pytest.Config) -> str:
    return f"muse backend: {BACKEND}"


@pytest.fixture(scope="session")
def _sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("template") / "template.db"
    engine = make_engine(f"sqlite:///{path}")
    upgrade(engine)
    engine.dispose()  # closing the last connection checkpoints the WAL into the file
    assert not path.with_name("template.db-wal").exists()
    return path


def _pg_url(database: str) -> str:
    base = make_url(normalize_url(os.environ["MUSE_TEST_DATABASE_URL"]))
    return base.set(database=database).render_as_string(hide_password=False)


@pytest.fixture(scope="session")
def _pg_admin() -> Iterator[Engine]:
    """Autocommit connection to the server of the test database (CREATE/DROP DATABASE)."""
    admin = make_engine(os.environ["MUSE_TEST_DATABASE_URL"], isolation_level="AUTOCOMMIT")
    yield admin
    admin.dispose()


def _drop_database(admin: Engine, name: str) -> None:
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture(scope="session")
def _pg_template(_pg_admin: Engine) -> Iterator[str]:
    name = f"muse_tpl_{uuid.uuid4().hex[:16]}"
    with _pg_admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        migrate_engine = make_engine(_pg_url(name))
        upgrade(migrate_engine)
        migrate_engine.dispose()  # no connection may stay open on a template
        yield name
    finally:
        _drop_database(_pg_admin, name)


@pytest.fixture
def db_url(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[str]:
    """URL of a fresh migrated database; usable from subprocesses too."""
    if BACKEND == "sqlite":
        template = request.getfixturevalue("_sqlite_template")
        path = tmp_path / "muse.db"
        shutil.copyfile(template, path)
        yield f"sqlite:///{path}"
        return
    admin: Engine = request.getfixturevalue("_pg_admin")
    template: str = request.getfixturevalue("_pg_template")
    name = f"muse_t_{uuid.uuid4().hex[:16]}"
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}" TEMPLATE "{template}"'))
    try:
        yield _pg_url(name)
    finally:
        _drop_database(admin, name)


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    eng = make_engine(db_url)
    yield eng
    eng.dispose()
