"""Shared fixtures: a fresh, migrated database per test on the backend under test.

``MUSE_TEST_BACKEND`` is ``sqlite`` (default) or ``postgresql``; the PostgreSQL run needs
``MUSE_TEST_DATABASE_URL`` and gives every test its own schema, dropped afterwards. The SQLite
run copies a migrated template file, so each test starts from the real migrations, not from
``create_all``.
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from sqlalchemy import Engine, text

from muse.store.engine import make_engine, normalize_url
from muse.store.migrate import upgrade

BACKEND = os.environ.get("MUSE_TEST_BACKEND", "sqlite")

# Real model requests are disallowed in tests; only local stub servers and the offline provider.
os.environ["MUSE_ALLOW_MODEL_REQUESTS"] = "0"


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


def _pg_url_with_schema(schema: str) -> str:
    base = normalize_url(os.environ["MUSE_TEST_DATABASE_URL"])
    sep = "&" if "?" in base else "?"
    return f"{base}{sep}options={quote(f'-csearch_path={schema}')}"


@pytest.fixture
def db_url(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[str]:
    """URL of a fresh migrated database; usable from subprocesses too."""
    if BACKEND == "sqlite":
        template = request.getfixturevalue("_sqlite_template")
        path = tmp_path / "muse.db"
        shutil.copyfile(template, path)
        yield f"sqlite:///{path}"
        return
    schema = f"t_{uuid.uuid4().hex[:16]}"
    admin = make_engine(os.environ["MUSE_TEST_DATABASE_URL"])
    with admin.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    url = _pg_url_with_schema(schema)
    migrate_engine = make_engine(url)
    upgrade(migrate_engine)
    migrate_engine.dispose()
    try:
        yield url
    finally:
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    eng = make_engine(db_url)
    yield eng
    eng.dispose()
