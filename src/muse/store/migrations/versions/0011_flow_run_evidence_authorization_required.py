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
authorization_required), so the state-machine triggers are dropped and installed again with the
SQL ``muse.flow.triggers`` generated from the table of this revision, frozen below. Downgrading
drops the table and re-installs the same triggers (as it always has: the downgrade keeps
``authorization_required`` allowed).

Revision ID: 0011
Revises: 0010
"""

from alembic import op
import sqlalchemy as sa
import muse.store.metadata
from sqlalchemy.dialects import postgresql

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

_JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def _reinstall_triggers() -> None:
    dialect = op.get_bind().dialect.name
    for statement in _DROP[dialect] + _INSTALL[dialect]:
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


# --- frozen SQL (generated once from muse.flow.triggers; never regenerate) ---

_INSTALL_SQLITE = (
    """CREATE TRIGGER runs_sm_insert BEFORE INSERT ON runs FOR EACH ROW BEGIN
  SELECT RAISE(ABORT, 'muse: runs: a row must be inserted in an initial state with revision 0') WHERE NEW.state NOT IN ('validating_context') OR NEW.revision IS NOT 0;
END""",
    """CREATE TRIGGER runs_sm_update BEFORE UPDATE ON runs FOR EACH ROW BEGIN
  SELECT RAISE(ABORT, 'muse: runs: identity columns are immutable') WHERE NEW.id IS NOT OLD.id OR NEW.work_id IS NOT OLD.work_id OR NEW.target_chapter IS NOT OLD.target_chapter OR NEW.run_type IS NOT OLD.run_type OR NEW.mode IS NOT OLD.mode OR NEW.quality_policy_version IS NOT OLD.quality_policy_version;
  SELECT RAISE(ABORT, 'muse: runs: a terminal state never moves') WHERE NEW.state IS NOT OLD.state AND OLD.state IN ('accept_preflight_timeout', 'authorization_required', 'authorization_stale', 'blocked_user_action', 'detecting_timeout', 'discarded', 'edited_candidate_timeout', 'extraction_queued', 'failed', 'quality_stale', 'retrieving_timeout', 'revision_conflict', 'rewriting_timeout', 'source_stale', 'validating_context_timeout', 'writing_timeout');
  SELECT RAISE(ABORT, 'muse: runs: state change not in the transition table') WHERE NEW.state IS NOT OLD.state AND (OLD.state || '>' || NEW.state) NOT IN ('accept_preflight>accept_preflight_timeout', 'accept_preflight>accepted', 'accept_preflight>authorization_stale', 'accept_preflight>quality_stale', 'accept_preflight>revision_conflict', 'accept_preflight>source_stale', 'accepted>canonical_committed', 'canonical_committed>extraction_queued', 'detecting>authorization_required', 'detecting>blocked_user_action', 'detecting>detecting_timeout', 'detecting>failed', 'detecting>rewriting', 'detecting>shadow_ready', 'edited_candidate>detecting', 'edited_candidate>edited_candidate_timeout', 'retrieving>blocked_user_action', 'retrieving>failed', 'retrieving>retrieving_timeout', 'retrieving>writing', 'rewriting>detecting', 'rewriting>failed', 'rewriting>rewriting_timeout', 'shadow_ready>accept_preflight', 'shadow_ready>discarded', 'shadow_ready>edited_candidate', 'validating_context>authorization_stale', 'validating_context>failed', 'validating_context>retrieving', 'validating_context>validating_context_timeout', 'writing>detecting', 'writing>failed', 'writing>writing_timeout');
  SELECT RAISE(ABORT, 'muse: runs: revision must increase by exactly 1 with each state change') WHERE (NEW.state IS NOT OLD.state AND NEW.revision IS NOT OLD.revision + 1) OR (NEW.state IS OLD.state AND NEW.revision IS NOT OLD.revision);
  SELECT RAISE(ABORT, 'muse: runs: attempt never decreases') WHERE NEW.attempt < OLD.attempt;
