"""Chapter-cycle benchmark: one full `muse write` with the offline provider on a 2,000-chapter book.

    .venv/bin/python bench/chapter_cycle.py [--instructions]

Prints each node's wall time, the model-call latency inside it (from the receipts), and the time
spent outside model calls, and the CPU time of the write in this process. Target: under 150 ms
outside model calls in all (issue 12; was 300 ms). Wall times lie on a loaded machine, so the
verdict is on CPU: the write's process CPU minus the CPU the offline provider spent in its
calls (measured on the calls' own threads). The process is warmed first as ``muse serve`` warms
itself before its first request (``muse.flow.warm_up(engine)``: the write's modules, the tagger's
part-of-speech model, the contracts, the schemas of the model calls, the prepared statements
compiled for the engine), and what that cost is
printed: the figure is what a chapter costs a resident process, the first one included. Like
``muse write`` (``cli.main.main``), the write runs with what was built before it frozen out of
full garbage collections (``gc.freeze``).

The same instructions take from 1x to 1.7x the CPU time on a shared machine from one minute to
the next, so one run decides nothing: the verdict is the median of the first write of
``--runs`` fresh processes (5 by default), each started, warmed and given its own copy of the
book's database as it was before any write (``--first-write``). The whole ``muse write``
process (start-up and the one-time costs included) is measured by running it on such a copy,
``--runs`` times: its median under 1 s CPU with the offline provider. ``--instructions``
also runs that process once more under ``valgrind --tool=callgrind`` and prints the instructions
it executed (the same on any day and load, so commits and machines can be compared; bench/startup.py
converts the same way).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import re
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import closing
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from sqlalchemy import select  # noqa: E402
from startup import instructions  # noqa: E402
from synthetic_book import synthetic_web_novel  # noqa: E402

import muse.cli  # noqa: E402, F401  (as the muse command: compiled at install, not at import)
from context import outline  # noqa: E402  (the same fine outline as bench/context.py)
from muse import offline  # noqa: E402
from muse.agents.providers.offline import OfflineProvider  # noqa: E402
from muse.agents.tables import model_calls  # noqa: E402
from muse.context.search import index as search_index  # noqa: E402
from muse.flow import warm_up  # noqa: E402
from muse.flow.production import write_chapter  # noqa: E402
from muse.flow.states import WORKING_NODES as WORKING  # noqa: E402
from muse.planning.fine_outlines import confirm_section, save_fine_outline  # noqa: E402
from muse.store.engine import make_engine  # noqa: E402
from muse.store.migrate import upgrade  # noqa: E402
from muse.works.importer import import_book  # noqa: E402

TARGET_MS = 150
WHOLE_TARGET_S = 1.0


_model_cpu: list[float] = []  # CPU seconds of each offline call, on the thread that ran it


def _timed_complete(complete):  # type: ignore[no-untyped-def]
    def timed(self, request):  # type: ignore[no-untyped-def]
        started = time.thread_time()
        try:
            return complete(self, request)
        finally:
            _model_cpu.append(time.thread_time() - started)

    return timed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--instructions", action="store_true", help="also count the write's instructions"
    )
    parser.add_argument(
        "--runs", type=int, default=5, help="fresh processes whose first write is measured"
    )
    parser.add_argument(
        "--counted-write", nargs=2, help=argparse.SUPPRESS
    )  # the child under callgrind
    parser.add_argument("--first-write", nargs=2, help=argparse.SUPPRESS)  # a measured child
    args = parser.parse_args()
    offline.install()  # a composition root: the offline provider's generators
    if args.counted_write:
        counted_write(args.counted_write[0], int(args.counted_write[1]))
        return
    OfflineProvider.complete = _timed_complete(OfflineProvider.complete)  # type: ignore[method-assign]
    if args.first_write:
        first_write(args.first_write[0], int(args.first_write[1]))
        return
    folder = Path(tempfile.mkdtemp())
    pristine = folder / "pristine.db"
    engine = make_engine(f"sqlite:///{pristine}")
    upgrade(engine)
    report = import_book(engine, synthetic_web_novel().encode(), title="synthetic")
    work_id = report.work_id
    with engine.begin() as conn:
        search_index.rebuild_index(conn, work_id)
        confirm_section(conn, save_fine_outline(conn, work_id, outline(2001)))
    engine.dispose()
    with closing(sqlite3.connect(pristine)) as db:  # the whole book in the file, none in the WAL
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    first_writes(pristine, work_id, args.runs)
    engine = make_engine(_copy(pristine, folder / "cycle.db"))
    warmed = warm_up(engine)  # as muse serve does before its first request
    gc.collect()
    gc.freeze()  # as cli.main.main does once the command is loaded
    finished: list = []  # the run's nodes as a live display sees them (not the 'running' ticks)
    started = time.perf_counter()
    cpu_started = time.process_time()
    summary = write_chapter(
        engine,
        work_id,
        2001,
        provider="offline",
        model="offline-1",
        observer=lambda e: finished.append(e) if e.status != "running" else None,
    )
    total_ms = (time.perf_counter() - started) * 1000
    cpu_ms = (time.process_time() - cpu_started) * 1000
    with engine.connect() as conn:
        calls = conn.execute(
            select(model_calls.c.role, model_calls.c.task, model_calls.c.latency_ms).where(
                model_calls.c.run_id == summary.run_id
            )
        ).all()
    model_ms = sum(c.latency_ms or 0 for c in calls)
    # Which node waits for which call: explore in retrieving, generate in writing, the
    # detector inside detecting.
    node_of = {"explore": "retrieving", "generate": "writing", "check": "detecting"}
    in_node: dict[str, int] = {}
    for c in calls:
        node = node_of.get(c.task, c.task)
        in_node[node] = in_node.get(node, 0) + (c.latency_ms or 0)
    print(
        f"run {summary.run_id}: {summary.state}, {report.han_count} Han in {len(report.chapters)} chapters"
    )
    print(
        f"warm-up before the write, as muse serve does at start: {warmed.contracts} contracts "
        f"built, {warmed.schemas} JSON schemas made, {warmed.statements} prepared statements "
        f"compiled, the tagger's part-of-speech model loaded, {warmed.cpu_ms:.0f} ms CPU"
    )
    print(f"  {'node':<20} {'elapsed':>8} {'model':>6} {'outside':>8}")
    for e in finished:
        model = in_node.get(e.node, 0) if e.node in WORKING else 0
        print(f"  {e.node:<20} {e.elapsed_ms:>6} ms {model:>4} ms {e.elapsed_ms - model:>5} ms")
    for c in calls:
        print(f"  model call {c.role}/{c.task:<10} {c.latency_ms or 0:>6} ms")
    outside = total_ms - model_ms
    model_cpu_ms = sum(_model_cpu) * 1000
    outside_cpu = cpu_ms - model_cpu_ms
    print(
        f"wall: total {total_ms:.0f} ms, model calls {model_ms} ms, outside model calls "
        f"{outside:.0f} ms"
    )
    print(
        f"CPU: the write {cpu_ms:.0f} ms, in model calls {model_cpu_ms:.0f} ms, outside model "
        f"calls {outside_cpu:.0f} ms (this process, after the book's import: information; the "
        "verdict is the median above)"
    )
    book_read(engine, work_id)
    second_write(engine, work_id)
    whole_process(pristine, folder, work_id, args.runs, args.instructions)


def _copy(pristine: Path, target: Path) -> str:
    """A fresh copy of the book's database as it was before any write; its URL."""
    for stale in (target, Path(f"{target}-wal"), Path(f"{target}-shm")):
        stale.unlink(missing_ok=True)
    shutil.copyfile(pristine, target)
    return f"sqlite:///{target}"


