"""search index: chunks

The prose search index (ARCHITECTURE.md §7). ``search_chunks`` holds every chapter cut into
paragraph-aligned chunks with their code point offsets and their index tokens (computed in Python,
space-separated, identical on both backends). The full-text part cannot be said in SQLAlchemy
metadata and differs per backend, so it is raw DDL here:

* SQLite: ``search_chunks_fts``, an FTS5 table with external content ``search_chunks`` (rowid =
  ``search_chunks.id``), tokenizer ``unicode61 remove_diacritics 0``, which only has to split the
  tokens on spaces. Three triggers keep it in step with ``search_chunks``. A future batch
  ("move and copy") migration of ``search_chunks`` drops the triggers: recreate them after it.
* PostgreSQL: ``search_vector``, a stored generated ``to_tsvector('simple', tokens)`` column, and
  a GIN index on it.

Revision ID: 0009
Revises: 0001
Create Date: 2026-11-29 20:02:55.940167
"""

from alembic import op
import sqlalchemy as sa
import muse.store.metadata
from sqlalchemy.dialects import postgresql

revision = "0009"
down_revision = "0001"
branch_labels = ("search_index",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "search_chunks",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=False,
            nullable=False,
            comment="work_id << 40 | chapter << 20 | seq (SQLite rowid)",
        ),
        sa.Column("work_id", sa.Integer(), nullable=False),
        sa.Column("chapter", sa.Integer(), nullable=False, comment="absolute chapter number"),
        sa.Column(
            "seq",
            sa.Integer(),
            nullable=False,
            comment="position of the chunk in the chapter, from 0",
        ),
        sa.Column(
            "revision",
            sa.Integer(),
            nullable=False,
            comment="chapter revision the offsets refer to (sourceVersion)",
        ),
        sa.Column(
            "start_offset", sa.Integer(), nullable=False, comment="code point offset, inclusive"
        ),
        sa.Column(
            "end_offset", sa.Integer(), nullable=False, comment="code point offset, exclusive"
        ),
        sa.Column("han_count", sa.Integer(), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False, comment="sha256 of text"),
        sa.Column(
            "text", sa.Text(), nullable=False, comment="chapter text [start_offset, end_offset)"
        ),
        sa.Column(
            "tokens",
            sa.Text(),
            nullable=False,
            comment="index tokens, space-separated, computed in Python; '' when none",
        ),
        sa.CheckConstraint("end_offset > start_offset", name=op.f("ck_search_chunks_span")),
        sa.ForeignKeyConstraint(
            ["work_id"], ["works.id"], name=op.f("fk_search_chunks_work_id_works")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_search_chunks")),
    )
    op.create_table(
        "search_index_chapters",
        sa.Column("work_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("chapter", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column(
            "revision",
            sa.Integer(),
            nullable=False,
            comment="chapter revision indexed; differs from the canonical one: stale",
        ),
        sa.Column(
            "content_sha256",
            sa.String(length=64),
            nullable=False,
            comment="sha256 of the text indexed",
        ),
        sa.Column("chunk_count", sa.Integer(), nullable=False),
        sa.Column("indexed_at", muse.store.metadata.UtcDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["work_id"], ["works.id"], name=op.f("fk_search_index_chapters_work_id_works")
        ),
        sa.PrimaryKeyConstraint("work_id", "chapter", name=op.f("pk_search_index_chapters")),
    )
    op.create_table(
        "search_index_works",
        sa.Column("work_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column(
            "index_version",
            sa.String(length=160),
            nullable=False,
            comment="tokenizer + chunker + rjieba versions and user dictionary hash it was built with",
        ),
        sa.Column(
            "dictionary",
            sa.JSON().with_variant(postgresql.JSONB(), "postgresql"),
            nullable=False,
            comment="sorted card names and aliases the tokens were cut with; queries use the same",
        ),
        sa.Column(
            "dictionary_sha256",
            sa.String(length=64),
            nullable=False,
            comment="sha256 of the canonical JSON of dictionary, computed before storing",
        ),
        sa.Column(
            "built_at",
            muse.store.metadata.UtcDateTime(timezone=True),
            nullable=False,
            comment="last full rebuild",
        ),
        sa.Column(
            "updated_at",
            muse.store.metadata.UtcDateTime(timezone=True),
            nullable=False,
            comment="last change of any chapter",
        ),
        sa.ForeignKeyConstraint(
            ["work_id"], ["works.id"], name=op.f("fk_search_index_works_work_id_works")
        ),
        sa.PrimaryKeyConstraint("work_id", name=op.f("pk_search_index_works")),
    )

    ddl = {"sqlite": _SQLITE_DDL, "postgresql": _POSTGRESQL_DDL}[op.get_bind().dialect.name]
    for statement in ddl:
        op.execute(statement)


_SQLITE_DDL = (
    """CREATE VIRTUAL TABLE search_chunks_fts USING fts5(
        tokens, content='search_chunks', content_rowid='id',
        tokenize='unicode61 remove_diacritics 0')""",
    """CREATE TRIGGER search_chunks_fts_insert AFTER INSERT ON search_chunks BEGIN
        INSERT INTO search_chunks_fts(rowid, tokens) VALUES (new.id, new.tokens);
    END""",
    """CREATE TRIGGER search_chunks_fts_delete AFTER DELETE ON search_chunks BEGIN
        INSERT INTO search_chunks_fts(search_chunks_fts, rowid, tokens)
        VALUES ('delete', old.id, old.tokens);
    END""",
    """CREATE TRIGGER search_chunks_fts_update AFTER UPDATE OF id, tokens ON search_chunks BEGIN
        INSERT INTO search_chunks_fts(search_chunks_fts, rowid, tokens)
        VALUES ('delete', old.id, old.tokens);
        INSERT INTO search_chunks_fts(rowid, tokens) VALUES (new.id, new.tokens);
    END""",
)

_POSTGRESQL_DDL = (
    """ALTER TABLE search_chunks ADD COLUMN search_vector tsvector
        GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, tokens)) STORED""",
    "COMMENT ON COLUMN search_chunks.search_vector IS "
    "'the tokens as a tsvector (simple: no stemming, no stop words); GIN-indexed'",
    "CREATE INDEX ix_search_chunks_search_vector ON search_chunks USING gin (search_vector)",
)


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        for trigger in ("insert", "delete", "update"):
            op.execute(f"DROP TRIGGER search_chunks_fts_{trigger}")
        op.execute("DROP TABLE search_chunks_fts")
    op.drop_table("search_index_works")
    op.drop_table("search_index_chapters")
    op.drop_table("search_chunks")
