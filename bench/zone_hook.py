"""Evaluation-zone listener benchmark: what ``flow.zones``'s ``before_execute`` hook costs a SELECT.

    .venv/bin/python bench/zone_hook.py [--n N]

The hook sees every statement any engine executes. For three statement shapes, each built anew
per call as production code builds them, it prints the hook's own time per call (µs) with its
per-cache-key decision cache and without it (the cache emptied before each call: the old cost,
a walk over every element of every SELECT), and the time of a whole execute on SQLite in memory
with the hook as it is. CPU time (``time.process_time``), best of 5 rounds of N calls.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

from sqlalchemy import Select, create_engine, func, select

import muse.flow.zones as zone
from muse.flow.tables import candidates, runs
from muse.store.migrate import load_all_tables
from muse.works.tables import chapters, volumes, works


def shapes() -> dict[str, Callable[[], Select[Any]]]:
    return {
        "chapters (no zone table)": lambda: select(chapters.c.number, chapters.c.title).where(
            chapters.c.work_id == 1, chapters.c.number <= 2000
        ),
        "4-table join (no zone table)": lambda: (
            select(chapters.c.number, volumes.c.title, works.c.title, func.count())
            .join(volumes, volumes.c.id == chapters.c.volume_id, isouter=True)
            .join(works, works.c.id == chapters.c.work_id)
            .where(chapters.c.work_id == 1, chapters.c.number.between(1, 2000))
            .group_by(chapters.c.number, volumes.c.title, works.c.title)
            .order_by(chapters.c.number)
        ),
        "runs alone (WHERE added)": lambda: select(runs.c.id, runs.c.state).where(
            runs.c.work_id == 1, runs.c.target_chapter == 2001
        ),
        "candidates ⋈ runs (rewritten)": lambda: (
            select(candidates.c.id, runs.c.state)
            .join(runs, runs.c.id == candidates.c.run_id)
            .where(candidates.c.work_id == 1, candidates.c.state == "PASSED")
        ),
    }


def per_call_us(build: Callable[[], Select[Any]], n: int, *, cached: bool) -> float:
    best = float("inf")
    for _ in range(5):
        statements = [build() for _ in range(n)]
        started = time.process_time()
        for statement in statements:
            if not cached:
                zone._by_key.clear()
            zone._production_only(statement)
        best = min(best, time.process_time() - started)
    return best / n * 1e6


def execute_us(engine: Any, build: Callable[[], Select[Any]], n: int) -> float:
    best = float("inf")
    with engine.connect() as conn:
        for _ in range(5):
            started = time.process_time()
            for _ in range(n):
                conn.execute(build()).all()
            best = min(best, time.process_time() - started)
    return best / n * 1e6


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=300)
    args = parser.parse_args()
    engine = create_engine("sqlite://")
    load_all_tables().create_all(engine)
    print(f"{'statement':<34}{'hook, cached':>14}{'hook, uncached':>16}{'whole execute':>15}")
    for label, build in shapes().items():
        cached = per_call_us(build, args.n, cached=True)
        uncached = per_call_us(build, args.n, cached=False)
        whole = execute_us(engine, build, args.n)
        print(f"{label:<34}{cached:>11.1f} µs{uncached:>13.1f} µs{whole:>12.1f} µs")


if __name__ == "__main__":
    main()
