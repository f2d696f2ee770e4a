"""``muse`` imports a command's module only when the command runs (muse.cli.lazy), and the table
of top-level commands it lists says exactly what the real commands say."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import typer
from typer.testing import CliRunner

from muse.cli import main
from muse.cli.help_panels import MuseGroup, assign_panels


def _eager_app() -> typer.Typer:
    """The same commands registered the old way: every loader run up front."""
    eager = typer.Typer(
        name="muse",
        help=main.app.info.help,
        no_args_is_help=True,
        add_completion=False,
        cls=MuseGroup,
    )
    for loader in main.LOADERS.values():
        loader(eager)
    assign_panels(eager)
    return eager


def test_help_lists_what_the_real_commands_say():
    runner = CliRunner()
    env = {"COLUMNS": "120"}
    lazy = runner.invoke(main.app, ["--help"], env=env, prog_name="muse")
    eager = runner.invoke(_eager_app(), ["--help"], env=env, prog_name="muse")
    assert lazy.exit_code == eager.exit_code == 0
    assert lazy.stdout == eager.stdout


def test_every_table_entry_has_a_command_and_every_command_an_entry():
    group = typer.main.get_group(_eager_app())
    assert list(main.COMMANDS) == list(group.commands)


def _imported_after(args: list[str], env: dict[str, str]) -> tuple[int, set[str]]:
    code = (
        "import sys, json\n"
        "from muse.cli.main import app\n"
        "try:\n"
        f"    app({args!r})\n"
        "except SystemExit as e:\n"
        "    code = e.code\n"
        "sys.stderr.write(json.dumps([code, sorted(m.split('.')[0] for m in sys.modules)]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    code_, modules = json.loads(done.stderr.strip().splitlines()[-1])
    return code_, set(modules)


def test_help_imports_no_domain_library(tmp_path):
    code, modules = _imported_after(["--help"], {**os.environ})
    assert code == 0
    assert not modules & {"sqlalchemy", "pydantic", "openai", "rjieba", "alembic", "yaml"}


def test_listing_chapters_loads_no_sdk_no_jieba_no_alembic(tmp_path, db_url, muse):
    muse("works", "--json")  # migrates the database first (an up-to-date one needs no alembic)
    env = {**os.environ, "MUSE_DATABASE_URL": db_url}
    code, modules = _imported_after(["works", "--json"], env)
    assert code == 0
    assert not modules & {"openai", "rjieba", "alembic", "httpx"}
