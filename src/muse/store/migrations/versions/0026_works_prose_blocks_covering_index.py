"""works: a covering index for the chapters' lengths and hashes

``ix_prose_blocks_chapter_revision_counts`` on ``prose_blocks (chapter_id, revision, han_count,
content_sha256)``. The reads that list every chapter's Han count or content hash (the plan view,
the lexicon check's book read) join ``chapters`` to its canonical block by (chapter_id,
revision). With only the unique (chapter_id, revision) index, SQLite then reads the row itself,
and ``han_count`` and ``content_sha256`` sit after ``text`` in it: every chapter's text overflow
pages were walked to reach two short columns (2,000 chapters of 5 M Han: 8 ms and 6 ms). With the
two columns in the index, those reads never touch the table. On PostgreSQL the text is in TOAST
already; the index lets an index-only scan answer there too.

Revision ID: 0026
Revises: 0001
"""

from alembic import op

revision = "0026"
down_revision = "0001"
branch_labels = ("works",)
depends_on = None


def upgrade() -> None:
    op.create_index(
        "ix_prose_blocks_chapter_revision_counts",
        "prose_blocks",
        ["chapter_id", "revision", "han_count", "content_sha256"],
    )


def downgrade() -> None:
    op.drop_index("ix_prose_blocks_chapter_revision_counts", table_name="prose_blocks")
