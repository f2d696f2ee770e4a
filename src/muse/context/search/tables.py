"""Tables of the prose search index (ARCHITECTURE.md §7): chunks, and what each work's index holds.

Only what both backends share is declared here. Migration 0009 adds, with raw DDL:

* SQLite: ``search_chunks_fts``, an FTS5 table over ``search_chunks.tokens`` (external content,
  ``content_rowid='id'``, tokenizer ``unicode61 remove_diacritics 0``) kept in step by three
  triggers, plus the FTS5 shadow tables ``search_chunks_fts_{data,idx,docsize,config}``.
* PostgreSQL: ``search_chunks.search_vector``, a stored generated
  ``to_tsvector('simple', tokens)`` column, and its GIN index ``ix_search_chunks_search_vector``.

Those objects are listed in ``metadata.info["raw_ddl_objects"]`` so that a schema comparison
(the migration test, autogenerate) can leave them out instead of proposing to drop them.

A chunk's ``id`` is computed, not allocated: ``work_id << 40 | chapter << 20 | seq``. Rebuilding
gives every chunk the same id again, and "this work, chapters up to N" is one id range, which
FTS5 applies inside its own scan (the freeze point is pushed into the index lookup).

A chunk holds no copy of its text (migration 0018): its chapter, revision and offsets point into
``prose_blocks``, which keeps every revision, and a hit's text is cut from there.
"""

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    Column,
    ForeignKey,
    Integer,
    String,
    Table,
    Text,
)

from muse.store.metadata import JsonDoc, UtcDateTime, metadata

search_index_works = Table(
    "search_index_works",
    metadata,
    Column("work_id", Integer, ForeignKey("works.id"), primary_key=True, autoincrement=False),
    Column(
        "index_version",
        String(160),
        nullable=False,
        comment="tokenizer + chunker + rjieba versions and user dictionary hash it was built with",
    ),
    Column(
        "dictionary",
        JsonDoc,
        nullable=False,
        comment="sorted card names and aliases the tokens were cut with; queries use the same",
    ),
    Column(
        "dictionary_sha256",
        String(64),
        nullable=False,
        comment="sha256 of the canonical JSON of dictionary, computed before storing",
    ),
    Column("built_at", UtcDateTime, nullable=False, comment="last full rebuild"),
    Column("updated_at", UtcDateTime, nullable=False, comment="last change of any chapter"),
)

search_index_chapters = Table(
    "search_index_chapters",
    metadata,
    Column("work_id", Integer, ForeignKey("works.id"), primary_key=True, autoincrement=False),
    Column("chapter", Integer, primary_key=True, autoincrement=False),
    Column(
        "revision",
        Integer,
        nullable=False,
        comment="chapter revision indexed; differs from the canonical one: stale",
    ),
    Column("content_sha256", String(64), nullable=False, comment="sha256 of the text indexed"),
    Column("chunk_count", Integer, nullable=False),
    Column("indexed_at", UtcDateTime, nullable=False),
)

search_chunks = Table(
    "search_chunks",
    metadata,
    Column(
        "id",
        BigInteger().with_variant(Integer(), "sqlite"),
        primary_key=True,
        autoincrement=False,
        comment="work_id << 40 | chapter << 20 | seq (SQLite rowid)",
    ),
    Column("work_id", Integer, ForeignKey("works.id"), nullable=False),
    Column("chapter", Integer, nullable=False, comment="absolute chapter number"),
    Column("seq", Integer, nullable=False, comment="position of the chunk in the chapter, from 0"),
    Column(
        "revision",
        Integer,
        nullable=False,
        comment="chapter revision the offsets refer to (sourceVersion)",
    ),
    Column("start_offset", Integer, nullable=False, comment="code point offset, inclusive"),
    Column("end_offset", Integer, nullable=False, comment="code point offset, exclusive"),
    Column("han_count", Integer, nullable=False),
    Column(
        "sha256",
        String(64),
        nullable=False,
        comment="sha256 of the chunk's text, the revision's prose [start_offset, end_offset)",
    ),
    Column(
        "tokens",
        Text,
        nullable=False,
        comment="index tokens, space-separated, computed in Python; '' when none",
    ),
    CheckConstraint("end_offset > start_offset", name="span"),
)

RAW_DDL_OBJECTS = frozenset(
    {
        ("table", "search_chunks_fts"),
        ("table", "search_chunks_fts_data"),
        ("table", "search_chunks_fts_idx"),
        ("table", "search_chunks_fts_docsize"),
        ("table", "search_chunks_fts_config"),
        ("column", "search_chunks.search_vector"),
        ("index", "ix_search_chunks_search_vector"),
    }
)
metadata.info.setdefault("raw_ddl_objects", set()).update(RAW_DDL_OBJECTS)
