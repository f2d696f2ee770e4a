"""The evaluation zone: preregistered sets, evaluation runs, arms, judge sheets (spec 000 §10).

Arm generations reuse the production chain's own rows: each arm is a ``runs`` row with
``run_type = 'evaluation'`` and its candidate a ``candidates`` row that is never acceptance
eligible (derived from the run type; refused by contract, accept entry and triggers). Those rows
are hidden from production reads by the zone filter (``muse.flow.zones``). The tables below exist
only for evaluation; ``candidate_judgements`` holds the on-demand judge of a production candidate
(spec 000 §3.1), which never blocks and never moves a state.
"""

from sqlalchemy import (
    Boolean,
    Column,
    ForeignKey,
    Integer,
    String,
    Table,
    Text,
    UniqueConstraint,
)

from muse.store.metadata import JsonDoc, UtcDateTime, metadata

eval_sets = Table(
    "eval_sets",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("version", String(80), nullable=False, unique=True, comment="evaluationSetVersion"),
    Column(
        "sha256",
        String(64),
        nullable=False,
        unique=True,
        comment="sha256 of the canonical JSON of the set as preregistered",
    ),
    Column("document", JsonDoc, nullable=False, comment="the validated set, as preregistered"),
    Column("dry_run", Boolean, nullable=False, comment="judged by the offline model"),
    Column("created_at", UtcDateTime, nullable=False),
    comment="Preregistered evaluation sets; immutable (a changed file is a new version).",
)

eval_runs = Table(
    "eval_runs",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("set_id", String(40), ForeignKey("eval_sets.id"), nullable=False),
    Column("sample_key", String(40), nullable=False, comment="sampleId of the set"),
    Column("work_id", Integer, ForeignKey("works.id"), nullable=False),
    Column("target_chapter", Integer, nullable=False, comment="N; chapter N onward is the oracle"),
    Column("as_of", Integer, nullable=False, comment="N - 1"),
    Column("scene_class", String(16), nullable=False),
    Column("quality_policy_version", String(40), nullable=False, comment="writer-eval-v1"),
    Column(
        "labels",
        JsonDoc,
        nullable=False,
        comment="arm → random anonymous candidate label, drawn at preregistration",
    ),
    Column("state", String(32), nullable=False),
    Column("revision", Integer, nullable=False, comment="transition counter for compare-and-set"),
    Column("reason", Text, nullable=True, comment="why it ended where it did; NULL: running"),
    Column(
        "final",
        JsonDoc,
        nullable=True,
        comment="arm → dimension → final score; NULL until a report state",
    ),
    Column("created_at", UtcDateTime, nullable=False),
    Column("updated_at", UtcDateTime, nullable=False),
    UniqueConstraint("set_id", "sample_key", name="uq_eval_runs_sample"),
    comment="One writer-eval-v1 run per preregistered sample.",
)

eval_arms = Table(
    "eval_arms",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("eval_run_id", String(40), ForeignKey("eval_runs.id"), nullable=False),
    Column("arm", String(1), nullable=False, comment="A | B | C"),
    Column("run_id", String(40), ForeignKey("runs.id"), nullable=False),
    Column(
        "candidate_id",
        String(40),
        ForeignKey("candidates.id"),
        nullable=True,
        comment="NULL until the writer's reply is stored",
    ),
    Column("writer_receipt_id", String(40), nullable=True),
    Column(
        "check",
        JsonDoc,
        nullable=True,
        comment="detector outcome, high-severity and leak counts, hard coverage; NULL: unchecked",
    ),
    Column("created_at", UtcDateTime, nullable=False),
    Column("updated_at", UtcDateTime, nullable=False),
    UniqueConstraint("eval_run_id", "arm", name="uq_eval_arms_arm"),
)

eval_judgements = Table(
    "eval_judgements",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("eval_run_id", String(40), ForeignKey("eval_runs.id"), nullable=False),
    Column("judge_index", Integer, nullable=False, comment="1, 2 (reversed order), 3 (third)"),
    Column("order", JsonDoc, nullable=False, comment="candidate labels in presented order"),
    Column("receipt_id", String(40), nullable=False),
    Column("sheet", JsonDoc, nullable=False, comment="label → dimension → {score, reason, quotes}"),
    Column("created_at", UtcDateTime, nullable=False),
    UniqueConstraint("eval_run_id", "judge_index", name="uq_eval_judgements_judge"),
)

candidate_judgements = Table(
    "candidate_judgements",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("candidate_id", String(40), ForeignKey("candidates.id"), nullable=False),
    Column("provider", String(64), nullable=False),
    Column("model", String(128), nullable=False),
    Column("receipt_id", String(40), nullable=False),
    Column("sheet", JsonDoc, nullable=False, comment="dimension → {score, reason, quotes}"),
    Column("created_at", UtcDateTime, nullable=False),
    comment="On-demand judge of a production candidate (spec 000 §3.1): never blocks or moves.",
)
