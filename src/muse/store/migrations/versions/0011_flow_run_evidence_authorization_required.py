"""flow: run evidence for needs_evidence, the authorization_required state, triggers re-installed

Spec 001 §6 (needs_evidence): when the semantic detector lacks evidence, Muse searches the as-of
view for each gap. Every gap and what became of it is a row of ``run_evidence``:

* ``outcome`` ``found``: ``fact_evidence`` holds the factEvidence found (chapter, revision,
  offsets, sha256, text, or a confirmed card's state); the run stops in ``authorization_required``.
* ``new_setting``: nothing found; ``new_setting`` holds the new-setting candidate offered to the
  author (NULL for every other outcome).
* ``conflict``: the gap touches canon that is in conflict, or a declared "new" setting collides
  with a confirmed one; the run fails closed (``blocked_user_action``).
* ``undetermined``: the gap could not be searched (no subject, no index); the author decides.

``muse.flow.states`` gains the terminal run state ``authorization_required`` (detecting →
authorization_required), so the state-machine triggers are dropped and installed again from the
table as it is now (``muse.flow.triggers``). Downgrading drops the table and re-installs the
triggers from the code of that time, which is this code: the 0010 table cannot be regenerated.

Revision ID: 0011
Revises: 0010
"""

from alembic import op
import sqlalchemy as sa
import muse.store.metadata
from sqlalchemy.dialects import postgresql

from muse.flow import triggers

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

_JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def _reinstall_triggers() -> None:
    dialect = op.get_bind().dialect.name
    for statement in triggers.drop_statements(dialect) + triggers.install_statements(dialect):
        op.execute(statement)


def upgrade() -> None:
    op.create_table(
        "run_evidence",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("run_id", sa.String(length=40), nullable=False),
        sa.Column(
            "attempt",
            sa.Integer(),
            nullable=False,
            comment="the writer attempt whose check had the gap",
        ),
        sa.Column("candidate_id", sa.String(length=40), nullable=False),
        sa.Column(
            "gap_index", sa.Integer(), nullable=False, comment="position of the gap in the report"
        ),
        sa.Column(
            "subject", sa.Text(), nullable=False, comment="what the detector lacked evidence for"
        ),
        sa.Column("needed", sa.Text(), nullable=False, comment="what evidence it said was needed"),
        sa.Column(
            "origin",
            sa.String(length=32),
            nullable=False,
            comment="model | unverifiable_blocking | verdict_without_issue",
        ),
        sa.Column(
            "outcome",
            sa.String(length=16),
            nullable=False,
            comment="found | new_setting | conflict | undetermined (spec 001 §6 needs_evidence)",
        ),
        sa.Column(
            "fact_evidence",
            _JSON,
            nullable=False,
            comment="factEvidence found in the as-of view for this gap; [] when none",
        ),
        sa.Column(
            "new_setting",
            _JSON,
            nullable=True,
            comment="the new-setting candidate offered to the author; NULL unless outcome new_setting",
        ),
        sa.Column(
            "note", sa.Text(), nullable=False, comment="why this outcome, for the author (Chinese)"
        ),
        sa.Column("created_at", muse.store.metadata.UtcDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["candidate_id"],
            ["candidates.id"],
            name=op.f("fk_run_evidence_candidate_id_candidates"),
        ),
        sa.ForeignKeyConstraint(["run_id"], ["runs.id"], name=op.f("fk_run_evidence_run_id_runs")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_run_evidence")),
    )
    op.create_index("ix_run_evidence_run", "run_evidence", ["run_id", "attempt"], unique=False)
    _reinstall_triggers()


def downgrade() -> None:
    op.drop_index("ix_run_evidence_run", table_name="run_evidence")
    op.drop_table("run_evidence")
    _reinstall_triggers()
