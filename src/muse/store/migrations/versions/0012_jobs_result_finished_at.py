"""foundation: job results

The worker (``muse worker``) records how a job ended, so that ``muse jobs`` and the dashboard can
show it (ARCHITECTURE.md principle 1: what cannot be shown was not stored):

* ``result``: a JSON document written by the job's handler in the same transaction that marks the
  job done (counts and ids of what it produced, the deltas it refused, or ``skipped`` with the
  reason). NULL: the job has not finished, or it failed (the reason is in ``last_error``).
* ``finished_at``: when the job ended ``done`` or ``failed``. NULL: queued or running.

Revision ID: 0012
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

import muse.store.metadata

revision = "0012"
down_revision = "0001"
branch_labels = ("jobs",)
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("jobs", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "result",
                sa.JSON().with_variant(postgresql.JSONB(), "postgresql"),
                nullable=True,
                comment="what the finished job did (counts, ids, skip reason); NULL: not finished",
            )
        )
        batch_op.add_column(
            sa.Column(
                "finished_at",
                muse.store.metadata.UtcDateTime(timezone=True),
                nullable=True,
                comment="when it ended done or failed; NULL: queued or running",
            )
        )


def downgrade() -> None:
    with op.batch_alter_table("jobs", schema=None) as batch_op:
        batch_op.drop_column("finished_at")
        batch_op.drop_column("result")
