"""UTC time in one place.

SQLite hands back naive datetimes and PostgreSQL aware ones; everything that reads a time from
the database passes it through :func:`as_utc` so that comparisons never mix the two.
"""

from __future__ import annotations

from datetime import UTC, datetime


def utc_now() -> datetime:
    return datetime.now(UTC)


def as_utc(value: datetime | None) -> datetime | None:
    """Return ``value`` as an aware UTC datetime (naive values are taken to be UTC)."""
    if value is None:
        return None
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def iso(value: datetime | None) -> str | None:
    value = as_utc(value)
    return value.isoformat().replace("+00:00", "Z") if value else None