END""",
    """CREATE TRIGGER candidates_sm_insert BEFORE INSERT ON candidates FOR EACH ROW BEGIN
  SELECT RAISE(ABORT, 'muse: candidates: a row must be inserted in an initial state with revision 0') WHERE NEW.state NOT IN ('DRAFT') OR NEW.revision IS NOT 0;
  SELECT RAISE(ABORT, 'muse: candidates: only a candidate of a production run can be acceptance eligible') WHERE NEW.acceptance_eligible AND NOT EXISTS (SELECT 1 FROM runs WHERE runs.id = NEW.run_id AND runs.run_type = 'production' AND runs.mode = 'production');
END""",
    """CREATE TRIGGER candidates_sm_update BEFORE UPDATE ON candidates FOR EACH ROW BEGIN
  SELECT RAISE(ABORT, 'muse: candidates: identity columns are immutable') WHERE NEW.id IS NOT OLD.id OR NEW.run_id IS NOT OLD.run_id OR NEW.work_id IS NOT OLD.work_id OR NEW.chapter IS NOT OLD.chapter OR NEW.version IS NOT OLD.version OR NEW.sha256 IS NOT OLD.sha256 OR NEW.body IS NOT OLD.body OR NEW.acceptance_eligible IS NOT OLD.acceptance_eligible;
  SELECT RAISE(ABORT, 'muse: candidates: a terminal state never moves') WHERE NEW.state IS NOT OLD.state AND OLD.state IN ('ACCEPTED', 'ARCHIVED', 'DISCARDED', 'REJECTED');
  SELECT RAISE(ABORT, 'muse: candidates: state change not in the transition table') WHERE NEW.state IS NOT OLD.state AND (OLD.state || '>' || NEW.state) NOT IN ('CHECKING>DISCARDED', 'CHECKING>PASSED', 'CHECKING>REJECTED', 'DRAFT>CHECKING', 'DRAFT>DISCARDED', 'PASSED>ACCEPTED', 'PASSED>ARCHIVED', 'PASSED>DISCARDED');
  SELECT RAISE(ABORT, 'muse: candidates: revision must increase by exactly 1 with each state change') WHERE (NEW.state IS NOT OLD.state AND NEW.revision IS NOT OLD.revision + 1) OR (NEW.state IS OLD.state AND NEW.revision IS NOT OLD.revision);
  SELECT RAISE(ABORT, 'muse: candidates: only an eligible candidate of a production run can be ACCEPTED') WHERE NEW.state IS NOT OLD.state AND NEW.state = 'ACCEPTED' AND (NOT NEW.acceptance_eligible OR NOT EXISTS (SELECT 1 FROM runs WHERE runs.id = NEW.run_id AND runs.run_type = 'production' AND runs.mode = 'production'));
