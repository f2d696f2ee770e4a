"""knowledge: per-work change token for the card cache

``knowledge_versions`` holds one row per work whose ``token`` changes, by database trigger, in
the same transaction as any write to ``cards``, ``card_milestones``, ``card_relations`` or
``source_refs`` (every write path, present or future, and raw SQL too). The in-process card
cache (``muse.knowledge.card_cache``) is keyed by that token, so a cached book is never served
after its cards changed. The token is random: a rolled-back change can never make an old token
come back with other content.

* SQLite: row triggers; every changed row draws a new token (writes are serial, rows are cheap).
* PostgreSQL: statement triggers with transition tables; the first change of a transaction draws
  a new token and records the transaction (``writer_xid``); later statements of the same
  transaction leave the row alone (updating one row thousands of times in one transaction is
  slow on PostgreSQL). A transaction that changed a work's cards reads them without the cache.

Existing works with cards get a row. A SQLite "move and copy" batch migration of one of the four
tables drops its triggers: re-install them after it (``install_statements``).

Revision ID: 0015
Revises: 0003
"""

from alembic import op
import sqlalchemy as sa

revision = "0015"
down_revision = "0003"
branch_labels = None
depends_on = None

# table → how a changed row names its work
_BY_WORK = ("cards", "source_refs")
_BY_CARD = ("card_milestones", "card_relations")
_EVENTS = ("insert", "update", "delete")


def _sqlite_statements() -> list[str]:
    out = []
    for table in (*_BY_WORK, *_BY_CARD):
        for event in _EVENTS:
            row = "OLD" if event == "delete" else "NEW"
            if table in _BY_WORK:
                source = f"SELECT {row}.work_id AS work_id"
            else:
                source = f"SELECT work_id FROM cards WHERE id = {row}.card_id"
            out.append(
                f"CREATE TRIGGER knowledge_versions_{table}_{event} AFTER {event.upper()} "
                f"ON {table} BEGIN "
                f"INSERT OR IGNORE INTO knowledge_versions (work_id, revision, token) "
                f"SELECT work_id, 0, '' FROM ({source}) WHERE work_id IS NOT NULL; "
                f"UPDATE knowledge_versions SET revision = revision + 1, "
                f"token = lower(hex(randomblob(16))) "
                f"WHERE work_id = ({source}); "
                f"END"
            )
    return out


_PG_TOUCH = """
CREATE FUNCTION knowledge_versions_touch(works integer[]) RETURNS void LANGUAGE sql AS $$
    INSERT INTO knowledge_versions AS v (work_id, revision, token, writer_xid)
    SELECT w, 1, replace(gen_random_uuid()::text, '-', ''), pg_current_xact_id()::text::bigint
    FROM unnest(works) AS w
    ON CONFLICT (work_id) DO UPDATE
        SET revision = v.revision + 1, token = EXCLUDED.token, writer_xid = EXCLUDED.writer_xid
        WHERE v.writer_xid IS DISTINCT FROM EXCLUDED.writer_xid
$$
"""

_PG_BY_WORK = """
CREATE FUNCTION knowledge_versions_by_work() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM knowledge_versions_touch(ARRAY(SELECT DISTINCT work_id FROM changed));
    RETURN NULL;
END
$$
"""

_PG_BY_CARD = """
CREATE FUNCTION knowledge_versions_by_card() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM knowledge_versions_touch(ARRAY(
        SELECT DISTINCT c.work_id FROM changed JOIN cards c ON c.id = changed.card_id
    ));
    RETURN NULL;
END
$$
"""


def _postgresql_statements() -> list[str]:
    out = [_PG_TOUCH, _PG_BY_WORK, _PG_BY_CARD]
    for table in (*_BY_WORK, *_BY_CARD):
        function = (
            "knowledge_versions_by_work" if table in _BY_WORK else "knowledge_versions_by_card"
        )
        for event in _EVENTS:
            transition = "OLD" if event == "delete" else "NEW"
            out.append(
                f"CREATE TRIGGER knowledge_versions_{table}_{event} AFTER {event.upper()} "
                f"ON {table} REFERENCING {transition} TABLE AS changed "
                f"FOR EACH STATEMENT EXECUTE FUNCTION {function}()"
            )
    return out


def install_statements(dialect: str) -> list[str]:
    return _postgresql_statements() if dialect == "postgresql" else _sqlite_statements()


def drop_statements(dialect: str) -> list[str]:
    out = []
    for table in (*_BY_WORK, *_BY_CARD):
        for event in _EVENTS:
            on = f" ON {table}" if dialect == "postgresql" else ""
            out.append(f"DROP TRIGGER IF EXISTS knowledge_versions_{table}_{event}{on}")
    if dialect == "postgresql":
        out += [
            "DROP FUNCTION IF EXISTS knowledge_versions_by_work()",
            "DROP FUNCTION IF EXISTS knowledge_versions_by_card()",
            "DROP FUNCTION IF EXISTS knowledge_versions_touch(integer[])",
        ]
    return out


def upgrade() -> None:
    op.create_table(
        "knowledge_versions",
        sa.Column("work_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column(
            "revision",
            sa.Integer(),
            nullable=False,
            comment="number of changes seen (per row on SQLite, per transaction on PostgreSQL)",
        ),
        sa.Column(
            "token",
            sa.String(length=32),
            nullable=False,
            comment="random, new with every change; never repeats, even after a rollback",
        ),
        sa.Column(
            "writer_xid",
            sa.BigInteger(),
            nullable=True,
            comment="PostgreSQL: transaction that last changed it (its own writes skip the cache)",
        ),
        sa.ForeignKeyConstraint(["work_id"], ["works.id"]),
        sa.PrimaryKeyConstraint("work_id"),
        comment=(
            "One row per work, changed by database triggers in the same transaction as any write "
            "to cards, card_milestones, card_relations or source_refs: the key of the card cache."
        ),
    )
    dialect = op.get_bind().dialect.name
    token = (
        "replace(gen_random_uuid()::text, '-', '')"
        if dialect == "postgresql"
        else "lower(hex(randomblob(16)))"
    )
    op.execute(
        "INSERT INTO knowledge_versions (work_id, revision, token) "
        f"SELECT work_id, 1, {token} FROM (SELECT DISTINCT work_id FROM cards) AS w"
    )
    for statement in install_statements(dialect):
        op.execute(statement)


def downgrade() -> None:
    for statement in drop_statements(op.get_bind().dialect.name):
        op.execute(statement)
    op.drop_table("knowledge_versions")
