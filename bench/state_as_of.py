"""Benchmark: stateAsOf over a large book.

    .venv/bin/python bench/state_as_of.py [--cards 5000] [--milestones 20] [--rounds 20]
        [--postgresql postgresql+psycopg://postgres@127.0.0.1:5432/test]

Builds a synthetic book (cards with aliases, fields, relations, milestones and source
references; texts that mention other cards), then measures

* the pure function: ``book_state_as_of`` over all cards as of random chapters (cards/s); the
  first freeze point also prepares every card (what does not depend on ``as_of``);
* the database path on SQLite (and PostgreSQL with ``--postgresql URL``; the book goes into a
  schema of its own, dropped afterwards): ``work_state_as_of`` as of random chapters.
  - cold, each in a fresh process (``python`` started anew, nothing cached in memory): first
    with no stored card book (the first read after a change: four queries over the card
    tables; the book is stored for the next process by a background thread once the state is
    built, outside the timing, and before the process exits), then from the stored card book
    (every later process until the cards change: one query). Each child runs a few freeze
    points, each from scratch in its own process; the figure is their median.
  - warm: later reads in one process find the book in the card cache, after one query for the
    work's change token.

A whole work's state as of a chapter should take well under a second. Times are CPU seconds
of this process (``time.process_time``), so that other load on the machine does not count
(the database server's own time on PostgreSQL is not in them; the wall time is printed too).
Cyclic garbage collection is part of the figures: it is what a long process pays.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from urllib.parse import quote

from sqlalchemy import Engine, delete, text

from muse.core.canonical import sha256_hex
from muse.knowledge.card_state import BookTerms, book_state_as_of, work_state_as_of
from muse.knowledge.cards import insert_card
from muse.knowledge.contracts import Card, CardSpec, CardStatus, SourceRef
from muse.knowledge.speed import cache as card_cache
from muse.knowledge.tables import card_book_cache
from muse.store.engine import make_engine
from muse.store.migrate import upgrade
from muse.works.catalog import create_work

CYCLES = ["成长", "高光", "成长", "退场"]


def ref(chapter: int, rng: random.Random) -> SourceRef:
    quote = f"第{chapter}章原文{rng.randrange(1000)}"
    start = rng.randrange(3000)
    return SourceRef(
        chapter=chapter,
        start=start,
        end=start + len(quote),
        sha256=sha256_hex(quote),
        revision=1,
        quote=quote,
        stale=rng.random() < 0.02,
    )


def make_spec(
    i: int, n_cards: int, n_milestones: int, chapters: int, rng: random.Random
) -> CardSpec:
    debut = rng.randint(1, chapters)
    later = sorted(rng.randint(debut, chapters) for _ in range(n_milestones - 1))
    other = f"角色{rng.randrange(n_cards)}号"
    milestones = [{"chapter": debut, "cycle": "登场", "step": "登场", "refs": [ref(debut, rng)]}]
    milestones += [
        {
            "chapter": ch,
            "cycle": rng.choice(CYCLES),
            "step": f"台阶{k}",
            "description": f"与{other}交手" if k % 5 == 0 else f"第{ch}章的变化",
            "refs": [ref(ch, rng)],
        }
        for k, ch in enumerate(later)
    ]
    return CardSpec.model_validate(
        {
            "type": "character",
            "name": f"角色{i}号",
            "aliases": [
                {"name": f"别号{i}"},
                {"name": f"称号{i}", "since_chapter": rng.randint(debut, chapters)},
            ],
            "fields": {
                "summary": {"value": f"第{i}号角色"},
                "identity": {"value": "修士"},
                "personality": {"value": "沉稳"},
                "goal": {"value": f"寻找{other}", "since_chapter": rng.randint(1, chapters)},
                "abilities": {
                    "value": ["剑法", "遁术"],
                    "refs": [ref(rng.randint(1, chapters), rng)],
                },
            },
            "relations": [
                {"kind": "宿敌", "target": other, "since_chapter": rng.randint(debut, chapters)}
            ],
            "milestones": milestones,
            "growth_arc": [{"chapter": chapters, "cycle": "结局", "step": "飞升"}],
            "end_state": "飞升上界",
        }
    )


def as_cards(specs: list[CardSpec]) -> list[Card]:
    return [
        Card(
            **s.model_dump(),
            id=f"card_{i:020x}",
            work_id=1,
            status="confirmed",
            revision=1,
            types_version="card-types-v1",
            spec_sha256="0" * 64,
        )
        for i, s in enumerate(specs)
    ]


def timed(fn) -> tuple[float, object]:
    """Seconds of this process's CPU time (steadier than wall time on a shared machine)."""
    start = time.process_time()
    result = fn()
    return time.process_time() - start, result


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def bench_pure(cards: list[Card], chapters: int, rounds: int, rng: random.Random) -> None:
    seconds, book = timed(lambda: BookTerms.of(cards))
    print(f"  BookTerms.of (names and aliases, and every card's debut): {seconds:.2f} s")
    times = []
    for n in range(rounds):
        as_of = rng.randint(1, chapters)
        seconds, states = timed(lambda a=as_of: book_state_as_of(cards, a, book=book))
        if n:
            times.append(seconds)
        visible = sum(s.exists for s in states)
        first = " (first: prepares every card)" if not n else ""
        print(
            f"  as of {as_of:>5}: {seconds * 1000:7.1f} ms, {len(cards) / seconds:9,.0f} cards/s,"
            f" {visible} cards exist{first}"
        )
    median = statistics.median(times)
    print(
        f"pure book_state_as_of: median {median * 1000:.1f} ms = {len(cards) / median:,.0f} cards/s,"
        f" p95 {p95(times) * 1000:.1f} ms (prepared cards)"
    )


