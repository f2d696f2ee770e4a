"""knowledge: card_book_cache, a work's confirmed cards as one derived blob

``card_book_cache`` holds, per work, the confirmed cards as plain rows encoded with ``marshal``
(``muse.knowledge.card_rows`` / ``card_book``), so that a new process reads a whole work's cards
with one query instead of four large ones. It is derived data: valid only while ``token`` equals
the work's current ``knowledge_versions.token`` (which database triggers replace in the same
transaction as any card write), written lazily after a read that had to query the card tables,
and dropped by ``muse rebuild``. ``format`` names the payload layout; a row of another format is
ignored and replaced.

Revision ID: 0017
Revises: 0015
"""

from alembic import op
import sqlalchemy as sa

revision = "0017"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "card_book_cache",
        sa.Column("work_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column(
            "token",
            sa.String(length=32),
            nullable=False,
            comment="knowledge_versions.token the payload was read at; any other token: stale",
        ),
        sa.Column(
            "format",
            sa.String(length=32),
            nullable=False,
            comment="payload layout; another one: ignored",
        ),
        sa.Column(
            "payload",
            sa.LargeBinary(),
            nullable=False,
            comment="the work's confirmed cards as plain rows (card_rows.py), marshal-encoded",
        ),
        sa.ForeignKeyConstraint(["work_id"], ["works.id"]),
        sa.PrimaryKeyConstraint("work_id"),
        comment=(
            "Derived, disposable: a work's confirmed cards as one blob, so that a new process reads "
            "them with one query. Valid only while its token is the work's current change token."
        ),
    )


def downgrade() -> None:
    op.drop_table("card_book_cache")
