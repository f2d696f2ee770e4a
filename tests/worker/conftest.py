"""A small book with confirmed cards and a fine outline whose events are plain state sentences,
plus a job kind that records every execution (for the exactly-once tests)."""

from __future__ import annotations

import fcntl
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Connection

from muse.knowledge.cards import insert_card
from muse.knowledge.contracts import CardSpec, CardStatus
from muse.planning.fine_outlines import confirm_section, save_fine_outline
from muse.store.jobs import enqueue
from muse.worker.handlers import register_handler, unregister_handler
from muse.works.canonical import add_chapter
from muse.works.catalog import create_work
from tests.cli.conftest import muse  # noqa: F401  (the CLI runner fixture)

CHAPTERS = 3
NEXT = CHAPTERS + 1
RECORD_KIND = "test.record"

# Sentences the offline extractor recognises (offline/extractor.py).
EVENT_ARRIVE = "林远来到青云山门"
EVENT_GAIN = "林远得到了一枚玉佩"
RESULT = "林远突破到炼气三层"
EVENT_NEWCOMER = "一个名叫石敢的少年拦住去路"  # a new card (石敢)
EVENT_IDENTITY = "林远是青云宗内门弟子"  # contradicts the confirmed 身份 (外门弟子): a conflict


def chapter_text(n: int) -> str:
    return (
        f"林远在第{n}章里行走山间，溪水潺潺流淌。" + "山风吹过松林，落叶纷纷。" * 60 + "\n"
        "“走吧。”苏晴说道。\n" + "他们继续赶路，天色渐晚。" * 20
    )


def fine_outline(chapter: int) -> dict:
    return {
        "target_chapter": chapter,
        "title": f"第{chapter}章",
        "hard_constraints": {
            "hard_events": [
                {"id": "H1", "text": EVENT_ARRIVE},
                {"id": "H2", "text": EVENT_GAIN},
                {"id": "H3", "text": EVENT_NEWCOMER},
                {"id": "H4", "text": EVENT_IDENTITY},
            ],
            "result_direction": {"id": "R1", "text": RESULT},
            "foreshadowing": [
                {"id": "F1", "action": "推", "thread": "玉佩", "text": "玉佩微微发热"}
            ],
            "chapter_end_hook": {"id": "K1", "text": "山门后传来一声钟响"},
            "required_entities": [{"id": "E1", "name": "林远"}, {"id": "E2", "name": "苏晴"}],
        },
    }


def character(name: str, identity: str, aliases: tuple[str, ...] = ()) -> CardSpec:
    return CardSpec.model_validate(
        {
            "type": "character",
            "name": name,
            "aliases": [{"name": a} for a in aliases],
            "fields": {
                "summary": {"value": f"{name}，本书人物"},
                "identity": {"value": identity},
                "personality": {"value": "沉稳"},
            },
        }
    )


def make_book(conn: Connection) -> int:
    work_id = create_work(conn, "青云记", default_chapter_chars=2500)
    for n in range(1, CHAPTERS + 1):
        add_chapter(conn, work_id, n, f"第{n}章", chapter_text(n))
    confirm_section(conn, save_fine_outline(conn, work_id, fine_outline(NEXT)))
    insert_card(conn, work_id, character("林远", "青云宗外门弟子", ("小林",)), CardStatus.confirmed)
    insert_card(conn, work_id, character("苏晴", "药王谷传人"), CardStatus.confirmed)
    return work_id


@pytest.fixture
def book(engine) -> int:
    with engine.begin() as conn:
        return make_book(conn)


class FakeClock:
    """A clock the test moves by hand: backoff and leases without waiting."""

    def __init__(self) -> None:
        self.now = datetime(2030, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def append_line(path: Path, line: str) -> None:
    """Append one line atomically (O_APPEND + a lock), from any thread or process."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.write(fd, (line + "\n").encode())
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def record_handler(log: Path):
    """A handler that logs every execution (job id, worker id) before committing."""

    def handler(job, ctx):
        append_line(log, f"{job.payload['n']} {job.id} {ctx.worker_id}")

        def apply(conn):
            return {"n": job.payload["n"], "by": ctx.worker_id}

        return apply

    return handler


@pytest.fixture
def record_log(tmp_path: Path):
    log = tmp_path / "executions.log"
    register_handler(RECORD_KIND, record_handler(log))
    yield log
    unregister_handler(RECORD_KIND)


def enqueue_records(engine, count: int, **kwargs) -> list[str]:
    with engine.begin() as conn:
        return [enqueue(conn, RECORD_KIND, {"n": i}, **kwargs) for i in range(count)]


def executions(log: Path) -> list[str]:
    """Job ids in the order they were executed."""
    if not log.exists():
        return []
    return [line.split()[1] for line in log.read_text().splitlines() if line]
