"""Prefix-cache benchmark: how much of one model call's prompt repeats an earlier call's.

    .venv/bin/python bench/prefix_cache.py [--chapters 60]

A provider's prefix cache (DeepSeek, Qwen, Kimi, OpenAI bill cached input at a fraction of the
price) only hits on a prefix identical to an earlier call's. On a synthetic book, with the
offline provider, this runs: chapter N+1 whose first draft misses hard event H1 (the mechanical
gate rejects it, attempt 2 rewrites it), a second round on that candidate ("改：…", spec 001
§2.3 item 7), and after accepting it chapter N+2. From the stored messages of every call it
prints the shared-prefix share (common leading characters of system + user messages over the
later call's length) for: the writer's attempt 1 vs 2, round 1 vs 2, writer vs detector of one
candidate, and consecutive chapters. Goal: >= 90 % within one chapter's attempts and rounds.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from sqlalchemy import select  # noqa: E402
from synthetic_book import synthetic_web_novel  # noqa: E402

from context import outline  # noqa: E402
from muse import offline  # noqa: E402
from muse.agents.providers.offline import register_offline_generator  # noqa: E402
from muse.agents.tables import model_calls  # noqa: E402
from muse.context.search.index import rebuild_index  # noqa: E402
from muse.flow.accept import accept_candidate  # noqa: E402
from muse.flow.production import write_chapter  # noqa: E402
from muse.flow.revise import revise_candidate  # noqa: E402
from muse.offline import writer as offline_writer  # noqa: E402
from muse.planning.fine_outlines import confirm_section, save_fine_outline  # noqa: E402
from muse.store.engine import make_engine  # noqa: E402
from muse.store.migrate import upgrade  # noqa: E402
from muse.works.importer import import_book  # noqa: E402

GOAL = 0.90


def _prompt(messages: list[dict]) -> str:
    return "".join(str(m.get("role")) + "\n" + str(m.get("content")) for m in messages)


def shared_share(earlier: list[dict], later: list[dict]) -> tuple[float, int, int]:
    a, b = _prompt(earlier), _prompt(later)
    shared = len(os.path.commonprefix([a, b]))
    return shared / max(len(b), 1), shared, len(b)


def _calls(engine, run_id: str, role: str, task: str) -> list[list[dict]]:
    with engine.connect() as conn:
        rows = conn.execute(
            select(model_calls.c.messages)
            .where(
                model_calls.c.run_id == run_id,
                model_calls.c.role == role,
                model_calls.c.task == task,
            )
            .order_by(model_calls.c.started_at, model_calls.c.id)
        ).all()
    return [r.messages for r in rows]


def _first_draft_misses_h1() -> None:
    calls = {"n": 0}

    def generate(task_input, output_model):
        draft = offline_writer.write_chapter(task_input)
        calls["n"] += 1
        if calls["n"] == 1:
            draft = {**draft, "claims": [c for c in draft["claims"] if c["constraintId"] != "H1"]}
        return draft

    register_offline_generator("writer", "generate", generate)


def main() -> None:
    offline.install()  # a composition root: the offline provider's generators
    parser = argparse.ArgumentParser()
    parser.add_argument("--chapters", type=int, default=60)
    args = parser.parse_args()
    engine = make_engine(f"sqlite:///{tempfile.mkdtemp()}/prefix.db")
    upgrade(engine)
    n = args.chapters
    work_id = import_book(engine, synthetic_web_novel(chapters=n).encode(), title="prefix").work_id
    with engine.begin() as conn:
        rebuild_index(conn, work_id)
        for chapter in (n + 1, n + 2):
            confirm_section(conn, save_fine_outline(conn, work_id, outline(chapter)))
    _first_draft_misses_h1()
    run = write_chapter(engine, work_id, n + 1, provider="offline", model="offline-1")
    revised = revise_candidate(
        engine,
        run.candidate_id,
        "改：争执再激烈一些，结尾留白。",
        provider="offline",
        model="offline-1",
    )
    assert revised.summary is not None and revised.summary.candidate_id is not None
    accept_candidate(engine, revised.summary.candidate_id)
    nxt = write_chapter(engine, work_id, n + 2, provider="offline", model="offline-1")

    attempts = _calls(engine, run.run_id, "writer", "generate")
    round_2 = _calls(engine, revised.new_run_id or "", "writer", "generate")
    detector = _calls(engine, run.run_id, "detector", "check")
    following = _calls(engine, nxt.run_id, "writer", "generate")
    print(
        f"chapter {n + 1}: {run.state} after {len(attempts)} writer attempts; "
        f"round 2: {revised.state}; chapter {n + 2}: {nxt.state}"
    )
    pairs = [
        ("writer attempt 1 vs 2", attempts[0], attempts[1], True),
        ("writer round 1 vs 2", attempts[-1], round_2[0], True),
        ("writer vs detector, same candidate", attempts[-1], detector[-1], False),
        ("consecutive chapters (writer)", round_2[-1], following[0], False),
    ]
    print(f"  {'pair':<38}{'shared':>9}{'of chars':>10}{'share':>8}  goal")
    for label, earlier, later, goal in pairs:
        share, shared, total = shared_share(earlier, later)
        verdict = ("ok" if share >= GOAL else "LOW") if goal else "(no goal)"
        print(f"  {label:<38}{shared:>9}{total:>10}{share:>7.1%}  {verdict}")
        if os.environ.get("PREFIX_DEBUG"):
            print("    differs at:", repr(_prompt(later)[max(shared - 200, 0) : shared + 200]))


if __name__ == "__main__":
    main()
