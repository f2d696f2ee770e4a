"""The writer-eval-v1 transition table as database triggers on ``eval_runs``.

Generated from :mod:`muse.evaluation.states` like the production triggers
(:mod:`muse.flow.triggers`): an insert outside ``preregistered`` or with revision ≠ 0, a change
of an identity column, a move out of a terminal state, a move not in the table and a revision
that does not step by exactly one are refused by the database on both backends, with a message
``muse.flow.triggers.is_state_machine_refusal`` recognises.
"""

from __future__ import annotations

from collections.abc import Iterable

from muse.evaluation import states

_T = "eval_runs"
_MSG = {
    "initial": f"muse: {_T}: a row must be inserted as preregistered with revision 0",
    "identity": f"muse: {_T}: identity columns are immutable",
    "terminal": f"muse: {_T}: a terminal state never moves",
    "transition": f"muse: {_T}: state change not in the writer-eval-v1 table",
    "revision": f"muse: {_T}: revision must increase by exactly 1 with each state change",
}


def _quote(values: Iterable[str]) -> str:
    return ", ".join(f"'{v}'" for v in sorted(values))


def _pairs() -> str:
    return _quote(f"{a}>{b}" for a, targets in states.EVAL_TRANSITIONS.items() for b in targets)


def _sqlite() -> list[str]:
    def refuse(kind: str, cond: str) -> str:
        return f"  SELECT RAISE(ABORT, '{_MSG[kind]}') WHERE {cond};"

    changed = "NEW.state IS NOT OLD.state"
    identity = " OR ".join(
        f"NEW.{c} IS NOT OLD.{c}"
        if c != "labels"
        else "CAST(NEW.labels AS TEXT) IS NOT CAST(OLD.labels AS TEXT)"
        for c in states.EVAL_IDENTITY
    )
    update = [
        refuse("identity", identity),
        refuse("terminal", f"{changed} AND OLD.state IN ({_quote(states.EVAL_TERMINAL)})"),
        refuse("transition", f"{changed} AND (OLD.state || '>' || NEW.state) NOT IN ({_pairs()})"),
        refuse(
            "revision",
            f"({changed} AND NEW.revision IS NOT OLD.revision + 1)"
            " OR (NEW.state IS OLD.state AND NEW.revision IS NOT OLD.revision)",
        ),
    ]
    insert = refuse(
        "initial", f"NEW.state NOT IN ({_quote(states.EVAL_INITIAL)}) OR NEW.revision IS NOT 0"
    )
    return [
        f"CREATE TRIGGER eval_runs_sm_insert BEFORE INSERT ON {_T} FOR EACH ROW BEGIN\n"
        f"{insert}\nEND",
        f"CREATE TRIGGER eval_runs_sm_update BEFORE UPDATE ON {_T} FOR EACH ROW BEGIN\n"
        + "\n".join(update)
        + "\nEND",
    ]


def _pg() -> list[str]:
    def refuse(kind: str) -> str:
        return (
            f"RAISE EXCEPTION USING MESSAGE = '{_MSG[kind]}', DETAIL = 'row ' || NEW.id,"
            " ERRCODE = 'check_violation';"
        )

    cols = [c if c != "labels" else "labels::text" for c in states.EVAL_IDENTITY]
    new_row = ", ".join(f"NEW.{c}" for c in cols)
    old_row = ", ".join(f"OLD.{c}" for c in cols)
    body = "\n".join(
        [
            "BEGIN",
            "  IF TG_OP = 'INSERT' THEN",
            f"    IF NEW.state NOT IN ({_quote(states.EVAL_INITIAL)}) OR NEW.revision <> 0 THEN",
            f"      {refuse('initial')}",
            "    END IF;",
            "    RETURN NEW;",
            "  END IF;",
            f"  IF ROW({new_row}) IS DISTINCT FROM ROW({old_row}) THEN",
            f"    {refuse('identity')}",
            "  END IF;",
            "  IF NEW.state IS DISTINCT FROM OLD.state THEN",
            f"    IF OLD.state IN ({_quote(states.EVAL_TERMINAL)}) THEN {refuse('terminal')}",
            "    END IF;",
            f"    IF (OLD.state || '>' || NEW.state) NOT IN ({_pairs()}) THEN",
            f"      {refuse('transition')}",
            "    END IF;",
            "    IF NEW.revision IS DISTINCT FROM OLD.revision + 1 THEN",
            f"      {refuse('revision')}",
            "    END IF;",
            "  ELSIF NEW.revision IS DISTINCT FROM OLD.revision THEN",
            f"    {refuse('revision')}",
            "  END IF;",
            "  RETURN NEW;",
            "END;",
        ]
    )
    return [
        f"CREATE OR REPLACE FUNCTION muse_eval_runs_state_machine() RETURNS trigger AS $$\n"
        f"{body}\n$$ LANGUAGE plpgsql",
        f"CREATE TRIGGER eval_runs_state_machine BEFORE INSERT OR UPDATE ON {_T} "
        "FOR EACH ROW EXECUTE FUNCTION muse_eval_runs_state_machine()",
    ]


def install_statements(dialect: str) -> list[str]:
    return _pg() if dialect == "postgresql" else _sqlite()


def drop_statements(dialect: str) -> list[str]:
    if dialect == "postgresql":
        return [
            f"DROP TRIGGER IF EXISTS eval_runs_state_machine ON {_T}",
            "DROP FUNCTION IF EXISTS muse_eval_runs_state_machine()",
        ]
    return [
        "DROP TRIGGER IF EXISTS eval_runs_sm_insert",
        "DROP TRIGGER IF EXISTS eval_runs_sm_update",
    ]
