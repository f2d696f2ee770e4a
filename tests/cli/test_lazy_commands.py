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


def test_a_read_only_command_loads_no_configuration_model_and_no_offline_provider(
    tmp_path, db_url, muse
):
    muse("works", "--json")
    env = {**os.environ, "MUSE_DATABASE_URL": db_url}
    code = (
        "import sys, json\n"
        "from muse.cli.main import app\n"
        "try:\n"
        "    app(['works', '--json'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "sys.stderr.write(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    modules = set(json.loads(done.stderr.strip().splitlines()[-1]))
    assert "muse.core.secret_sources" in modules  # keys are still registered first
    assert not modules & {
        "muse.agents.config",
        "muse.agents.providers.offline",
        "muse.offline",
        "muse.flow.sweeping",  # nothing to sweep: only the probe ran
        "rich.markdown",
        "typer.rich_utils",
    }


def test_only_the_loaders_that_call_models_reach_the_dispatcher():
    """The offline generators are installed for ``CALLS_MODELS`` only, so no other loader may
    import the model dispatcher (each loader is loaded in a fresh interpreter)."""
    for name in main.LOADERS:
        code = (
            "import sys, typer\n"
            "from muse.cli import main\n"
            f"main.LOADERS[{name!r}](typer.Typer())\n"
            "print('muse.agents.dispatching' in sys.modules)\n"
        )
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
        )
        reaches = done.stdout.strip().splitlines()[-1] == "True"
        assert not reaches or name in main.CALLS_MODELS, name


def test_help_is_the_same_with_the_real_markdown_and_traceback_modules():
    """``muse --help`` and a subcommand's help import Typer's help module with stand-ins for
    rich.markdown and rich.traceback; with the real modules loaded first they read the same."""
    outputs = []
    for preload in ("", "import rich.markdown, rich.traceback\n"):
        for args in (["--help"], ["chapter", "show", "--help"], ["chapter"]):
            code = (
                f"{preload}import sys\n"
                "from muse.cli.main import app\n"
                "try:\n"
                f"    app({args!r}, prog_name='muse')\n"
                "except SystemExit:\n"
                "    pass\n"
            )
            done = subprocess.run(
                [sys.executable, "-c", code],
                capture_output=True,
                text=True,
                env={**os.environ, "COLUMNS": "100"},
                timeout=120,
            )
            outputs.append(done.stdout)
    assert outputs[:3] == outputs[3:]
    assert "选项" in outputs[0] and "作品与正文" in outputs[0] and "[必填]" in outputs[1]
