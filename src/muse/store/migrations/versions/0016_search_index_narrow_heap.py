"""search index: a narrow heap for search_chunks on PostgreSQL

PostgreSQL only (SQLite has nothing like it: a no-op there). ``toast_tuple_target = 128`` moves a
chunk's wide values (``text``, ``tokens``, ``search_vector``: together 4-6 kB) out of line into
the TOAST table, leaving rows of about 150 bytes in the heap: 15,000 chunks fit in ~380 heap
pages instead of ~3,450. Every search reads heap rows for the matches the GIN index found (to
count a word, to apply the chapter range), never their wide values, so a count over most of a
2,000-chapter book touches a tenth of the pages (measured ~3.5 ms → ~1.5 ms per word). The few
rows a search returns read their text from TOAST.

A storage parameter, not a schema change: the schema comparison does not see it, and rows
written before it keep their layout until rewritten (the prose index version changed with this
release, so the next ``refresh_index`` rebuilds every work's chunks).

Revision ID: 0016
Revises: 0009
"""

from alembic import op

revision = "0016"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE search_chunks SET (toast_tuple_target = 128)")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE search_chunks RESET (toast_tuple_target)")
