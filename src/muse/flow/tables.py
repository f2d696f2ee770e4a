"""Runs, candidates, node events and author decisions.

``revision`` columns count transitions: every state change is ``UPDATE … WHERE id = :id AND
state = :expected AND revision = :rev`` and sets ``revision = :rev + 1``.
"""

from sqlalchemy import (
    Boolean,
    CheckConstraint,
    Column,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    Text,
)

from muse.store.metadata import JsonDoc, UtcDateTime, metadata

runs = Table(
    "runs",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("work_id", Integer, ForeignKey("works.id"), nullable=False),
    Column("target_chapter", Integer, nullable=False),
    Column(
        "run_type",
        String(16),
        nullable=False,
        comment="production | evaluation; fixed at insert, decides acceptance eligibility",
    ),
    Column("mode", String(20), nullable=False, comment="production | diagnostic_only"),
    Column("quality_policy_version", String(40), nullable=False),
    Column("state", String(32), nullable=False),
    Column("attempt", Integer, nullable=False, comment="writer attempt, from 1"),
    Column("revision", Integer, nullable=False, comment="transition counter for compare-and-set"),
    Column("provider", String(64), nullable=False),
    Column("model", String(128), nullable=False),
    Column("as_of", Integer, nullable=False),
    Column(
        "base_revision",
        Integer,
        nullable=False,
        comment="canonical revision of the target chapter when the run began; 0: no chapter yet",
    ),
    Column(
        "authorization_snapshot_id",
        String(40),
        nullable=True,
        comment="NULL until the authorization is frozen",
    ),
    Column(
        "reason", Text, nullable=True, comment="why the run stopped where it did; NULL: running"
    ),
    Column("created_at", UtcDateTime, nullable=False),
    Column("updated_at", UtcDateTime, nullable=False),
    CheckConstraint("run_type IN ('production','evaluation')", name="run_type"),
    Column(
        "deadline_at",
        UtcDateTime,
        nullable=True,
        comment="when the running node times out; NULL: no node with a deadline is running",
    ),
    Column(
        "deadline_node",
        String(32),
        nullable=True,
        comment="the run state deadline_at belongs to; NULL together with deadline_at",
    ),
    Column(
        "owner",
        String(200),
        nullable=True,
        comment="process that last moved the run (host|boot id|pid|start); NULL: before 0025",
    ),
)

candidates = Table(
    "candidates",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("run_id", String(40), ForeignKey("runs.id"), nullable=False),
    Column("work_id", Integer, ForeignKey("works.id"), nullable=False),
    Column("chapter", Integer, nullable=False),
    Column("version", Integer, nullable=False, comment="candidateVersion within the run"),
    Column(
        "state",
        String(12),
        nullable=False,
        comment="DRAFT | CHECKING | PASSED | REJECTED | ACCEPTED | ARCHIVED | DISCARDED",
    ),
    Column("revision", Integer, nullable=False, comment="transition counter for compare-and-set"),
    Column(
        "acceptance_eligible",
        Boolean,
        nullable=False,
        comment="derived from the run type at insert: only production candidates",
    ),
    Column("body", Text, nullable=False, comment="NFC, LF"),
    Column("sha256", String(64), nullable=False, comment="candidateSha256"),
    Column("han_count", Integer, nullable=False),
    Column("context_snapshot_id", String(40), nullable=False),
    Column("writer_output", JsonDoc, nullable=False, comment="WriterOutput v1"),
    Column(
        "report",
        JsonDoc,
        nullable=True,
        comment="check report bound to sha256 and version; NULL: not checked yet",
    ),
    Column("created_at", UtcDateTime, nullable=False),
    Column("updated_at", UtcDateTime, nullable=False),
)
Index("ix_candidates_chapter", candidates.c.work_id, candidates.c.chapter)

run_events = Table(
    "run_events",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("run_id", String(40), ForeignKey("runs.id"), nullable=False),
    Column("attempt", Integer, nullable=False),
    Column(
        "node",
        String(40),
        nullable=False,
        comment="pipeline node, e.g. retrieving, semantic_detector",
    ),
    Column("status", String(16), nullable=False, comment="ok | failed | blocked | not_built"),
    Column("duration_ms", Integer, nullable=False),
    Column("detail", JsonDoc, nullable=False, comment="hashes, counts, receipt ids, reasons"),
    Column("created_at", UtcDateTime, nullable=False),
)

decisions = Table(
    "decisions",
    metadata,
    Column("id", String(40), primary_key=True),
    Column(
        "command_id",
        String(80),
        nullable=False,
        unique=True,
        comment="idempotency key: the same command applied twice has one effect",
    ),
    Column("candidate_id", String(40), ForeignKey("candidates.id"), nullable=False),
    Column("kind", String(16), nullable=False, comment="accept | edit_merge | revise | discard"),
    Column("actor", String(80), nullable=False),
    Column("outcome", String(32), nullable=False, comment="the state the decision ended in"),
    Column("detail", JsonDoc, nullable=False),
    Column("created_at", UtcDateTime, nullable=False),
)

run_evidence = Table(
    "run_evidence",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("run_id", String(40), ForeignKey("runs.id"), nullable=False),
    Column(
        "attempt", Integer, nullable=False, comment="the writer attempt whose check had the gap"
    ),
    Column("candidate_id", String(40), ForeignKey("candidates.id"), nullable=False),
    Column("gap_index", Integer, nullable=False, comment="position of the gap in the report"),
    Column("subject", Text, nullable=False, comment="what the detector lacked evidence for"),
    Column("needed", Text, nullable=False, comment="what evidence it said was needed"),
    Column(
        "origin",
        String(32),
        nullable=False,
        comment="model | unverifiable_blocking | verdict_without_issue",
    ),
    Column(
        "outcome",
        String(16),
        nullable=False,
        comment="found | new_setting | conflict | undetermined (spec 001 §6 needs_evidence)",
    ),
    Column(
        "fact_evidence",
        JsonDoc,
        nullable=False,
        comment="factEvidence found in the as-of view for this gap; [] when none",
    ),
    Column(
        "new_setting",
        JsonDoc,
        nullable=True,
        comment="the new-setting candidate offered to the author; NULL unless outcome new_setting",
    ),
    Column("note", Text, nullable=False, comment="why this outcome, for the author (Chinese)"),
    Column("created_at", UtcDateTime, nullable=False),
)
Index("ix_run_evidence_run", run_evidence.c.run_id, run_evidence.c.attempt)

from muse.flow import zones as _zones  # noqa: E402,F401  (installs the evaluation-zone filter)
