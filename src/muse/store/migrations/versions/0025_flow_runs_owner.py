"""flow: runs.owner, the process that last moved the run

A run whose process died (a server restart, a killed ``muse write``) stays in its working node
until its deadline. ``owner`` names the process that last moved it — ``host|boot id|pid|start
time`` (``muse.core.process``) — so the sweep and the workbench can tell, on the same host, that
the owner is gone and end the run at once (已中断). NULL for runs moved before this revision:
their owner is unknown and they are left to their deadline, as before.

Revision ID: 0025
Revises: 0023 (the flow tables, through the evaluation zone's merge of the flow branch)
"""

import sqlalchemy as sa
from alembic import op

revision = "0025"
down_revision = "0023"
branch_labels = None
depends_on = None


# A plain ADD/DROP COLUMN, not a batch: SQLite's batch copy of ``runs`` would break the
# state-machine triggers of ``candidates`` that name it.


def upgrade() -> None:
    op.add_column(
        "runs",
        sa.Column(
            "owner",
            sa.String(length=200),
            nullable=True,
            comment="process that last moved the run (host|boot id|pid|start); NULL: before 0025",
        ),
    )


def downgrade() -> None:
    op.drop_column("runs", "owner")
