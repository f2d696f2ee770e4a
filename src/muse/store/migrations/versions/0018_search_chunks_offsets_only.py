"""search index: chunks keep offsets into the prose, not a second copy of its text

``search_chunks.text`` held each chunk's text, a second copy of the whole book (and on SQLite the
wide rows spilled into overflow pages: the file was 4.7x the raw text after indexing). A chunk
already names its chapter, the chapter revision it was cut from and its code point offsets
``[start_offset, end_offset)``, and ``prose_blocks`` keeps every revision's text, so the text of a
hit is read from there: ``substr(prose_blocks.text, start_offset + 1, end_offset - start_offset)``
(``substr`` counts characters, i.e. code points, on both backends). ``tokens`` stays: the FTS5
external-content table (SQLite) reads it to delete a chunk and the generated ``search_vector``
(PostgreSQL) is computed from it.

SQLite: ``ALTER TABLE … DROP COLUMN`` (SQLite 3.35+) in place, not Alembic's batch copy, which
would recreate the table under the FTS5 triggers. The freed pages are reused by later writes;
``VACUUM`` returns them to the file system. The downgrade restores the column from the prose.

Assigned number 0018 with ``down_revision = "0017"`` (the integrator re-chains parallel
migrations); it also ``depends_on`` the search index branch, whose table it changes.

Revision ID: 0018
Revises: 0017
"""

from alembic import op
import sqlalchemy as sa

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = "0016"  # the search index branch (0009 → 0016) must be there first

_CHUNK_TEXT = """(
    SELECT substr(p.text, search_chunks.start_offset + 1,
                  search_chunks.end_offset - search_chunks.start_offset)
    FROM chapters c JOIN prose_blocks p ON p.chapter_id = c.id
    WHERE c.work_id = search_chunks.work_id AND c.number = search_chunks.chapter
      AND p.revision = search_chunks.revision
)"""


_SHA_COMMENTS = (
    "sha256 of text",
    "sha256 of the chunk's text, the revision's prose [start_offset, end_offset)",
)


def _sha256_comment(old: str, new: str) -> None:
    op.alter_column(
        "search_chunks",
        "sha256",
        existing_type=sa.String(length=64),
        existing_nullable=False,
        existing_comment=old,
        comment=new,
    )


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":  # no column comments on SQLite
        op.execute("ALTER TABLE search_chunks DROP COLUMN text")
    else:
        op.drop_column("search_chunks", "text")
        _sha256_comment(*_SHA_COMMENTS)


def downgrade() -> None:
    op.add_column(
        "search_chunks",
        sa.Column(
            "text",
            sa.Text(),
            nullable=False,
            server_default="",
            comment="chapter text [start_offset, end_offset)",
        ),
    )
    op.execute(f"UPDATE search_chunks SET text = coalesce({_CHUNK_TEXT}, '')")
    if op.get_bind().dialect.name != "sqlite":
        op.alter_column("search_chunks", "text", server_default=None)
        _sha256_comment(*reversed(_SHA_COMMENTS))
