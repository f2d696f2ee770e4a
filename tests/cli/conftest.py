"""Run the real ``muse`` app against the test database."""

import json

import pytest
from typer.testing import CliRunner

from muse.cli.common import get_engine
from muse.cli.main import app


@pytest.fixture
def muse(db_url, monkeypatch, tmp_path):
    monkeypatch.setenv("MUSE_DATABASE_URL", db_url)
    monkeypatch.chdir(tmp_path)
    get_engine.cache_clear()
    runner = CliRunner()

    def run(*args: str, ok: bool = True):
        result = runner.invoke(app, list(args), catch_exceptions=False)
        if ok:
            assert result.exit_code == 0, result.output
        return result

    run.json = lambda *args: json.loads(run(*args, "--json").stdout)  # type: ignore[attr-defined]
    yield run
    get_engine().dispose()
    get_engine.cache_clear()
