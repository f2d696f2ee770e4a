"""Start-up benchmark: the CPU time of a whole `muse` process for commands that do almost nothing.

    .venv/bin/python bench/startup.py [--runs N]

Measures, as child processes (user + system CPU from ``getrusage(RUSAGE_CHILDREN)``, median of N
runs): ``python -c pass``, ``muse --help``, and ``muse chapters --json`` on a small database (a
synthetic 20-chapter book imported once beforehand). Prints each figure, its ratio to the bare
interpreter, and the target: under 0.35 s CPU for both commands (issue 12).
"""

from __future__ import annotations

import argparse
import os
import resource
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
    args = parser.parse_args()
    workdir = tempfile.mkdtemp()
    env = {
        **os.environ,
        "MUSE_DATABASE_URL": f"sqlite:///{workdir}/startup.db",
        "MUSE_BENCH_DIR": workdir,
        "COLUMNS": "100",
    }
    small_database(env)
    base = cpu_seconds([sys.executable, "-c", "pass"], env, args.runs)
    print(f"{'command':<24}{'CPU s':>8}{'× pass':>9}  target")
    print(f"{'python -c pass':<24}{base:>8.3f}{1:>9.1f}")
    for label, extra in (
        ("muse --help", ["--help"]),
        ("muse chapters --json", ["chapters", "--json"]),
    ):
        spent = cpu_seconds([*MUSE, *extra], env, args.runs)
        verdict = "ok" if spent < TARGET_S else "SLOW"
        print(f"{label:<24}{spent:>8.3f}{spent / base:>9.1f}  < {TARGET_S} s {verdict}")


if __name__ == "__main__":
    main()
