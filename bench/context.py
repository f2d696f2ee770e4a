"""Context benchmark: index build, query latency, and WriterContext build time as the book grows.

    .venv/bin/python bench/context.py [--database-url URL] [--queries 200]

On SQLite (a fresh temporary file) and, with ``--database-url``, on PostgreSQL (a scratch schema,
dropped afterwards), prints:

1. per book (the two shared novels when ../shared/corpus is there, and a synthetic 2,000-chapter
   web novel): index build seconds and query p50/p95 (``bench/context_index.py``; on PostgreSQL
   also the query plans of a common and a rare word);
2. on the synthetic book: query p50/p95 over names without a user dictionary and a fixed hard
   event, and the time and size of a frozen WriterContext at chapter 100 and at chapter 2,000
   (median of 5 builds, not stored).

Targets: query p95 under 20 ms on SQLite; context build time and context tokens at chapter 2,000
within 1.5× of chapter 100.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from sqlalchemy import text

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from context_index import bench as bench_books  # noqa: E402
from context_index import percentile, postgresql_engine  # noqa: E402
from synthetic_book import synthetic_web_novel  # noqa: E402

from muse.context.search import index as search_index  # noqa: E402
from muse.context.writer_context import freeze_context  # noqa: E402
from muse.planning.fine_outlines import confirm_section, load_confirmed, save_fine_outline  # noqa: E402
from muse.store.engine import make_engine  # noqa: E402
from muse.store.migrate import upgrade  # noqa: E402
from muse.works.authorization import take_snapshot  # noqa: E402
from muse.works.importer import import_book  # noqa: E402

NAMES = ["林远", "苏晴", "陈默", "叶青", "萧寒"]


def outline(chapter: int) -> dict:
    return {
        "target_chapter": chapter,
        "title": f"第{chapter}章",
        "hard_constraints": {
            "hard_events": [
                {"id": "H1", "text": "林远与苏晴在山门前争执，最终决定连夜下山"},
                {"id": "H2", "text": "陈默带来宗门大比提前的消息"},
            ],
            "result_direction": {"id": "R1", "text": "林远独自踏上前往北境的路"},
            "foreshadowing": [
                {"id": "F1", "action": "推", "thread": "玉佩", "text": "玉佩再次发热", "cards": []}
            ],
            "chapter_end_hook": {"id": "K1", "text": "山道尽头出现一个黑衣人"},
            "required_entities": [{"id": f"E{i}", "name": n} for i, n in enumerate(NAMES[:3], 1)],
        },
    }


def timed(fn, repeat: int = 5) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times), result


def build_context(engine, work_id: int, chapter: int):
    with engine.begin() as conn:
        section_id, fine = load_confirmed(conn, work_id, chapter)
        return freeze_context(
            conn,
            work_id=work_id,
            outline=fine,
            outline_section_id=section_id,
            run_id="run_0000000000000000benc",
            attempt=1,
            as_of=chapter - 1,
            authorization=take_snapshot(conn, work_id, "production"),
            store=False,
        ).context


def bench_context(engine) -> None:
    print(f"\ncontext on the synthetic book ({engine.dialect.name})")
    report = import_book(
        engine, synthetic_web_novel().encode(), title="synthetic", source_kind="own"
    )
    work_id = report.work_id
    started = time.perf_counter()
    with engine.begin() as conn:
        search_index.rebuild_index(conn, work_id)
        for chapter in (100, 2000):
            confirm_section(conn, save_fine_outline(conn, work_id, outline(chapter)))
    print(
        f"index build: {len(report.chapters)} chapters, {report.han_count} Han in "
        f"{time.perf_counter() - started:.2f} s"
    )
    analyze(engine)

    rng = random.Random(7)
    latencies = []
    with engine.connect() as conn:
        for i in range(200):
            max_chapter = rng.randint(50, 2000)
            started = time.perf_counter()
            if i % 2:
                search_index.search(conn, work_id, [rng.choice(NAMES)], max_chapter=max_chapter)
            else:
                search_index.search_text(
                    conn, work_id, "山门前争执连夜下山", max_chapter=max_chapter
                )
            latencies.append((time.perf_counter() - started) * 1000)
    print(
        f"query: p50 {percentile(latencies, 0.5):.1f} ms, p95 {percentile(latencies, 0.95):.1f} ms"
        " over 200 queries (names without a dictionary, one hard event)"
    )

    rows = {}
    for chapter in (100, 2000):
        seconds, ctx = timed(lambda c=chapter: build_context(engine, work_id, c))
        tokens = sum(s.tokens for s in ctx.manifest.sources)
        rows[chapter] = (seconds, tokens)
        print(
            f"context at chapter {chapter:>4}: {seconds * 1000:7.1f} ms, {tokens:>6} tokens, "
            f"{len(ctx.manifest.sources)} sources, {len(ctx.omitted_sources)} omitted"
        )
    time_ratio = rows[2000][0] / rows[100][0]
    token_ratio = rows[2000][1] / rows[100][1]
    verdict = "ok" if time_ratio <= 1.5 and token_ratio <= 1.5 else "NOT FLAT"
    print(
        f"growth 100 → 2000: time ×{time_ratio:.2f}, tokens ×{token_ratio:.2f} ({verdict}, target ≤ 1.5)"
    )


def analyze(engine) -> None:
    """PostgreSQL: statistics as autovacuum would soon gather them (they change the plans)."""
    if engine.dialect.name == "postgresql":
        with engine.begin() as conn:
            conn.execute(text("ANALYZE"))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--database-url", default=None, help="PostgreSQL server to bench as well")
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    engine = make_engine(f"sqlite:///{tempfile.mkdtemp()}/bench.db")
    upgrade(engine)
    bench_books(engine, args.queries)
    bench_context(engine)
    if args.database_url:
        engine, admin, schema = postgresql_engine(args.database_url)
        try:
            bench_books(engine, args.queries)
            bench_context(engine)
        finally:
            engine.dispose()
            with admin.begin() as conn:
                conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))


if __name__ == "__main__":
    main()