END""",
)

_DROP_SQLITE = (
    """DROP TRIGGER IF EXISTS runs_sm_insert""",
    """DROP TRIGGER IF EXISTS runs_sm_update""",
    """DROP TRIGGER IF EXISTS candidates_sm_insert""",
    """DROP TRIGGER IF EXISTS candidates_sm_update""",
)

_INSTALL_POSTGRESQL = (
    """CREATE OR REPLACE FUNCTION muse_runs_state_machine() RETURNS trigger AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NEW.state NOT IN ('validating_context') OR NEW.revision <> 0 THEN
      RAISE EXCEPTION USING MESSAGE = 'muse: runs: a row must be inserted in an initial state with revision 0', DETAIL = 'row ' || NEW.id, ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
  END IF;
  IF ROW(NEW.id, NEW.work_id, NEW.target_chapter, NEW.run_type, NEW.mode, NEW.quality_policy_version) IS DISTINCT FROM ROW(OLD.id, OLD.work_id, OLD.target_chapter, OLD.run_type, OLD.mode, OLD.quality_policy_version) THEN
    RAISE EXCEPTION USING MESSAGE = 'muse: runs: identity columns are immutable', DETAIL = 'row ' || OLD.id, ERRCODE = 'check_violation';
  END IF;
  IF NEW.state IS DISTINCT FROM OLD.state THEN
    IF OLD.state IN ('accept_preflight_timeout', 'authorization_required', 'authorization_stale', 'blocked_user_action', 'detecting_timeout', 'discarded', 'edited_candidate_timeout', 'extraction_queued', 'failed', 'quality_stale', 'retrieving_timeout', 'revision_conflict', 'rewriting_timeout', 'source_stale', 'validating_context_timeout', 'writing_timeout') THEN
      RAISE EXCEPTION USING MESSAGE = 'muse: runs: a terminal state never moves', DETAIL = 'row ' || NEW.id || ': ' || OLD.state || ' -> ' || NEW.state, ERRCODE = 'check_violation';
    END IF;
    IF (OLD.state || '>' || NEW.state) NOT IN ('accept_preflight>accept_preflight_timeout', 'accept_preflight>accepted', 'accept_preflight>authorization_stale', 'accept_preflight>quality_stale', 'accept_preflight>revision_conflict', 'accept_preflight>source_stale', 'accepted>canonical_committed', 'canonical_committed>extraction_queued', 'detecting>authorization_required', 'detecting>blocked_user_action', 'detecting>detecting_timeout', 'detecting>failed', 'detecting>rewriting', 'detecting>shadow_ready', 'edited_candidate>detecting', 'edited_candidate>edited_candidate_timeout', 'retrieving>blocked_user_action', 'retrieving>failed', 'retrieving>retrieving_timeout', 'retrieving>writing', 'rewriting>detecting', 'rewriting>failed', 'rewriting>rewriting_timeout', 'shadow_ready>accept_preflight', 'shadow_ready>discarded', 'shadow_ready>edited_candidate', 'validating_context>authorization_stale', 'validating_context>failed', 'validating_context>retrieving', 'validating_context>validating_context_timeout', 'writing>detecting', 'writing>failed', 'writing>writing_timeout') THEN
      RAISE EXCEPTION USING MESSAGE = 'muse: runs: state change not in the transition table', DETAIL = 'row ' || NEW.id || ': ' || OLD.state || ' -> ' || NEW.state, ERRCODE = 'check_violation';
    END IF;
    IF NEW.revision IS DISTINCT FROM OLD.revision + 1 THEN
      RAISE EXCEPTION USING MESSAGE = 'muse: runs: revision must increase by exactly 1 with each state change', DETAIL = 'row ' || NEW.id || ': ' || OLD.state || ' -> ' || NEW.state, ERRCODE = 'check_violation';
    END IF;
  ELSIF NEW.revision IS DISTINCT FROM OLD.revision THEN
    RAISE EXCEPTION USING MESSAGE = 'muse: runs: revision must increase by exactly 1 with each state change', DETAIL = 'row ' || NEW.id, ERRCODE = 'check_violation';
  END IF;
  IF NEW.attempt < OLD.attempt THEN
    RAISE EXCEPTION USING MESSAGE = 'muse: runs: attempt never decreases', DETAIL = 'row ' || NEW.id, ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END;
