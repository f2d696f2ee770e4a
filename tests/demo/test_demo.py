"""``make demo``: every command it suggests works when pasted; the same inputs give the same text."""

import subprocess

from sqlalchemy import select

from muse.demo.__main__ import main
from muse.store.engine import make_engine
from muse.works.tables import chapters, prose_blocks


def _run_demo(folder, capsys) -> str:
    assert main(folder) == 0
    return capsys.readouterr().out


def _chapter_5(folder) -> str:
    engine = make_engine(f"sqlite:///{folder}/muse.db")
    with engine.connect() as conn:
        text = conn.execute(
            select(prose_blocks.c.text)
            .join(chapters, chapters.c.id == prose_blocks.c.chapter_id)
            .where(chapters.c.number == 5)
        ).scalar_one()
    engine.dispose()
    return text


def test_demo_commands_work_when_pasted_and_wording_is_consistent(tmp_path, capsys):
    out = _run_demo(tmp_path / "a", capsys)

    assert "第 5 回" not in out and "第 5 章" in out
    assert "--provider" not in out and "--model" not in out  # it ran no CLI with flags
    commands = [
        line.strip() for line in out.splitlines() if line.strip().startswith("MUSE_DATABASE_URL=")
    ]
    assert len(commands) >= 6
    for command in commands:
        done = subprocess.run(command, shell=True, capture_output=True, text=True, cwd=tmp_path)
        assert done.returncode == 0, f"{command}\n{done.stderr}"
        assert "Traceback" not in done.stderr


def test_offline_demo_is_deterministic_for_the_same_inputs(tmp_path, capsys):
    _run_demo(tmp_path / "a", capsys)
    _run_demo(tmp_path / "b", capsys)
    assert _chapter_5(tmp_path / "a") == _chapter_5(tmp_path / "b")
