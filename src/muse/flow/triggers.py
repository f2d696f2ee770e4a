"""The transition table as database triggers, generated from :mod:`muse.flow.states`.

ARCHITECTURE.md §5: the allowed-transition table lives in one place in code and is also enforced
by the database, so that no code path, present or future, can skip it. The SQL is generated from
``states.py`` rather than written out, so the table is never copied by hand. What the triggers
refuse, on runs and on candidates alike:

* an insert in a state other than an initial one, or with a revision other than 0;
* a change of an identity column (``RUN_IDENTITY`` / ``CANDIDATE_IDENTITY``);
* any move out of a terminal state;
* a state change that is not in the transition table;
* a state change whose revision is not the old revision + 1, and a revision change without a
  state change;
* (runs) an attempt that decreases;
* (candidates) an acceptance-eligible candidate of a run that is not a production run, and a
  move to ACCEPTED of a candidate that is not eligible or whose run is not a production run —
  the database layer of "an evaluation candidate can never be accepted" (spec 001 §3).

Both backends raise the same message and an integrity error (SQLite ``RAISE(ABORT)``,
PostgreSQL SQLSTATE 23514), so ``sqlalchemy.exc.IntegrityError`` on both.

A migration never imports this module (a migration is frozen): it holds a copy of the SQL that
:func:`install_statements` / :func:`drop_statements` generated when it was written (0010, 0011).
A later change of ``states.py`` needs a new migration that drops the triggers and installs the
newly generated SQL, copied into it; :func:`installed_matches` (tested) notices when that
migration is missing. SQLite "move and
copy" batch migrations of ``runs`` or ``candidates`` drop the triggers: re-install them after.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from sqlalchemy import Connection, bindparam, text
from sqlalchemy.exc import DBAPIError

from muse.flow import states

MESSAGES = {
    "initial": "muse: {table}: a row must be inserted in an initial state with revision 0",
    "identity": "muse: {table}: identity columns are immutable",
    "terminal": "muse: {table}: a terminal state never moves",
    "transition": "muse: {table}: state change not in the transition table",
    "revision": "muse: {table}: revision must increase by exactly 1 with each state change",
    "attempt": "muse: runs: attempt never decreases",
    "eligible": "muse: candidates: only a candidate of a production run can be acceptance eligible",
    "accept": "muse: candidates: only an eligible candidate of a production run can be ACCEPTED",
}
_PG_FUNCTIONS = {"runs": "muse_runs_state_machine", "candidates": "muse_candidates_state_machine"}
_SQLITE_TRIGGERS = {
    "runs": ("runs_sm_insert", "runs_sm_update"),
    "candidates": ("candidates_sm_insert", "candidates_sm_update"),
}
_PRODUCTION_RUN = (
    "EXISTS (SELECT 1 FROM runs WHERE runs.id = NEW.run_id"
    " AND runs.run_type = 'production' AND runs.mode = 'production')"
)


def message(kind: str, table: str = "") -> str:
    return MESSAGES[kind].format(table=table)


def is_state_machine_refusal(err: BaseException) -> bool:
    """Whether a database error is one of these triggers refusing a write."""
    return isinstance(err, DBAPIError) and "muse: " in str(err.orig)


def _quote(values: Iterable[str]) -> str:
    return ", ".join("'" + v.replace("'", "''") + "'" for v in sorted(values))


def _pairs(table: Mapping[str, frozenset[str]]) -> str:
    return _quote(f"{old}>{new}" for old, targets in table.items() for new in targets)


def _spec(table: str) -> dict[str, Any]:
    if table == "runs":
        return {
            "initial": states.RUN_INITIAL,
            "terminal": states.RUN_TERMINAL,
            "transitions": states.RUN_TRANSITIONS,
            "identity": states.RUN_IDENTITY,
        }
    return {
        "initial": states.CANDIDATE_INITIAL,
        "terminal": states.CANDIDATE_TERMINAL,
        "transitions": states.CANDIDATE_TRANSITIONS,
        "identity": states.CANDIDATE_IDENTITY,
    }


# -- SQLite ---------------------------------------------------------------------------------------


def _sqlite_raise(kind: str, table: str, condition: str) -> str:
    return f"  SELECT RAISE(ABORT, '{message(kind, table)}') WHERE {condition};"


def _sqlite_sql(table: str) -> list[str]:
    spec = _spec(table)
    changed = "NEW.state IS NOT OLD.state"
    insert_checks = [
        _sqlite_raise(
            "initial",
            table,
            f"NEW.state NOT IN ({_quote(spec['initial'])}) OR NEW.revision IS NOT 0",
        )
    ]
    update_checks = [
        _sqlite_raise(
            "identity", table, " OR ".join(f"NEW.{c} IS NOT OLD.{c}" for c in spec["identity"])
        ),
        _sqlite_raise(
            "terminal", table, f"{changed} AND OLD.state IN ({_quote(spec['terminal'])})"
        ),
        _sqlite_raise(
            "transition",
            table,
            f"{changed} AND (OLD.state || '>' || NEW.state) NOT IN ({_pairs(spec['transitions'])})",
        ),
        _sqlite_raise(
            "revision",
            table,
            f"({changed} AND NEW.revision IS NOT OLD.revision + 1)"
            f" OR (NEW.state IS OLD.state AND NEW.revision IS NOT OLD.revision)",
        ),
    ]
    if table == "runs":
        update_checks.append(_sqlite_raise("attempt", table, "NEW.attempt < OLD.attempt"))
    else:
        insert_checks.append(
            _sqlite_raise("eligible", table, f"NEW.acceptance_eligible AND NOT {_PRODUCTION_RUN}")
        )
        update_checks.append(
            _sqlite_raise(
                "accept",
                table,
                f"{changed} AND NEW.state = 'ACCEPTED'"
                f" AND (NOT NEW.acceptance_eligible OR NOT {_PRODUCTION_RUN})",
            )
        )
    insert_name, update_name = _SQLITE_TRIGGERS[table]
    return [
        f"CREATE TRIGGER {insert_name} BEFORE INSERT ON {table} FOR EACH ROW BEGIN\n"
        + "\n".join(insert_checks)
        + "\nEND",
        f"CREATE TRIGGER {update_name} BEFORE UPDATE ON {table} FOR EACH ROW BEGIN\n"
        + "\n".join(update_checks)
        + "\nEND",
    ]


# -- PostgreSQL -----------------------------------------------------------------------------------


def _pg_raise(kind: str, table: str, detail: str = "'row ' || NEW.id") -> str:
    return (
        f"RAISE EXCEPTION USING MESSAGE = '{message(kind, table)}', "
        f"DETAIL = {detail}, ERRCODE = 'check_violation';"
    )


def _pg_body(table: str) -> str:
    spec = _spec(table)
    new_row = ", ".join(f"NEW.{c}" for c in spec["identity"])
    old_row = ", ".join(f"OLD.{c}" for c in spec["identity"])
    move = "'row ' || NEW.id || ': ' || OLD.state || ' -> ' || NEW.state"
    lines = [
        "BEGIN",
        "  IF TG_OP = 'INSERT' THEN",
        f"    IF NEW.state NOT IN ({_quote(spec['initial'])}) OR NEW.revision <> 0 THEN",
        f"      {_pg_raise('initial', table)}",
        "    END IF;",
    ]
    if table == "candidates":
        lines += [
            f"    IF NEW.acceptance_eligible AND NOT {_PRODUCTION_RUN} THEN",
            f"      {_pg_raise('eligible', table)}",
            "    END IF;",
        ]
    lines += [
        "    RETURN NEW;",
        "  END IF;",
        f"  IF ROW({new_row}) IS DISTINCT FROM ROW({old_row}) THEN",
        "    " + _pg_raise("identity", table, "'row ' || OLD.id"),
        "  END IF;",
        "  IF NEW.state IS DISTINCT FROM OLD.state THEN",
        f"    IF OLD.state IN ({_quote(spec['terminal'])}) THEN",
        f"      {_pg_raise('terminal', table, move)}",
        "    END IF;",
        f"    IF (OLD.state || '>' || NEW.state) NOT IN ({_pairs(spec['transitions'])}) THEN",
        f"      {_pg_raise('transition', table, move)}",
        "    END IF;",
        "    IF NEW.revision IS DISTINCT FROM OLD.revision + 1 THEN",
        f"      {_pg_raise('revision', table, move)}",
        "    END IF;",
        "  ELSIF NEW.revision IS DISTINCT FROM OLD.revision THEN",
        f"    {_pg_raise('revision', table)}",
        "  END IF;",
    ]
    if table == "runs":
        lines += [
            "  IF NEW.attempt < OLD.attempt THEN",
            f"    {_pg_raise('attempt', table)}",
            "  END IF;",
        ]
    else:
        lines += [
            "  IF NEW.state IS DISTINCT FROM OLD.state AND NEW.state = 'ACCEPTED'",
            f"     AND (NOT NEW.acceptance_eligible OR NOT {_PRODUCTION_RUN}) THEN",
            f"    {_pg_raise('accept', table, move)}",
            "  END IF;",
        ]
    lines += ["  RETURN NEW;", "END;"]
    return "\n".join(lines) + "\n"


def _pg_sql(table: str) -> list[str]:
    function = _PG_FUNCTIONS[table]
    return [
        f"CREATE OR REPLACE FUNCTION {function}() RETURNS trigger AS $$\n"
        f"{_pg_body(table)}$$ LANGUAGE plpgsql",
        f"CREATE TRIGGER {table}_state_machine BEFORE INSERT OR UPDATE ON {table} "
        f"FOR EACH ROW EXECUTE FUNCTION {function}()",
    ]


# -- installing and checking ----------------------------------------------------------------------


def install_statements(dialect: str) -> list[str]:
    """CREATE statements for both tables on ``dialect`` ("sqlite" or "postgresql")."""
    build = _pg_sql if dialect == "postgresql" else _sqlite_sql
    return build("runs") + build("candidates")


def drop_statements(dialect: str) -> list[str]:
    if dialect == "postgresql":
        return [
            stmt
            for table, function in _PG_FUNCTIONS.items()
            for stmt in (
                f"DROP TRIGGER IF EXISTS {table}_state_machine ON {table}",
                f"DROP FUNCTION IF EXISTS {function}()",
            )
        ]
    return [f"DROP TRIGGER IF EXISTS {n}" for names in _SQLITE_TRIGGERS.values() for n in names]


def _squash(sql: str) -> str:
    return " ".join(sql.split())


def installed_matches(conn: Connection) -> bool:
    """Whether the database's triggers are exactly the ones the current table generates."""
    if conn.dialect.name == "postgresql":
        rows = conn.execute(
            text(
                "SELECT p.proname, p.prosrc FROM pg_proc p"
                " WHERE p.pronamespace = current_schema()::regnamespace"
                " AND p.proname IN :names"
            ).bindparams(bindparam("names", expanding=True)),
            {"names": list(_PG_FUNCTIONS.values())},
        ).all()
        installed = {name: _squash(src) for name, src in rows}
        wanted = {f: _squash(_pg_body(t)) for t, f in _PG_FUNCTIONS.items()}
        triggers = conn.execute(
            text(
                "SELECT count(*) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid"
                " WHERE c.relnamespace = current_schema()::regnamespace"
                " AND t.tgname IN :names"
            ).bindparams(bindparam("names", expanding=True)),
            {"names": [f"{t}_state_machine" for t in _PG_FUNCTIONS]},
        ).scalar()
        return installed == wanted and triggers == len(_PG_FUNCTIONS)
    names = [n for pair in _SQLITE_TRIGGERS.values() for n in pair]
    rows = conn.execute(
        text(
            "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name IN :names"
        ).bindparams(bindparam("names", expanding=True)),
        {"names": names},
    ).all()
    installed = {name: _squash(sql) for name, sql in rows}
    wanted = dict(zip(names, (_squash(s) for s in install_statements("sqlite")), strict=True))
    return installed == wanted