$$ LANGUAGE plpgsql""",
    """CREATE TRIGGER runs_state_machine BEFORE INSERT OR UPDATE ON runs FOR EACH ROW EXECUTE FUNCTION muse_runs_state_machine()""",
    """CREATE OR REPLACE FUNCTION muse_candidates_state_machine() RETURNS trigger AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NEW.state NOT IN ('DRAFT') OR NEW.revision <> 0 THEN
      RAISE EXCEPTION USING MESSAGE = 'muse: candidates: a row must be inserted in an initial state with revision 0', DETAIL = 'row ' || NEW.id, ERRCODE = 'check_violation';
    END IF;
    IF NEW.acceptance_eligible AND NOT EXISTS (SELECT 1 FROM runs WHERE runs.id = NEW.run_id AND runs.run_type = 'production' AND runs.mode = 'production') THEN
      RAISE EXCEPTION USING MESSAGE = 'muse: candidates: only a candidate of a production run can be acceptance eligible', DETAIL = 'row ' || NEW.id, ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
  END IF;
  IF ROW(NEW.id, NEW.run_id, NEW.work_id, NEW.chapter, NEW.version, NEW.sha256, NEW.body, NEW.acceptance_eligible) IS DISTINCT FROM ROW(OLD.id, OLD.run_id, OLD.work_id, OLD.chapter, OLD.version, OLD.sha256, OLD.body, OLD.acceptance_eligible) THEN
    RAISE EXCEPTION USING MESSAGE = 'muse: candidates: identity columns are immutable', DETAIL = 'row ' || OLD.id, ERRCODE = 'check_violation';
  END IF;
  IF NEW.state IS DISTINCT FROM OLD.state THEN
    IF OLD.state IN ('ACCEPTED', 'ARCHIVED', 'DISCARDED', 'REJECTED') THEN
      RAISE EXCEPTION USING MESSAGE = 'muse: candidates: a terminal state never moves', DETAIL = 'row ' || NEW.id || ': ' || OLD.state || ' -> ' || NEW.state, ERRCODE = 'check_violation';
    END IF;
    IF (OLD.state || '>' || NEW.state) NOT IN ('CHECKING>DISCARDED', 'CHECKING>PASSED', 'CHECKING>REJECTED', 'DRAFT>CHECKING', 'DRAFT>DISCARDED', 'PASSED>ACCEPTED', 'PASSED>ARCHIVED', 'PASSED>DISCARDED') THEN
      RAISE EXCEPTION USING MESSAGE = 'muse: candidates: state change not in the transition table', DETAIL = 'row ' || NEW.id || ': ' || OLD.state || ' -> ' || NEW.state, ERRCODE = 'check_violation';
    END IF;
    IF NEW.revision IS DISTINCT FROM OLD.revision + 1 THEN
      RAISE EXCEPTION USING MESSAGE = 'muse: candidates: revision must increase by exactly 1 with each state change', DETAIL = 'row ' || NEW.id || ': ' || OLD.state || ' -> ' || NEW.state, ERRCODE = 'check_violation';
    END IF;
  ELSIF NEW.revision IS DISTINCT FROM OLD.revision THEN
    RAISE EXCEPTION USING MESSAGE = 'muse: candidates: revision must increase by exactly 1 with each state change', DETAIL = 'row ' || NEW.id, ERRCODE = 'check_violation';
  END IF;
  IF NEW.state IS DISTINCT FROM OLD.state AND NEW.state = 'ACCEPTED'
     AND (NOT NEW.acceptance_eligible OR NOT EXISTS (SELECT 1 FROM runs WHERE runs.id = NEW.run_id AND runs.run_type = 'production' AND runs.mode = 'production')) THEN
    RAISE EXCEPTION USING MESSAGE = 'muse: candidates: only an eligible candidate of a production run can be ACCEPTED', DETAIL = 'row ' || NEW.id || ': ' || OLD.state || ' -> ' || NEW.state, ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END;
$$ LANGUAGE plpgsql""",
    """CREATE TRIGGER candidates_state_machine BEFORE INSERT OR UPDATE ON candidates FOR EACH ROW EXECUTE FUNCTION muse_candidates_state_machine()""",
)

_DROP_POSTGRESQL = (
    """DROP TRIGGER IF EXISTS runs_state_machine ON runs""",
    """DROP FUNCTION IF EXISTS muse_runs_state_machine()""",
    """DROP TRIGGER IF EXISTS candidates_state_machine ON candidates""",
    """DROP FUNCTION IF EXISTS muse_candidates_state_machine()""",
)

_INSTALL = {"sqlite": _INSTALL_SQLITE, "postgresql": _INSTALL_POSTGRESQL}
_DROP = {"sqlite": _DROP_SQLITE, "postgresql": _DROP_POSTGRESQL}
