"""One migrated PostgreSQL schema per test process, emptied after each test.

Creating a schema per test (replaying the migrated DDL, then ``DROP SCHEMA … CASCADE``) costs
about half a second on a busy server, most of the PostgreSQL run. Emptying one schema costs a
few milliseconds: the rows of every table that holds any are deleted (``alembic_version`` is
kept) with triggers and foreign keys off (``session_replication_role = replica``, so the
append-only triggers do not refuse it), and every sequence goes back to its start — the state
the migrations left. Deleted rows leave their pages behind until a vacuum, which only a test of
physical storage can see: such a test is marked ``fresh_schema`` and gets a new schema of its
own (``TRUNCATE … CASCADE`` of the filled tables instead was tried: it gives fresh files but
costs nearly what a new schema does).

A test may change the schema itself (a downgrade, a table of its own, an edited comment). Every
such change writes a new version of a catalog row, with a new ``xmin``; deleting rows and using
sequences write none. The fingerprint below hashes the (oid, xmin) of every catalog row the
migrations made — columns, defaults, constraints, indexes, triggers, functions, types,
sequences, comments — the relations by their attributes (a ``TRUNCATE`` in a test rewrites
their rows), and the ``alembic_version`` rows; it is compared after every test (a few
milliseconds, where comparing the definitions' text took ten times as long). When it differs,
the schema is dropped and a new one is created from the template, so the next test starts from
the migrations again. A spurious difference only costs a new schema.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from sqlalchemy import Engine

FINGERPRINT = """
WITH ns AS (SELECT oid FROM pg_namespace WHERE nspname = %(schema)s),
rel AS (SELECT c.* FROM pg_class c, ns WHERE c.relnamespace = ns.oid),
fn AS (SELECT p.oid, p.xmin FROM pg_proc p, ns WHERE p.pronamespace = ns.oid)
SELECT md5(coalesce(string_agg(item, ' ' ORDER BY item), '')) FROM (
  SELECT concat_ws(' ', 'r', oid, relname, relkind, relnatts, relchecks, relhasrules,
    relhastriggers, relrowsecurity, relpersistence, reloptions, reltoastrelid, relreplident)
    AS item FROM rel
  UNION ALL SELECT 'p' || oid || ':' || xmin FROM fn
  UNION ALL SELECT 'a' || attrelid || '.' || attnum || ':' || xmin
    FROM pg_attribute WHERE attrelid IN (SELECT oid FROM rel)
  UNION ALL SELECT 'x' || oid || ':' || xmin FROM pg_attrdef WHERE adrelid IN (SELECT oid FROM rel)
  UNION ALL SELECT 'k' || oid || ':' || xmin FROM pg_constraint WHERE connamespace IN (SELECT oid FROM ns)
  UNION ALL SELECT 'i' || indexrelid || ':' || xmin FROM pg_index WHERE indrelid IN (SELECT oid FROM rel)
  UNION ALL SELECT 't' || oid || ':' || xmin FROM pg_trigger WHERE tgrelid IN (SELECT oid FROM rel)
  UNION ALL SELECT 'y' || t.oid || ':' || t.xmin FROM pg_type t, ns WHERE t.typnamespace = ns.oid
  UNION ALL SELECT 'e' || oid || ':' || xmin FROM pg_enum
    WHERE enumtypid IN (SELECT t.oid FROM pg_type t, ns WHERE t.typnamespace = ns.oid)
  UNION ALL SELECT 's' || seqrelid || ':' || xmin FROM pg_sequence WHERE seqrelid IN (SELECT oid FROM rel)
  UNION ALL SELECT 'd' || objoid || '.' || objsubid || ':' || xmin FROM pg_description
    WHERE objoid IN (SELECT oid FROM rel UNION ALL SELECT oid FROM fn)
) items
"""


# How long emptying may wait for a lock a test left behind (an open transaction kept alive by a
# failed test's traceback); past it the schema is set aside and a new one is created.
LOCK_TIMEOUT = "5s"


def can_empty(admin: Engine) -> bool:
    """Emptying needs ``session_replication_role``, a superuser's setting (CI connects as
    ``postgres``); without it every test gets a schema of its own."""
    raw = admin.raw_connection()
    try:
        cur = raw.cursor()
        cur.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")
        row = cur.fetchone()
        return bool(row and row[0])
    finally:
        raw.close()


class WorkerSchema:
    """The test process's migrated schema: lent to one test at a time, emptied after it.

    ``create(name)`` makes a migrated schema ``name``; ``url(name)`` is the test's URL for it.
    """

    def __init__(
        self, admin: Engine, create: Callable[[str], None], url: Callable[[str], str]
    ) -> None:
        self._admin, self._create, self._url = admin, create, url
        self._set_aside: list[str] = []
        self._new()

    @property
    def url(self) -> str:
        return self._url(self.name)

    def _new(self) -> None:
        self.name = f"w_{uuid.uuid4().hex[:16]}"
        self._create(self.name)
        raw = self._admin.raw_connection()
        try:
            cur = raw.cursor()
            self.fingerprint = _fingerprint(cur, self.name)
            cur.execute(
                "SELECT c.relname, c.relkind, s.seqstart FROM pg_class c"
                " LEFT JOIN pg_sequence s ON s.seqrelid = c.oid"
                " WHERE c.relnamespace = %(schema)s::regnamespace AND c.relkind IN ('r', 'S')"
                " ORDER BY c.relname",
                {"schema": self.name},
            )
            rows = cur.fetchall()
            raw.rollback()
        finally:
            raw.close()
        q = f'"{self.name}"'
        tables = [
            f'{q}."{rel}"' for rel, kind, _ in rows if kind == "r" and rel != "alembic_version"
        ]
        resets = [
            f"setval('{q}.\"{rel}\"', {start}, false)" for rel, kind, start in rows if kind == "S"
        ]
        self._filled = " UNION ALL ".join(
            f"SELECT '{t}' WHERE EXISTS (SELECT FROM {t})" for t in tables
        )
        self._prologue = (
            f"SET LOCAL lock_timeout = '{LOCK_TIMEOUT}';"
            "SET LOCAL session_replication_role = replica;"
        )
        self._restart = f"SELECT {', '.join(resets)};" if resets else ""

    def reset(self) -> None:
        """Back to the migrations' state: emptied when the test left the schema as it was,
        replaced by a new one when it changed the schema or holds a lock on it."""
        raw = self._admin.raw_connection()
        try:
            cur = raw.cursor()
            try:
                same = _fingerprint(cur, self.name) == self.fingerprint
                if same:
                    cur.execute(self._prologue)
                    cur.execute(self._filled)
                    filled = [row[0] for row in cur.fetchall()]
                    if filled:
                        cur.execute("".join(f"DELETE FROM {t};" for t in filled))
                    if self._restart:
                        cur.execute(self._restart)
                raw.commit()
            except Exception:  # a dropped alembic_version, a lock held past the timeout
                raw.rollback()
                same = False
        finally:
            raw.close()
        if not same:
            self._set_aside.append(self.name)
            self._drop_set_aside()
            self._new()

    def close(self) -> None:
        self._set_aside.append(self.name)
        self._drop_set_aside()

    def _drop_set_aside(self) -> None:
        kept = []
        for name in self._set_aside:
            raw = self._admin.raw_connection()
            try:
                cur = raw.cursor()
                cur.execute(f"SET lock_timeout = '{LOCK_TIMEOUT}'")
                cur.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')
                raw.commit()
            except Exception:  # still locked by a leftover connection: try again later
                raw.rollback()
                kept.append(name)
            finally:
                raw.close()
        self._set_aside = kept


def _fingerprint(cur: Any, schema: str) -> str:
    cur.execute(FINGERPRINT, {"schema": schema})
    catalog = cur.fetchone()[0]
    cur.execute(
        f"SELECT string_agg(version_num, ',' ORDER BY version_num) FROM \"{schema}\".alembic_version"
    )
    return f"{catalog} {cur.fetchone()[0]}"
