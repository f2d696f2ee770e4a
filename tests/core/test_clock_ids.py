"""UTC clock helpers and prefixed ids."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone

import pytest

from muse.core.clock import as_utc, iso, utc_now
from muse.core.ids import is_id, new_id

BEIJING = timezone(timedelta(hours=8))
NEW_YORK_WINTER = timezone(timedelta(hours=-5))


@dataclass(frozen=True)
class UtcCase:
    name: str
    value: datetime | None
    expected: datetime | None
    expected_iso: str | None


UTC_CASES = [
    UtcCase("None stays None", None, None, None),
    UtcCase(
        "naive is taken as UTC (SQLite)",
        datetime(2024, 5, 1, 12, 30, 0),
        datetime(2024, 5, 1, 12, 30, 0, tzinfo=UTC),
        "2024-05-01T12:30:00Z",
    ),
    UtcCase(
        "aware UTC unchanged (PostgreSQL)",
        datetime(2024, 5, 1, 12, 30, 0, tzinfo=UTC),
        datetime(2024, 5, 1, 12, 30, 0, tzinfo=UTC),
        "2024-05-01T12:30:00Z",
    ),
    UtcCase(
        "Beijing time converted back across midnight",
        datetime(2024, 5, 1, 3, 0, 0, tzinfo=BEIJING),
        datetime(2024, 4, 30, 19, 0, 0, tzinfo=UTC),
        "2024-04-30T19:00:00Z",
    ),
    UtcCase(
        "negative offset converted forward",
        datetime(2024, 1, 1, 22, 0, 0, 123456, tzinfo=NEW_YORK_WINTER),
        datetime(2024, 1, 2, 3, 0, 0, 123456, tzinfo=UTC),
        "2024-01-02T03:00:00.123456Z",
    ),
]


@pytest.mark.parametrize("case", UTC_CASES, ids=lambda c: c.name)
def test_as_utc_and_iso(case: UtcCase) -> None:
    result = as_utc(case.value)
    assert result == case.expected
    if result is not None:
        # equality across zones would pass for the unconverted value; the offset must be UTC
        assert result.utcoffset() == timedelta(0)
        assert (result.year, result.month, result.day, result.hour) == (
            case.expected.year,  # type: ignore[union-attr]
            case.expected.month,  # type: ignore[union-attr]
            case.expected.day,  # type: ignore[union-attr]
            case.expected.hour,  # type: ignore[union-attr]
        )
    assert iso(case.value) == case.expected_iso


def test_naive_and_aware_readings_compare_equal_after_as_utc() -> None:
    naive = datetime(2024, 5, 1, 12, 0, 0)
    aware = datetime(2024, 5, 1, 20, 0, 0, tzinfo=BEIJING)
    assert as_utc(naive) == as_utc(aware)


def test_utc_now_is_aware_utc_and_current() -> None:
    before = datetime.now(UTC)
    now = utc_now()
    after = datetime.now(UTC)
    assert now.utcoffset() == timedelta(0)
    assert before <= now <= after
    assert iso(now).endswith("Z")  # type: ignore[union-attr]


@pytest.mark.parametrize("prefix", ["run", "cand", "wk", "abcdefgh"])
def test_new_id_format(prefix: str) -> None:
    value = new_id(prefix)
    assert re.fullmatch(rf"{prefix}_[0-9a-f]{{20}}", value)
    assert is_id(value)
    assert is_id(value, prefix)


def test_new_ids_are_unique() -> None:
    ids = {new_id("run") for _ in range(5000)}
    assert len(ids) == 5000


@dataclass(frozen=True)
class IsIdCase:
    name: str
    value: str
    prefix: str | None
    expected: bool


IS_ID_CASES = [
    IsIdCase("well formed, any prefix", "run_0123456789abcdef0123", None, True),
    IsIdCase("well formed, right prefix", "run_0123456789abcdef0123", "run", True),
    IsIdCase("wrong prefix", "run_0123456789abcdef0123", "cand", False),
    IsIdCase("prefix of the prefix is not the prefix", "run_0123456789abcdef0123", "ru", False),
    IsIdCase("uppercase hex", "run_0123456789ABCDEF0123", None, False),
    IsIdCase("too short", "run_0123456789abcdef012", None, False),
    IsIdCase("too long", "run_0123456789abcdef01234", None, False),
    IsIdCase("no underscore", "run0123456789abcdef0123", None, False),
    IsIdCase("one-letter prefix", "r_0123456789abcdef0123", None, False),
    IsIdCase("nine-letter prefix", "abcdefghi_0123456789abcdef0123", None, False),
    IsIdCase("uppercase prefix", "Run_0123456789abcdef0123", None, False),
    IsIdCase("trailing newline", "run_0123456789abcdef0123\n", None, False),
    IsIdCase("empty", "", None, False),
]


@pytest.mark.parametrize("case", IS_ID_CASES, ids=lambda c: c.name)
def test_is_id(case: IsIdCase) -> None:
    assert is_id(case.value, case.prefix) is case.expected
