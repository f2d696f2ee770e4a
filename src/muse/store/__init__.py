"""Storage: engine and sessions (SQLite default, PostgreSQL), metadata, migrations, CAS, jobs.

Like the kernel, the store's face is its public modules (``from muse.store.engine import
reading``), listed in ``__all__``. ``tables`` (the job queue's table, read only through
``jobs``), ``immutable`` and ``migrations`` (frozen, used by Alembic) are internal
(docs/architecture.md §2).
"""

__all__ = [
    "cas",
    "digest",
    "engine",
    "heads",
    "jobs",
    "metadata",
    "migrate",
    "plain",
    "prepared",
    "rows",
    "urls",
]
