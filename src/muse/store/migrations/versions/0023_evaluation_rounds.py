"""evaluation: offline optimisation rounds (spec 000 §10; issue 16)

* ``eval_rounds``: at most five rounds per base set (a check constraint and a unique
  (base_set_id, number)), each changing exactly one declared variable of the previous round
  and evaluated as its own preregistered set (``set_id``); ``state`` declared → evaluating →
  reported, moved by compare-and-set on ``revision``.

Revision ID: 0023
Revises: 0020
"""

from alembic import op
import sqlalchemy as sa
import muse.store.metadata

revision = "0023"
down_revision = "0020"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "eval_rounds",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column(
            "base_set_id",
            sa.String(length=40),
            nullable=False,
            comment="the preregistered set the optimisation starts from (round 0)",
        ),
        sa.Column("number", sa.Integer(), nullable=False, comment="1..5"),
        sa.Column(
            "variable",
            sa.String(length=64),
            nullable=False,
            comment="the one declared variable changed",
        ),
        sa.Column(
            "previous_value",
            sa.Integer(),
            nullable=False,
            comment="its value in the previous round",
        ),
        sa.Column("value", sa.Integer(), nullable=False, comment="its value in this round"),
        sa.Column(
            "set_id",
            sa.String(length=40),
            nullable=False,
            comment="the round's own preregistered set: the previous round's with one variable changed",
        ),
        sa.Column(
            "state",
            sa.String(length=16),
            nullable=False,
            comment="declared | evaluating | reported",
        ),
        sa.Column(
            "revision",
            sa.Integer(),
            nullable=False,
            comment="transition counter for compare-and-set",
        ),
        sa.Column("created_at", muse.store.metadata.UtcDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", muse.store.metadata.UtcDateTime(timezone=True), nullable=False),
        sa.CheckConstraint("number BETWEEN 1 AND 5", name=op.f("ck_eval_rounds_at_most_five")),
        sa.CheckConstraint(
            "state IN ('declared', 'evaluating', 'reported')", name=op.f("ck_eval_rounds_state")
        ),
        sa.ForeignKeyConstraint(
            ["base_set_id"], ["eval_sets.id"], name=op.f("fk_eval_rounds_base_set_id_eval_sets")
        ),
        sa.ForeignKeyConstraint(
            ["set_id"], ["eval_sets.id"], name=op.f("fk_eval_rounds_set_id_eval_sets")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_eval_rounds")),
        sa.UniqueConstraint("base_set_id", "number", name="uq_eval_rounds_number"),
        sa.UniqueConstraint("set_id", name=op.f("uq_eval_rounds_set_id")),
        comment="Offline optimisation rounds (spec 000 §10): at most 5, one declared variable each.",
    )


def downgrade() -> None:
    op.drop_table("eval_rounds")