def bench_db(
    specs: list[CardSpec], chapters: int, rounds: int, rng: random.Random, pg_url: str | None
) -> None:
    folder = Path(tempfile.mkdtemp())
    try:
        path = folder / "bench.db"
        engine = make_engine(f"sqlite:///{path}")
        _bench_db("SQLite", engine, f"sqlite:///{path}", specs, chapters, rounds, rng)
    finally:
        shutil.rmtree(folder)
    if pg_url:
        schema = f"bench_{uuid.uuid4().hex[:12]}"
        admin = make_engine(pg_url)
        with admin.begin() as conn:
            conn.execute(text(f'CREATE SCHEMA "{schema}"'))
        try:
            sep = "&" if "?" in pg_url else "?"
            url = f"{pg_url}{sep}options={quote(f'-csearch_path={schema}')}"
            _bench_db("PostgreSQL", make_engine(url), url, specs, chapters, rounds, rng)
        finally:
            with admin.begin() as conn:
                conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
            admin.dispose()


COLD_RUNS = 7


def cold_child(url: str, work: int, as_of: int, drop_stored: bool) -> None:
    """One cold read in this (fresh) process; prints its times as JSON."""
    engine = make_engine(url)
    if drop_stored:
        with engine.begin() as conn:
            conn.execute(delete(card_book_cache))
    with engine.connect() as conn:
        conn.execute(text("SELECT 1")).all()  # connect outside the timing
        wall = time.perf_counter()
        cpu, state = timed(lambda: work_state_as_of(conn, work, as_of))
        wall = time.perf_counter() - wall
    engine.dispose()
    print(json.dumps({"cpu": cpu, "wall": wall, "visible": len(state.visible()), "as_of": as_of}))


def cold(url: str, work: int, chapters: int, rng: random.Random, drop_stored: bool) -> list[dict]:
    out = []
    for _ in range(COLD_RUNS):
        args = [sys.executable, __file__, "--cold-child", url, str(work)]
        args += [str(rng.randint(1, chapters))] + (["--drop-stored"] if drop_stored else [])
        done = subprocess.run(args, check=True, capture_output=True, text=True)
        out.append(json.loads(done.stdout.strip().splitlines()[-1]))
    return out


