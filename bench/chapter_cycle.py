"""Chapter-cycle benchmark: one full `muse write` with the offline provider on a 2,000-chapter book.

    .venv/bin/python bench/chapter_cycle.py

Prints each node's wall time, the model-call latency inside it (from the receipts), and the time
spent outside model calls. Target: under 300 ms outside model calls in all.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from sqlalchemy import select  # noqa: E402
from synthetic_book import synthetic_web_novel  # noqa: E402

from context import outline  # noqa: E402  (the same fine outline as bench/context.py)
from muse.agents.tables import model_calls  # noqa: E402
from muse.context import search_index  # noqa: E402
from muse.flow.production import write_chapter  # noqa: E402
from muse.flow.tables import run_events  # noqa: E402
from muse.planning.fine_outlines import confirm_section, save_fine_outline  # noqa: E402
from muse.store.engine import make_engine  # noqa: E402
from muse.store.migrate import upgrade  # noqa: E402
from muse.works.importer import import_book  # noqa: E402


def main() -> None:
    engine = make_engine(f"sqlite:///{tempfile.mkdtemp()}/cycle.db")
    upgrade(engine)
    report = import_book(engine, synthetic_web_novel().encode(), title="synthetic")
    work_id = report.work_id
    with engine.begin() as conn:
        search_index.rebuild_index(conn, work_id)
        confirm_section(conn, save_fine_outline(conn, work_id, outline(2001)))
    started = time.perf_counter()
    summary = write_chapter(engine, work_id, 2001, provider="offline", model="offline-1")
    total_ms = (time.perf_counter() - started) * 1000
    with engine.connect() as conn:
        events = conn.execute(
            select(run_events.c.node, run_events.c.duration_ms)
            .where(run_events.c.run_id == summary.run_id)
            .order_by(run_events.c.id)
        ).all()
        calls = conn.execute(
            select(model_calls.c.role, model_calls.c.latency_ms).where(
                model_calls.c.run_id == summary.run_id
            )
        ).all()
    model_ms = sum(c.latency_ms or 0 for c in calls)
    print(
        f"run {summary.run_id}: {summary.state}, {report.han_count} Han in {len(report.chapters)} chapters"
    )
    for node, ms in events:
        print(f"  {node:<20} {ms:>6} ms")
    for role, ms in calls:
        print(f"  model call {role:<9} {ms or 0:>6} ms")
    outside = total_ms - model_ms
    verdict = "ok" if outside < 300 else "SLOW"
    print(
        f"total {total_ms:.0f} ms, model calls {model_ms} ms, outside model calls {outside:.0f} ms "
        f"({verdict}, target < 300 ms)"
    )


if __name__ == "__main__":
    main()
