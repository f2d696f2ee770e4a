"""Search index benchmark: build time and query latency on the shared novels and a 2,000-chapter book.

    .venv/bin/python bench/context_index.py [--database-url URL] [--queries 200]

SQLite always (a fresh temporary file); PostgreSQL too when ``--database-url`` is given (in a
scratch schema, dropped afterwards). Per book: the import is not timed; a few confirmed character
cards with aliases give the tokenizer a real user dictionary; then a full ``rebuild_index`` is
timed, and ``--queries`` searches are timed one by one: half card names with their aliases
(``search``), half free text cut from the book's own sentences (``search_text``), each with a
random freeze point, ``limit=10``. Prints p50/p95/max wall-clock latency, p95 per kind, and the
p95 of the process CPU time per query (SQLite runs in-process; for PostgreSQL it covers the client
only). On PostgreSQL, ``search_chunks`` is analyzed after the build (the plans change with
statistics) and the scans chosen for a common and a rarer word are printed. Target: p95 under
20 ms on SQLite.
The shared corpus is read from ../shared/corpus when it is there (benchmarks may; tests never do).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from urllib.parse import quote

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from sqlalchemy import Engine, text  # noqa: E402
from synthetic_book import synthetic_web_novel  # noqa: E402

from muse.context.search import index as search_index  # noqa: E402
from muse.context.search.backend import (  # noqa: E402
    _COUNT,
    _RANKED,
    RANK_WINDOW,
    _no_sequential_scan,
    chapter_id_range,
    tsquery,
)
from muse.knowledge.cards import insert_card  # noqa: E402
from muse.knowledge.contracts import CardSpec, CardStatus  # noqa: E402
from muse.store.engine import make_engine  # noqa: E402
from muse.store.migrate import upgrade  # noqa: E402
from muse.store.urls import normalize_url  # noqa: E402
from muse.works.catalog import iter_chapter_texts, latest_chapter_number  # noqa: E402
from muse.works.importer import import_book  # noqa: E402

CORPUS = HERE.parent.parent / "shared" / "corpus"
P95_TARGET_MS = 20.0
CARDS = {
    "xiyouji": {
        "孙悟空": ["悟空", "行者", "孙行者", "美猴王", "齐天大圣", "大圣"],
        "猪八戒": ["八戒", "悟能", "呆子"],
        "沙僧": ["沙和尚", "悟净"],
        "唐僧": ["三藏", "唐三藏", "玄奘", "长老"],
        "观音菩萨": ["观音", "菩萨"],
    },
    "sanguoyanyi": {
        "刘备": ["玄德", "刘玄德", "刘皇叔"],
        "关羽": ["云长", "关公", "关云长"],
        "张飞": ["翼德", "张翼德"],
        "曹操": ["孟德", "曹孟德", "曹丞相"],
        "诸葛亮": ["孔明", "卧龙", "诸葛孔明"],
        "赵云": ["子龙", "赵子龙"],
    },
    "synthetic-2000": {
        "林远": ["林师兄", "远哥"],
        "苏晴": ["晴儿"],
        "顾长风": ["长风"],
        "沈月": ["月儿"],
        "韩立": ["韩师弟"],
    },
}


def books() -> list[tuple[str, bytes]]:
    found = [(p.stem, p.read_bytes()) for p in sorted(CORPUS.glob("*.txt"))]
    if not found:
        print(f"(shared corpus not found at {CORPUS}; synthetic book only)")
    found.append(("synthetic-2000", synthetic_web_novel().encode("utf-8")))
    return found


def character(name: str, aliases: list[str]) -> CardSpec:
    return CardSpec.model_validate(
        {
            "type": "character",
            "name": name,
            "aliases": [{"name": a} for a in aliases],
            "fields": {
                "summary": {"value": name},
                "identity": {"value": "人物"},
                "personality": {"value": "未记"},
            },
        }
    )


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def queries(engine: Engine, work_id: int, name: str, count: int) -> list[tuple[str, object, int]]:
    """(kind, terms or text, max_chapter), reproducible per book."""
    rng = random.Random(f"{name}:{count}")
    cards = [[n, *aliases] for n, aliases in CARDS.get(name, {}).items()]
    with engine.connect() as conn:
        last = latest_chapter_number(conn, work_id) or 1
        texts = [c.text for c in iter_chapter_texts(conn, work_id)]
    out: list[tuple[str, object, int]] = []
    for i in range(count):
        max_chapter = rng.randint(1, last)
        if cards and i % 2 == 0:
            out.append(("names", cards[i // 2 % len(cards)], max_chapter))
            continue
        body = rng.choice(texts)
        start = rng.randrange(max(1, len(body) - 12))
        out.append(("text", body[start : start + rng.randint(6, 12)], max_chapter))
    return out


def run_queries(engine: Engine, work_id: int, planned) -> dict[str, list[float]]:
    """Wall-clock milliseconds per query kind, and the process CPU time of each ("cpu"): on a
    shared machine the CPU time shows what the query costs when it does not wait for a core."""
    latencies: dict[str, list[float]] = {"names": [], "text": [], "cpu": []}
    with engine.connect().execution_options(sqlite_begin="DEFERRED") as conn:
        for kind, query, max_chapter in planned:
            started, cpu = time.perf_counter(), time.process_time()
            if kind == "names":
                search_index.search(conn, work_id, query, max_chapter=max_chapter, limit=10)
            else:
                search_index.search_text(conn, work_id, query, max_chapter=max_chapter, limit=10)
            latencies[kind].append((time.perf_counter() - started) * 1000)
            latencies["cpu"].append((time.process_time() - cpu) * 1000)
        conn.rollback()
    return latencies


def bench_book(engine: Engine, name: str, data: bytes, count: int) -> int:
    report = import_book(engine, data, title=name, source_kind="public_domain")
    work_id = report.work_id
    with engine.begin() as conn:
        for card_name, aliases in CARDS.get(name, {}).items():
            insert_card(conn, work_id, character(card_name, aliases), CardStatus.confirmed)
    started = time.perf_counter()
    with engine.begin() as conn:
        built = search_index.rebuild_index(conn, work_id)
    build_s = time.perf_counter() - started
    if engine.dialect.name == "postgresql":  # statistics, as autovacuum would soon gather them
        with engine.begin() as conn:
            conn.execute(text("ANALYZE search_chunks"))
    planned = queries(engine, work_id, name, count)
    run_queries(engine, work_id, planned[:10])  # warm the tokenizer and the page cache
    latencies = run_queries(engine, work_id, planned)
    every = latencies["names"] + latencies["text"]
    p95 = percentile(every, 0.95)
    verdict = ""
    if engine.dialect.name == "sqlite":
        verdict = ("ok" if p95 < P95_TARGET_MS else "SLOW") + f" (p95<{P95_TARGET_MS:g} ms)"
    print(
        f"{name:<16}{built.chapters:>6}{built.chunks:>8}{report.han_count:>10}{build_s:>9.2f}"
        f"{report.han_count / build_s:>10.0f}"
        f"{statistics.median(every):>8.2f}{p95:>8.2f}{max(every):>8.2f}"
        f"{percentile(latencies['names'], 0.95) if latencies['names'] else 0:>9.2f}"
        f"{percentile(latencies['text'], 0.95):>9.2f}{percentile(latencies['cpu'], 0.95):>9.2f}"
        f"  {verdict}"
    )
    return work_id


def show_plans(engine: Engine, work_id: int, words: list[str]) -> None:
    """PostgreSQL: the scans chosen to count and to rank a word, at the last chapter."""
    with engine.begin() as conn:
        low, high = chapter_id_range(work_id, 0, latest_chapter_number(conn, work_id) or 0)
        for word in words:
            params = {"query": tsquery([(word,)]), "low": low, "high": high}
            with _no_sequential_scan(conn):
                for kind, statement, extra in (
                    ("count", _COUNT["postgresql"], {}),
                    ("rank", _RANKED["postgresql"], {"window": RANK_WINDOW, "limit": 41}),
                ):
                    explain = text("EXPLAIN " + str(statement))
                    scans = [
                        r[0].strip().lstrip("-> ")
                        for r in conn.execute(explain, {**params, **extra})
                        if "Scan on" in r[0] or "Scan using" in r[0] or "Scan Backward" in r[0]
                    ]
                    print(
                        f"  plan {kind:<5} {word}: " + " / ".join(s.split("  (")[0] for s in scans)
                    )


def bench(engine: Engine, count: int) -> None:
    print(f"\ndatabase: {engine.dialect.name}; {count} queries per book (limit 10)")
    print(
        f"{'book':<16}{'ch':>6}{'chunks':>8}{'han':>10}{'build s':>9}{'han/s':>10}"
        f"{'p50 ms':>8}{'p95 ms':>8}{'max ms':>8}{'names95':>9}{'text95':>9}{'cpu95':>9}"
    )
    work_id = 0
    for name, data in books():
        work_id = bench_book(engine, name, data, count)
    if engine.dialect.name == "postgresql":
        show_plans(engine, work_id, ["林远", "藏经阁", "玉佩"])


def postgresql_engine(url: str) -> tuple[Engine, Engine, str]:
    """A migrated scratch schema on the given server; (engine, admin engine, schema)."""
    schema = f"bench_index_{uuid.uuid4().hex[:8]}"
    admin = make_engine(url)
    with admin.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    base = normalize_url(url)
    sep = "&" if "?" in base else "?"
    engine = make_engine(f"{base}{sep}options={quote(f'-csearch_path={schema}')}")
    upgrade(engine)
    return engine, admin, schema


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--database-url", default=None, help="PostgreSQL server to bench as well")
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    sqlite = make_engine(f"sqlite:///{tempfile.mkdtemp()}/bench.db")
    upgrade(sqlite)
    bench(sqlite, args.queries)
    if args.database_url:
        engine, admin, schema = postgresql_engine(args.database_url)
        try:
            bench(engine, args.queries)
        finally:
            engine.dispose()
            with admin.begin() as conn:
                conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))


if __name__ == "__main__":
    main()
