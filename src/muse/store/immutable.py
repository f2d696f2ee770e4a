"""Database triggers that make append-only tables append-only.

Some rows must never change once written: authorization snapshots (a frozen context points at
them) and canonical prose revisions (every earlier revision stays restorable). The rule is
enforced by the database itself so that no code path, present or future, can break it.
"""

from __future__ import annotations

from alembic import op

_PG_FUNCTION = """
CREATE OR REPLACE FUNCTION muse_refuse_change() RETURNS trigger AS $$
BEGIN
  RAISE EXCEPTION 'muse: rows of % are immutable', TG_TABLE_NAME;
END;
$$ LANGUAGE plpgsql
"""


def make_immutable(table: str) -> None:
    """Refuse UPDATE and DELETE on ``table`` (call from a migration's upgrade)."""
    if op.get_bind().dialect.name == "postgresql":
        op.execute(_PG_FUNCTION)
        op.execute(
            f"CREATE TRIGGER {table}_immutable BEFORE UPDATE OR DELETE ON {table} "
            f"FOR EACH ROW EXECUTE FUNCTION muse_refuse_change()"
        )
        return
    for action in ("UPDATE", "DELETE"):
        op.execute(
            f"CREATE TRIGGER {table}_no_{action.lower()} BEFORE {action} ON {table} "
            f"BEGIN SELECT RAISE(ABORT, 'muse: rows of {table} are immutable'); END"
        )


def drop_immutable(table: str) -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(f"DROP TRIGGER IF EXISTS {table}_immutable ON {table}")
        return
    for action in ("update", "delete"):
        op.execute(f"DROP TRIGGER IF EXISTS {table}_no_{action}")
