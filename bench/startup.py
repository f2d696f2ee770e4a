"""Start-up benchmark: the CPU time of a whole `muse` process for commands that do almost nothing.

    .venv/bin/python bench/startup.py [--runs N]

Measures, as child processes (user + system CPU from ``getrusage(RUSAGE_CHILDREN)``, median of N
runs): ``python -c pass``, ``muse --help``, and ``muse chapters --json`` on a small database (a
synthetic 20-chapter book imported once beforehand). Prints each figure, its ratio to the bare
interpreter, and the target: under 0.35 s CPU for both commands (issue 12).

CPU seconds move with the machine and its load (the same commit measured 0.48 s and 0.72 s on two
days). ``--instructions`` also runs each command once under ``valgrind --tool=callgrind`` and
prints the instructions it executed: the same count on any day and any load, so two commits can
be compared and a figure can be converted to another machine's speed.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from synthetic_book import synthetic_web_novel  # noqa: E402

TARGET_S = 0.35
MUSE = [sys.executable, "-c", "from muse.cli.main import main; main()"]


def cpu_seconds(argv: list[str], env: dict[str, str], runs: int) -> float:
    """Median user+system CPU of ``runs`` executions of ``argv`` (each must succeed)."""
    samples = []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        samples.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(samples)


def instructions(argv: list[str], env: dict[str, str]) -> int | None:
    """Instructions executed by one run of ``argv`` under callgrind (None without valgrind)."""
    if shutil.which("valgrind") is None:
        return None
    out = Path(env["MUSE_BENCH_DIR"]) / "callgrind.out"
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *argv],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=True,
    )
    found = re.search(r"Collected : (\d+)", done.stderr)
    return int(found.group(1)) if found else None


def small_database(env: dict[str, str]) -> None:
    book = Path(env["MUSE_BENCH_DIR"]) / "small.txt"
    book.write_text(synthetic_web_novel(chapters=20), encoding="utf-8")
    subprocess.run(
        [*MUSE, "import", str(book), "--title", "小书"],
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument(
        "--instructions", action="store_true", help="also count instructions under callgrind"
    )
    args = parser.parse_args()
    workdir = tempfile.mkdtemp()
    env = {
        **os.environ,
        "MUSE_DATABASE_URL": f"sqlite:///{workdir}/startup.db",
        "MUSE_BENCH_DIR": workdir,
        "COLUMNS": "100",
    }
    small_database(env)

    def counted(argv: list[str]) -> str:
        if not args.instructions:
            return ""
        count = instructions(argv, env)
        return f"{count / 1e6:>10,.0f} M instr" if count else "  (no valgrind)"

    bare = [sys.executable, "-c", "pass"]
    base = cpu_seconds(bare, env, args.runs)
    print(f"{'command':<24}{'CPU s':>8}{'× pass':>9}  target")
    print(f"{'python -c pass':<24}{base:>8.3f}{1:>9.1f}{'':<22}{counted(bare)}")
    for label, extra in (
        ("muse --help", ["--help"]),
        ("muse chapters --json", ["chapters", "--json"]),
    ):
        spent = cpu_seconds([*MUSE, *extra], env, args.runs)
        verdict = "ok" if spent < TARGET_S else "SLOW"
        print(
            f"{label:<24}{spent:>8.3f}{spent / base:>9.1f}  < {TARGET_S} s {verdict:<12}"
            f"{counted([*MUSE, *extra])}"
        )


if __name__ == "__main__":
    main()
