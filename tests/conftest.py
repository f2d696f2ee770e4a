"""Shared fixtures: a fresh, migrated database per test on the backend under test.

``MUSE_TEST_BACKEND`` is ``sqlite`` (default) or ``postgresql``; the PostgreSQL run needs
``MUSE_TEST_DATABASE_URL``. Both backends run the real migrations once per test process (per
xdist worker) into a template and give every test a copy of it, so each test starts from the
migrations, not from ``create_all``, without paying for them again:

* SQLite copies the migrated template file.
* PostgreSQL migrates one schema per test process (replayed from ``pg_dump`` of a schema
  migrated once) and lends it to each test in turn: after the test the rows are deleted and the
  sequences restarted, a few milliseconds against half a second for a new schema. A test of
  physical storage (marked ``fresh_schema``) gets a schema of its own. A test that changed the
  schema itself (a downgrade, a comment) is caught by a catalog fingerprint and the schema is
  replaced by a new one (``tests/support/pg_schema.py``). A role that is not a superuser cannot
  switch the triggers off, so each test then gets a schema of its own, created from the dump
  (without ``pg_dump``, migrated). (Cloning a template *database* per test was tried: ``DROP
  DATABASE`` forces a checkpoint, which costs more than the migration on a busy server.)
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, settings
from sqlalchemy import Engine, text

from muse import offline
from muse.store.engine import make_engine
from muse.store.migrate import upgrade
from muse.store.urls import normalize_url
from tests.support.fakes import Scripts
from tests.support.pg_schema import WorkerSchema, can_empty
from tests.support.stub_server import STUB_SECRET, StubServer, configure_stub, isolate_config

BACKEND = os.environ.get("MUSE_TEST_BACKEND", "sqlite")

# Real model requests are disallowed in tests; only local stub servers and the offline provider.
os.environ["MUSE_ALLOW_MODEL_REQUESTS"] = "0"

# Property tests check behaviour, not speed: on a busy 2-core CI machine Hypothesis's per-example
# deadline and its "generation too slow" health check fail for reasons unrelated to the property.
settings.register_profile("muse", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("muse")

# The test suite is a composition root: it installs the offline provider's generators.
offline.install()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "sqlite_only: a test about SQLite itself")
    config.addinivalue_line(
        "markers",
        "fresh_schema: a PostgreSQL test of physical storage: a new schema, not the emptied one",
    )
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


def _libpq_url() -> str:
    return os.environ["MUSE_TEST_DATABASE_URL"].replace("postgresql+psycopg://", "postgresql://")


@pytest.fixture(scope="session")
def _pg_admin() -> Iterator[Engine]:
    admin = make_engine(os.environ["MUSE_TEST_DATABASE_URL"])
    yield admin
    admin.dispose()


@pytest.fixture(scope="session")
def _pg_template_sql(_pg_admin: Engine) -> tuple[str, str] | None:
    """(DDL of a migrated schema, that schema's name), or None without ``pg_dump``.

    The template schema is migrated once, dumped (schema and the ``alembic_version`` row) and
    dropped; a test's schema is that dump with the name replaced (a unique random token).
    """
    pg_dump = shutil.which("pg_dump")
    if pg_dump is None:
        return None
    name = f"muse_tpl_{uuid.uuid4().hex[:16]}"
    with _pg_admin.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{name}"'))
    try:
        migrate_engine = make_engine(_pg_url_with_schema(name))
        upgrade(migrate_engine)
        migrate_engine.dispose()
        common = [pg_dump, f"--dbname={_libpq_url()}", "--no-owner", "--no-privileges", "-n", name]
        ddl = subprocess.run(
            [*common, "--schema-only"], capture_output=True, text=True, check=True
        ).stdout
        rows = subprocess.run(
            [*common, "--data-only", "--inserts", "-t", f'"{name}".alembic_version'],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    finally:
        with _pg_admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA IF EXISTS "{name}" CASCADE'))
    sql = "\n".join(line for line in (ddl + rows).splitlines() if not line.startswith("\\"))
    return sql, name


def _create_schema(admin: Engine, schema: str, template: tuple[str, str] | None) -> None:
    if template is None:
        with admin.begin() as conn:
            conn.execute(text(f'CREATE SCHEMA "{schema}"'))
        migrate_engine = make_engine(_pg_url_with_schema(schema))
        upgrade(migrate_engine)
        migrate_engine.dispose()
        return
    sql, name = template
    raw = admin.raw_connection()
    try:
        raw.cursor().execute(sql.replace(name, schema))
        raw.commit()
    finally:
        raw.close()


@pytest.fixture(scope="session")
def _pg_worker_schema(
    _pg_admin: Engine, _pg_template_sql: tuple[str, str] | None
) -> Iterator[WorkerSchema | None]:
    """This process's migrated schema, emptied after every test (``tests/support/pg_schema.py``),
    or None when the role may not empty it (every test then gets a schema of its own)."""
    if not can_empty(_pg_admin):
        yield None
        return
    worker = WorkerSchema(
        _pg_admin,
        lambda name: _create_schema(_pg_admin, name, _pg_template_sql),
        _pg_url_with_schema,
    )
    yield worker
    worker.close()


@pytest.fixture
def db_url(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[str]:
    """URL of a fresh migrated database; usable from subprocesses too."""
    if BACKEND == "sqlite":
        template = request.getfixturevalue("_sqlite_template")
        path = tmp_path / "muse.db"
        shutil.copyfile(template, path)
        yield f"sqlite:///{path}"
        return
    worker: WorkerSchema | None = request.getfixturevalue("_pg_worker_schema")
    if worker is not None and request.node.get_closest_marker("fresh_schema") is None:
        try:
            yield worker.url
        finally:
            worker.reset()
        return
    admin: Engine = request.getfixturevalue("_pg_admin")
    schema = f"t_{uuid.uuid4().hex[:16]}"
    _create_schema(admin, schema, request.getfixturevalue("_pg_template_sql"))
    try:
        yield _pg_url_with_schema(schema)
    finally:
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    eng = make_engine(db_url)
    yield eng
    eng.dispose()


@pytest.fixture(autouse=True)
def _short_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    """A call without its own retry policy keeps the number and order of its retries, but waits
    10–50 ms between them instead of 1, 2, 4 s: a test waits for the stub, not for a clock (a
    stub judge answering 500 cost seven seconds per call). The backoff law itself is tested in
    ``tests/agents/test_structured.py``; tests that pass a policy keep theirs."""
    from muse.agents import RetryPolicy

    short = partial(RetryPolicy, base_delay_s=0.01, max_delay_s=0.05)
    monkeypatch.setattr("muse.agents.dispatching.RetryPolicy", short)


@pytest.fixture
def scripted() -> Iterator[Scripts]:
    """``scripted(role, task)``: the fake model's answer for one (role, task), from a script
    (``tests/support/fakes.py``); every script is removed when the test ends."""
    scripts = Scripts()
    yield scripts
    scripts.close()


@pytest.fixture
def muse(db_url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Any]:
    """The real ``muse`` app against the test database: ``muse(*args, ok=True)`` runs a command
    (``ok``: it must exit 0) and ``muse.json(*args)`` parses its ``--json`` output."""
    from typer.testing import CliRunner

    from muse.cli.common import get_engine
    from muse.cli.main import app

    monkeypatch.setenv("MUSE_DATABASE_URL", db_url)
    monkeypatch.chdir(tmp_path)
    get_engine.cache_clear()
    runner = CliRunner()

    def run(*args: str, ok: bool = True) -> Any:
        result = runner.invoke(app, list(args), catch_exceptions=False)
        if ok:
            assert result.exit_code == 0, result.output
        return result

    run.json = lambda *args: json.loads(run(*args, "--json").stdout)  # type: ignore[attr-defined]
    yield run
    get_engine().dispose()
    get_engine.cache_clear()


@pytest.fixture
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty Muse configuration and no preset key in the environment (autouse in
    ``tests/agents``; a module elsewhere that talks to the stub asks for it)."""
    return isolate_config(tmp_path, monkeypatch)


@pytest.fixture
def stub() -> Iterator[StubServer]:
    """A local stub of the OpenAI chat API (``tests/support/stub_server.py``)."""
    server = StubServer().start()
    yield server
    server.stop()


@pytest.fixture
def stub_config(stub: StubServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Two providers on the stub: ``stub`` (strict json_schema) and ``stub-json`` (JSON mode)."""
    return configure_stub(stub, tmp_path, monkeypatch, STUB_SECRET)
