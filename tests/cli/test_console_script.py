"""The installed ``muse`` command: Chinese errors for the author, a non-zero exit, no traceback."""

import os
import subprocess
import sys
from pathlib import Path


def _muse(*args: str, cwd: Path, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", "from muse.cli.main import main; main()", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_error_is_a_chinese_message_with_a_hint(tmp_path, db_url):
    env = {**os.environ, "MUSE_DATABASE_URL": db_url}
    result = _muse("chapters", cwd=tmp_path, env=env)
    assert result.returncode == 1
    assert "错误：还没有作品。" in result.stderr
    assert "提示：" in result.stderr and "Traceback" not in result.stderr


def test_default_database_is_a_sqlite_file_in_the_workspace(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "MUSE_DATABASE_URL"}
    result = _muse("works", "--json", cwd=tmp_path, env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
    assert (tmp_path / "muse.db").exists()


_GC_PROBE = """
import gc, sys
from muse.cli import main as cli
seen = {}
real = cli._end_startup
def probe():
    seen.setdefault("paused", not gc.isenabled())
    real()
    seen.setdefault("running", gc.isenabled())
cli._end_startup = probe
sys.argv = ["muse", *sys.argv[1:]]
try:
    cli.main()
except SystemExit:
    pass
print(seen.get("paused"), seen.get("running"), gc.isenabled(), gc.get_freeze_count() > 0)
"""


def test_start_up_runs_with_the_collector_paused_and_the_command_with_it_running(tmp_path):
    """main() pauses the collector while the command loads, then freezes what start-up built and
    turns it back on before the command runs; --help (no command) leaves it on too."""
    env = {k: v for k, v in os.environ.items() if k != "MUSE_DATABASE_URL"}
    for args, expected in ((["works", "--json"], "True True True True"), (["--help"], None)):
        done = subprocess.run(
            [sys.executable, "-c", _GC_PROBE, *args],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        last = done.stdout.strip().splitlines()[-1]
        if expected is not None:
            assert last == expected
        else:  # help never reaches the command's callback: main()'s finally ends start-up
            assert last.split()[2:] == ["True", "True"]
