"""evaluation zone: sets, runs, arms, judgements (spec 000 §10; issue 16)

* ``eval_sets``: preregistered evaluation sets, immutable (UPDATE/DELETE refused by triggers);
  ``version`` is evaluationSetVersion, ``sha256`` the hash of the set's canonical JSON.
* ``eval_runs``: one writer-eval-v1 run per sample; ``labels`` are the random anonymous
  candidate labels of the three arms; ``reason`` NULL while running; ``final`` NULL until a
  report state. The transition table of ``muse.evaluation.states`` is installed as triggers.
* ``eval_arms``: one row per (evaluation run, arm): the arm's ``runs`` row (run_type
  evaluation), its candidate (NULL until the writer's reply is stored) and its check summary
  (NULL until checked).
* ``eval_judgements``: one stored judge sheet per (evaluation run, judge 1 | 2 | 3).
* ``candidate_judgements``: the on-demand judge of a production candidate.

Revision ID: 0020
Revises: 0017, 0011 (the flow tables it references)
"""

from alembic import op
import sqlalchemy as sa
import muse.store.metadata
from sqlalchemy.dialects import postgresql

from muse.store.immutable import drop_immutable, make_immutable

revision = "0020"
down_revision = ("0017", "0011")  # also merges the flow branch: runs and candidates must exist
branch_labels = None
depends_on = None

# The writer-eval-v1 transition triggers as they were when this migration was written, frozen
# (muse.evaluation.triggers may change later; an old migration must not).
_INSTALL = {
    "sqlite": [
        "CREATE TRIGGER eval_runs_sm_insert BEFORE INSERT ON eval_runs FOR EACH ROW BEGIN\n  SELECT RAISE(ABORT, 'muse: eval_runs: a row must be inserted as preregistered with revision 0') WHERE NEW.state NOT IN ('preregistered') OR NEW.revision IS NOT 0;\nEND",
        "CREATE TRIGGER eval_runs_sm_update BEFORE UPDATE ON eval_runs FOR EACH ROW BEGIN\n  SELECT RAISE(ABORT, 'muse: eval_runs: identity columns are immutable') WHERE NEW.id IS NOT OLD.id OR NEW.set_id IS NOT OLD.set_id OR NEW.sample_key IS NOT OLD.sample_key OR NEW.work_id IS NOT OLD.work_id OR NEW.target_chapter IS NOT OLD.target_chapter OR NEW.as_of IS NOT OLD.as_of OR NEW.scene_class IS NOT OLD.scene_class OR NEW.quality_policy_version IS NOT OLD.quality_policy_version OR CAST(NEW.labels AS TEXT) IS NOT CAST(OLD.labels AS TEXT);\n  SELECT RAISE(ABORT, 'muse: eval_runs: a terminal state never moves') WHERE NEW.state IS NOT OLD.state AND OLD.state IN ('adjudicated_report', 'failed_authorization', 'failed_contract', 'failed_freeze', 'failed_model', 'invalid_unstable', 'stable_report');\n  SELECT RAISE(ABORT, 'muse: eval_runs: state change not in the writer-eval-v1 table') WHERE NEW.state IS NOT OLD.state AND (OLD.state || '>' || NEW.state) NOT IN ('adjudicating>adjudicated_report', 'adjudicating>failed_contract', 'adjudicating>failed_model', 'adjudicating>invalid_unstable', 'detecting>failed_contract', 'detecting>failed_model', 'detecting>judging_pair', 'generating>detecting', 'generating>failed_authorization', 'generating>failed_contract', 'generating>failed_freeze', 'generating>failed_model', 'judging_pair>adjudicating', 'judging_pair>failed_contract', 'judging_pair>failed_model', 'judging_pair>stable_report', 'preregistered>failed_authorization', 'preregistered>failed_freeze', 'preregistered>generating');\n  SELECT RAISE(ABORT, 'muse: eval_runs: revision must increase by exactly 1 with each state change') WHERE (NEW.state IS NOT OLD.state AND NEW.revision IS NOT OLD.revision + 1) OR (NEW.state IS OLD.state AND NEW.revision IS NOT OLD.revision);\nEND",
    ],
    "postgresql": [
        "CREATE OR REPLACE FUNCTION muse_eval_runs_state_machine() RETURNS trigger AS $$\nBEGIN\n  IF TG_OP = 'INSERT' THEN\n    IF NEW.state NOT IN ('preregistered') OR NEW.revision <> 0 THEN\n      RAISE EXCEPTION USING MESSAGE = 'muse: eval_runs: a row must be inserted as preregistered with revision 0', DETAIL = 'row ' || NEW.id, ERRCODE = 'check_violation';\n    END IF;\n    RETURN NEW;\n  END IF;\n  IF ROW(NEW.id, NEW.set_id, NEW.sample_key, NEW.work_id, NEW.target_chapter, NEW.as_of, NEW.scene_class, NEW.quality_policy_version, NEW.labels::text) IS DISTINCT FROM ROW(OLD.id, OLD.set_id, OLD.sample_key, OLD.work_id, OLD.target_chapter, OLD.as_of, OLD.scene_class, OLD.quality_policy_version, OLD.labels::text) THEN\n    RAISE EXCEPTION USING MESSAGE = 'muse: eval_runs: identity columns are immutable', DETAIL = 'row ' || NEW.id, ERRCODE = 'check_violation';\n  END IF;\n  IF NEW.state IS DISTINCT FROM OLD.state THEN\n    IF OLD.state IN ('adjudicated_report', 'failed_authorization', 'failed_contract', 'failed_freeze', 'failed_model', 'invalid_unstable', 'stable_report') THEN RAISE EXCEPTION USING MESSAGE = 'muse: eval_runs: a terminal state never moves', DETAIL = 'row ' || NEW.id, ERRCODE = 'check_violation';\n    END IF;\n    IF (OLD.state || '>' || NEW.state) NOT IN ('adjudicating>adjudicated_report', 'adjudicating>failed_contract', 'adjudicating>failed_model', 'adjudicating>invalid_unstable', 'detecting>failed_contract', 'detecting>failed_model', 'detecting>judging_pair', 'generating>detecting', 'generating>failed_authorization', 'generating>failed_contract', 'generating>failed_freeze', 'generating>failed_model', 'judging_pair>adjudicating', 'judging_pair>failed_contract', 'judging_pair>failed_model', 'judging_pair>stable_report', 'preregistered>failed_authorization', 'preregistered>failed_freeze', 'preregistered>generating') THEN\n      RAISE EXCEPTION USING MESSAGE = 'muse: eval_runs: state change not in the writer-eval-v1 table', DETAIL = 'row ' || NEW.id, ERRCODE = 'check_violation';\n    END IF;\n    IF NEW.revision IS DISTINCT FROM OLD.revision + 1 THEN\n      RAISE EXCEPTION USING MESSAGE = 'muse: eval_runs: revision must increase by exactly 1 with each state change', DETAIL = 'row ' || NEW.id, ERRCODE = 'check_violation';\n    END IF;\n  ELSIF NEW.revision IS DISTINCT FROM OLD.revision THEN\n    RAISE EXCEPTION USING MESSAGE = 'muse: eval_runs: revision must increase by exactly 1 with each state change', DETAIL = 'row ' || NEW.id, ERRCODE = 'check_violation';\n  END IF;\n  RETURN NEW;\nEND;\n$$ LANGUAGE plpgsql",
        "CREATE TRIGGER eval_runs_state_machine BEFORE INSERT OR UPDATE ON eval_runs FOR EACH ROW EXECUTE FUNCTION muse_eval_runs_state_machine()",
    ],
}
_DROP = {
    "sqlite": [
        "DROP TRIGGER IF EXISTS eval_runs_sm_insert",
        "DROP TRIGGER IF EXISTS eval_runs_sm_update",
    ],
    "postgresql": [
        "DROP TRIGGER IF EXISTS eval_runs_state_machine ON eval_runs",
        "DROP FUNCTION IF EXISTS muse_eval_runs_state_machine()",
    ],
}


