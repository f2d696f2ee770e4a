"""The worker tests' fixtures: the 青云记 book (``tests/support/qingyun.py``), a clock moved by
hand, and a job kind that records every execution (``records.py``, for the exactly-once tests)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from muse.worker.handlers import register_handler, unregister_handler
from tests.support.qingyun import make_book
from tests.worker.records import RECORD_KIND, record_handler


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


@pytest.fixture
def record_log(tmp_path: Path):
    log = tmp_path / "executions.log"
    register_handler(RECORD_KIND, record_handler(log))
    yield log
    unregister_handler(RECORD_KIND)