def first_writes(pristine: Path, work_id: int, runs: int) -> None:
    """The verdict: the median CPU outside model calls of the first write of ``runs`` fresh
    processes, each warmed as muse serve warms itself, each on its own copy of the book."""
    outside: list[float] = []
    for n in range(runs):
        url = _copy(pristine, pristine.with_name(f"first{n}.db"))
        done = subprocess.run(
            [sys.executable, __file__, "--first-write", url, str(work_id)],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            print(done.stderr.strip()[-800:])
            raise SystemExit(f"a measured write failed (exit {done.returncode})")
        figures = json.loads(done.stdout.strip().splitlines()[-1])
        if figures["state"] != "shadow_ready":
            raise SystemExit(f"a measured write ended {figures['state']}, not shadow_ready")
        outside.append(figures["cpu_ms"] - figures["model_cpu_ms"])
    _print_median(
        f"first write of {runs} fresh warmed processes, CPU outside model calls",
        outside,
        TARGET_MS,
        "ms",
        ".0f",
    )


def _print_median(label: str, values: list[float], target: float, unit: str, fmt: str) -> None:
    """``label: v1, v2, … unit; median m unit (ok|SLOW, target < t unit)``: the verdict."""
    median = statistics.median(values)
    verdict = "ok" if median < target else "SLOW"
    shown = ", ".join(format(v, fmt) for v in sorted(values))
    print(
        f"{label}: {shown} {unit}; median {format(median, fmt)} {unit} "
        f"({verdict}, target < {target} {unit})"
    )


def first_write(url: str, work_id: int) -> None:
    """The child of :func:`first_writes`: start, warm up, write chapter 2001 once; its CPU and
    the CPU of its model calls as one JSON line."""
    engine = make_engine(url)
    warm_up(engine)
    gc.collect()
    gc.freeze()
    started = time.process_time()
    summary = write_chapter(engine, work_id, 2001, provider="offline", model="offline-1")
    cpu_ms = (time.process_time() - started) * 1000
    print(
        json.dumps(
            {"state": summary.state, "cpu_ms": cpu_ms, "model_cpu_ms": sum(_model_cpu) * 1000}
        )
    )


def second_write(engine, work_id: int) -> None:  # type: ignore[no-untyped-def]
    """The same chapter written again in the same process, as ``muse serve`` writes: what a
    process pays once (jieba's part-of-speech model, SQL compilation, the first tagging) is
    paid. Printed for information; the verdict above is on the first write of a process.

    The names of the context are cached by the context's snapshot, and this write freezes the same
    context as the first: the cache is emptied so that the figure is what a resident process pays
    for a chapter whose context it has not seen."""
    from muse.quality import names

    names._CACHE.clear()
    _model_cpu.clear()
    cpu_started = time.process_time()
    again = write_chapter(engine, work_id, 2001, provider="offline", model="offline-1")
    cpu_ms = (time.process_time() - cpu_started) * 1000
    print(
        f"a second write in the same process ({again.state}): "
        f"{cpu_ms - sum(_model_cpu) * 1000:.0f} ms CPU outside model calls (information; not "
        "the verdict)"
    )


def book_read(engine, work_id: int) -> None:  # type: ignore[no-untyped-def]
    """Whether the write read the lexicon's book (only a candidate naming someone new or a rare
    term asks), and what a write whose candidate does pays for it once per process."""
    from muse.quality import entities

    read = work_id in entities._BOOKS
    entities._BOOKS.clear()
    with engine.connect() as conn:
        started = time.process_time()
        entities.book_chapters_as_of(conn, work_id, 2000)
        cost = (time.process_time() - started) * 1000
    print(
        f"the lexicon's book: {'read' if read else 'not read'} by this write; a candidate "
        f"that names someone new reads it once per process: +{cost:.0f} ms CPU"
    )


WRITE = [sys.executable, "-c", "from muse.cli.main import main; main()"] + [
    "write",
    "2001",
    "-p",
    "offline",
    "-m",
    "offline-1",
    "--json",
]


def whole_process(pristine: Path, folder: Path, work_id: int, runs: int, count: bool) -> None:
    """The same write as a whole ``muse write`` process, ``runs`` times, each on a fresh copy of
    the book: user + system CPU of the child, start-up included. Target: a median under 1 s."""
    cpus: list[float] = []
    for n in range(runs):
        env = {**os.environ, "MUSE_DATABASE_URL": _copy(pristine, folder / f"whole{n}.db")}
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        done = subprocess.run(WRITE, env=env, capture_output=True, text=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode not in (0, 3):
            print(done.stderr.strip()[-800:])
            raise SystemExit(f"muse write failed (exit {done.returncode})")
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    _print_median(f"whole `muse write` process, {runs} runs, CPU", cpus, WHOLE_TARGET_S, "s", ".2f")
    if count:  # each counted on a fresh copy too: the first write of chapter 2001
        env = {**os.environ, "MUSE_DATABASE_URL": _copy(pristine, folder / "counted.db")}
        counted = instructions(WRITE, {**env, "MUSE_BENCH_DIR": tempfile.mkdtemp()})
        print(
            "whole `muse write` process under callgrind: "
            + (f"{counted / 1e6:,.0f} M instructions" if counted else "no valgrind")
        )
        warmed = write_instructions(_copy(pristine, folder / "counted.db"), work_id)
        print(
            "the write in a warmed process (the verdict's, offline model calls included) under "
            "callgrind: " + (f"{warmed / 1e6:,.0f} M instructions" if warmed else "no valgrind")
        )


def write_instructions(url: str, work_id: int) -> int | None:
    """Instructions of one write in a process warmed as muse serve warms itself, counted by
    callgrind only around the write (``--counted-write``: the same on any day and load)."""
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        return None
    out = Path(tempfile.mkdtemp()) / "callgrind.out"
    done = subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            "--instr-atstart=no",
            f"--callgrind-out-file={out}",
            sys.executable,
            __file__,
            "--counted-write",
            url,
            str(work_id),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    found = re.search(r"Collected : (\d+)", done.stderr)
    return int(found.group(1)) if found else None


def counted_write(url: str, work_id: int) -> None:
    """The child of :func:`write_instructions`: a write of chapter 2001 on the bench's database,
    callgrind's counting switched on just before it and off just after."""
    engine = make_engine(url)
    warm_up(engine)
    gc.collect()
    gc.freeze()

    def count(on: bool) -> None:
        switch = ["callgrind_control", "-i", "on" if on else "off", str(os.getpid())]
        subprocess.run(switch, stdout=subprocess.DEVNULL, check=True)

    count(True)
    write_chapter(engine, work_id, 2001, provider="offline", model="offline-1")
    count(False)


if __name__ == "__main__":
    main()