def upgrade() -> None:
    op.create_table(
        "eval_sets",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("version", sa.String(length=80), nullable=False, comment="evaluationSetVersion"),
        sa.Column(
            "sha256",
            sa.String(length=64),
            nullable=False,
            comment="sha256 of the canonical JSON of the set as preregistered",
        ),
        sa.Column(
            "document",
            sa.JSON().with_variant(postgresql.JSONB(), "postgresql"),
            nullable=False,
            comment="the validated set, as preregistered",
        ),
        sa.Column("dry_run", sa.Boolean(), nullable=False, comment="judged by the offline model"),
        sa.Column("created_at", muse.store.metadata.UtcDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_eval_sets")),
        sa.UniqueConstraint("sha256", name=op.f("uq_eval_sets_sha256")),
        sa.UniqueConstraint("version", name=op.f("uq_eval_sets_version")),
        comment="Preregistered evaluation sets; immutable (a changed file is a new version).",
    )
    op.create_table(
        "eval_runs",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("set_id", sa.String(length=40), nullable=False),
        sa.Column(
            "sample_key", sa.String(length=40), nullable=False, comment="sampleId of the set"
        ),
        sa.Column("work_id", sa.Integer(), nullable=False),
        sa.Column(
            "target_chapter",
            sa.Integer(),
            nullable=False,
            comment="N; chapter N onward is the oracle",
        ),
        sa.Column("as_of", sa.Integer(), nullable=False, comment="N - 1"),
        sa.Column("scene_class", sa.String(length=16), nullable=False),
        sa.Column(
            "quality_policy_version", sa.String(length=40), nullable=False, comment="writer-eval-v1"
        ),
        sa.Column(
            "labels",
            sa.JSON().with_variant(postgresql.JSONB(), "postgresql"),
            nullable=False,
            comment="arm → random anonymous candidate label, drawn at preregistration",
        ),
        sa.Column("state", sa.String(length=32), nullable=False),
        sa.Column(
            "revision",
            sa.Integer(),
            nullable=False,
            comment="transition counter for compare-and-set",
        ),
        sa.Column(
            "reason", sa.Text(), nullable=True, comment="why it ended where it did; NULL: running"
        ),
        sa.Column(
            "final",
            sa.JSON().with_variant(postgresql.JSONB(), "postgresql"),
            nullable=True,
            comment="arm → dimension → final score; NULL until a report state",
        ),
        sa.Column("created_at", muse.store.metadata.UtcDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", muse.store.metadata.UtcDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["set_id"], ["eval_sets.id"], name=op.f("fk_eval_runs_set_id_eval_sets")
        ),
        sa.ForeignKeyConstraint(["work_id"], ["works.id"], name=op.f("fk_eval_runs_work_id_works")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_eval_runs")),
        sa.UniqueConstraint("set_id", "sample_key", name="uq_eval_runs_sample"),
        comment="One writer-eval-v1 run per preregistered sample.",
    )
    op.create_table(
        "eval_judgements",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("eval_run_id", sa.String(length=40), nullable=False),
        sa.Column(
            "judge_index", sa.Integer(), nullable=False, comment="1, 2 (reversed order), 3 (third)"
        ),
        sa.Column(
            "order",
            sa.JSON().with_variant(postgresql.JSONB(), "postgresql"),
            nullable=False,
            comment="candidate labels in presented order",
        ),
        sa.Column("receipt_id", sa.String(length=40), nullable=False),
        sa.Column(
            "sheet",
            sa.JSON().with_variant(postgresql.JSONB(), "postgresql"),
            nullable=False,
            comment="label → dimension → {score, reason, quotes}",
        ),
        sa.Column("created_at", muse.store.metadata.UtcDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["eval_run_id"], ["eval_runs.id"], name=op.f("fk_eval_judgements_eval_run_id_eval_runs")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_eval_judgements")),
        sa.UniqueConstraint("eval_run_id", "judge_index", name="uq_eval_judgements_judge"),
    )
    op.create_table(
        "candidate_judgements",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("candidate_id", sa.String(length=40), nullable=False),
        sa.Column("provider", sa.String(length=64), nullable=False),
        sa.Column("model", sa.String(length=128), nullable=False),
        sa.Column("receipt_id", sa.String(length=40), nullable=False),
        sa.Column(
            "sheet",
            sa.JSON().with_variant(postgresql.JSONB(), "postgresql"),
            nullable=False,
            comment="dimension → {score, reason, quotes}",
        ),
        sa.Column("created_at", muse.store.metadata.UtcDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["candidate_id"],
            ["candidates.id"],
            name=op.f("fk_candidate_judgements_candidate_id_candidates"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_candidate_judgements")),
        comment="On-demand judge of a production candidate (spec 000 §3.1): never blocks or moves.",
    )
    op.create_table(
        "eval_arms",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("eval_run_id", sa.String(length=40), nullable=False),
        sa.Column("arm", sa.String(length=1), nullable=False, comment="A | B | C"),
        sa.Column("run_id", sa.String(length=40), nullable=False),
        sa.Column(
            "candidate_id",
            sa.String(length=40),
            nullable=True,
            comment="NULL until the writer's reply is stored",
        ),
        sa.Column("writer_receipt_id", sa.String(length=40), nullable=True),
        sa.Column(
            "check",
            sa.JSON().with_variant(postgresql.JSONB(), "postgresql"),
            nullable=True,
            comment="detector outcome, high-severity and leak counts, hard coverage; NULL: unchecked",
        ),
        sa.Column("created_at", muse.store.metadata.UtcDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", muse.store.metadata.UtcDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["candidate_id"], ["candidates.id"], name=op.f("fk_eval_arms_candidate_id_candidates")
        ),
        sa.ForeignKeyConstraint(
            ["eval_run_id"], ["eval_runs.id"], name=op.f("fk_eval_arms_eval_run_id_eval_runs")
        ),
        sa.ForeignKeyConstraint(["run_id"], ["runs.id"], name=op.f("fk_eval_arms_run_id_runs")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_eval_arms")),
        sa.UniqueConstraint("eval_run_id", "arm", name="uq_eval_arms_arm"),
    )
    make_immutable("eval_sets")
    for statement in _INSTALL[op.get_bind().dialect.name]:
        op.execute(statement)


def downgrade() -> None:
    for statement in _DROP[op.get_bind().dialect.name]:
        op.execute(statement)
    drop_immutable("eval_sets")
    op.drop_table("eval_arms")
    op.drop_table("candidate_judgements")
    op.drop_table("eval_judgements")
    op.drop_table("eval_runs")
    op.drop_table("eval_sets")