def print_cold(name: str, label: str, runs: list[dict]) -> None:
    cpu = statistics.median(r["cpu"] for r in runs)
    wall = statistics.median(r["wall"] for r in runs)
    each = ", ".join(f"{r['cpu'] * 1000:.0f} as of {r['as_of']}" for r in runs)
    print(
        f"{name} work_state_as_of COLD ({label}, fresh process each, {len(runs)} runs): "
        f"median {cpu * 1000:.0f} ms CPU, {wall * 1000:.0f} ms wall (each, ms CPU: {each})"
    )


def _bench_db(
    name: str,
    engine: Engine,
    url: str,
    specs: list[CardSpec],
    chapters: int,
    rounds: int,
    rng: random.Random,
) -> None:
    upgrade(engine)
    with engine.begin() as conn:
        work = create_work(conn, "基准")
        seconds, _ = timed(
            lambda: [insert_card(conn, work, s, CardStatus.confirmed) for s in specs]
        )
    print(f"{name}: stored {len(specs)} cards in {seconds:.1f} s CPU")
    if engine.dialect.name == "postgresql":
        # what autovacuum does within a minute of such a load: without statistics the planner
        # takes the new tables for empty and sorts a hundred thousand rows on disk
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.execute(text("ANALYZE"))
    print_cold(name, "no stored card book: card tables", cold(url, work, chapters, rng, True))
    cold(url, work, chapters, rng, False)  # make sure the book is stored
    print_cold(name, "stored card book", cold(url, work, chapters, rng, False))
    card_cache.clear()
    totals, walls = [], []
    with engine.connect() as conn:
        for n in range(rounds):
            as_of = rng.randint(1, chapters)
            wall = time.perf_counter()
            total, state = timed(lambda a=as_of: work_state_as_of(conn, work, a))
            wall = time.perf_counter() - wall
            if n:
                totals.append(total)
                walls.append(wall)
            print(
                f"  as of {as_of:>5}: work_state_as_of {total * 1000:7.1f} ms CPU"
                f" ({wall * 1000:.1f} ms wall), {len(state.visible())} cards exist"
                + (" (first in this process: load and prepare)" if not n else "")
            )
    engine.dispose()
    print(
        f"{name} work_state_as_of, {len(specs)} cards, from the card cache: median "
        f"{statistics.median(totals) * 1000:.0f} ms, p95 {p95(totals) * 1000:.0f} ms CPU "
        f"(wall median {statistics.median(walls) * 1000:.0f} ms) = "
        f"{len(specs) / statistics.median(totals):,.0f} cards/s"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cards", type=int, default=5000)
    parser.add_argument("--milestones", type=int, default=20)
    parser.add_argument("--chapters", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--no-db", action="store_true", help="only the pure function")
    parser.add_argument("--postgresql", metavar="URL", help="also measure on this PostgreSQL")
    parser.add_argument("--cold-child", nargs=3, metavar=("URL", "WORK", "AS_OF"), help="internal")
    parser.add_argument("--drop-stored", action="store_true", help="internal")
    args = parser.parse_args()
    if args.cold_child:
        url, work, as_of = args.cold_child
        cold_child(url, int(work), int(as_of), args.drop_stored)
        return
    rng = random.Random(20261129)
    specs = [
        make_spec(i, args.cards, args.milestones, args.chapters, rng) for i in range(args.cards)
    ]
    print(f"{args.cards} cards × {args.milestones} milestones, {args.chapters} chapters")
    bench_pure(as_cards(specs), args.chapters, args.rounds, rng)
    if not args.no_db:
        bench_db(specs, args.chapters, args.rounds, rng, args.postgresql)


if __name__ == "__main__":
    main()
