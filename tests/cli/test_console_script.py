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
