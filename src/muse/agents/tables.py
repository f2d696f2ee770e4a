"""Tables of the agents layer: one receipt per model call, and the tool-read ledger.

``model_calls`` is the run receipt of spec 001 §6 / ARCHITECTURE.md principle 1: who asked
(run, role, task), what was asked of whom (provider, model, policy version, prompts), what came
back (reported model, raw outputs, validated output), what it cost (tokens, latency, estimated
cost) and how it ended (``status``: ``ok`` or a named failure). A receipt is written once, in
its own transaction, when the call ends, so a failed call is recorded too. API keys are never
written: stored text is scrubbed of the provider's secrets before insert.

``tool_reads`` is the event ledger of read-only tool use (spec 003): every read a model asked
for, or a deterministic replay made, with the hash of the canonical JSON result. The ``ok`` rows
of a run, in order, are that run's dependency list.
"""

from sqlalchemy import (
    CheckConstraint,
    Column,
    ForeignKey,
    Index,
    Integer,
    Numeric,
    String,
    Table,
    Text,
)

from muse.agents.errors import RECEIPT_STATUSES
from muse.store.metadata import JsonDoc, UtcDateTime, metadata

_STATUS_LIST = ",".join(f"'{s}'" for s in RECEIPT_STATUSES)

model_calls = Table(
    "model_calls",
    metadata,
    Column("id", String(40), primary_key=True, comment="receipt id, call_…"),
    Column(
        "run_id",
        String(40),
        nullable=True,
        comment="the run the call belongs to; NULL: outside any run",
    ),
    Column(
        "role",
        String(32),
        nullable=False,
        comment="canonical role (writer | planner | extractor | detector | judge), or the name "
        "given when it was not a known role",
    ),
    Column("task", String(64), nullable=False),
    Column(
        "provider",
        String(64),
        nullable=False,
        comment="provider name as the call gave it (offline, deepseek, a config entry …)",
    ),
    Column(
        "base_url",
        String(500),
        nullable=True,
        comment="endpoint called; NULL: offline, or refused before a provider was built",
    ),
    Column("model_requested", String(200), nullable=False, comment="the frozen model id"),
    Column(
        "model_returned",
        String(200),
        nullable=True,
        comment="model id the server reported last; NULL: no reply received",
    ),
    Column(
        "policy_name",
        String(32),
        nullable=True,
        comment="fixed | governed | judge-fixed; NULL: refused before the policy was known",
    ),
    Column(
        "policy_version",
        String(64),
        nullable=True,
        comment="the model-policy version the task was frozen under; NULL as policy_name",
    ),
    Column(
        "output_mode",
        String(16),
        nullable=True,
        comment="json_schema | json_object; NULL: refused before a request was built",
    ),
    Column("status", String(32), nullable=False, comment="ok, or the named failure"),
    Column("error", Text, nullable=True, comment="the error the caller received; NULL when ok"),
    Column(
        "attempts",
        Integer,
        nullable=False,
        comment="requests sent (retries, repair and tool rounds included); 0: refused",
    ),
    Column("tokens_in", Integer, nullable=False, comment="prompt tokens over all attempts"),
    Column("tokens_out", Integer, nullable=False, comment="completion tokens over all attempts"),
    Column(
        "tokens_cached",
        Integer,
        nullable=True,
        comment="prompt tokens served from the provider's cache; NULL: never reported",
    ),
    Column("latency_ms", Integer, nullable=False, comment="wall time of the whole call"),
    Column(
        "cost_estimate",
        Numeric(14, 6),
        nullable=True,
        comment="estimated from the preset's price list; NULL: no price known for the model",
    ),
    Column("cost_currency", String(3), nullable=True, comment="CNY | USD; NULL with cost_estimate"),
    Column(
        "input_sha256",
        String(64),
        nullable=False,
        comment="sha256 of the canonical JSON of the frozen task input",
    ),
    Column(
        "messages_sha256",
        String(64),
        nullable=True,
        comment="sha256 of the canonical JSON of the first request's messages; NULL: refused "
        "before the prompt was rendered",
    ),
    Column(
        "output_sha256",
        String(64),
        nullable=True,
        comment="sha256 of the canonical JSON of the validated output; NULL unless ok",
    ),
    Column(
        "prompt_templates",
        JsonDoc,
        nullable=False,
        comment="template ids and versions used, and the sha256 of their sources; {} if none",
    ),
    Column("task_input", JsonDoc, nullable=False, comment="the frozen task input as given"),
    Column(
        "messages",
        JsonDoc,
        nullable=False,
        comment="the whole conversation sent: prompts, repair and tool messages; [] if refused",
    ),
    Column(
        "request_params",
        JsonDoc,
        nullable=False,
        comment="output mode, schema, tools offered, timeout, role as requested",
    ),
    Column(
        "raw_outputs",
        JsonDoc,
        nullable=False,
        comment="one entry per attempt: raw response body or the error",
    ),
    Column("output", JsonDoc, nullable=True, comment="the validated output; NULL unless ok"),
    Column("started_at", UtcDateTime, nullable=False),
    Column("finished_at", UtcDateTime, nullable=False),
    CheckConstraint(f"status IN ({_STATUS_LIST})", name="status"),
    CheckConstraint("attempts >= 0", name="attempts"),
)
Index("ix_model_calls_run_id", model_calls.c.run_id)

tool_reads = Table(
    "tool_reads",
    metadata,
    Column(
        "id",
        Integer,
        primary_key=True,
        autoincrement=True,
        comment="insertion order: the order of the dependency list",
    ),
    Column("run_id", String(40), nullable=True, comment="NULL: a read outside any run"),
    Column(
        "call_id",
        String(40),
        nullable=True,
        comment="the model call (model_calls.id) that asked for the read; NULL: a "
        "deterministic replay read, no model involved. Not a foreign key: the "
        "receipt is written when the call ends, after its reads",
    ),
    Column("tool", String(32), nullable=False),
    Column("arguments", JsonDoc, nullable=False),
    Column(
        "status",
        String(16),
        nullable=False,
        comment="ok | refused (not whitelisted, or past as_of) | error (bad arguments)",
    ),
    Column(
        "result_sha256",
        String(64),
        nullable=True,
        comment="sha256 of the canonical JSON of the result; NULL unless ok",
    ),
    Column("error", Text, nullable=True, comment="why it was refused or failed; NULL when ok"),
    Column("created_at", UtcDateTime, nullable=False),
    CheckConstraint("status IN ('ok','refused','error')", name="status"),
)
Index("ix_tool_reads_run_id", tool_reads.c.run_id)
Index("ix_tool_reads_call_id", tool_reads.c.call_id)

# spec 003: a new model is approved explicitly, by full id, as a new policy version; a version
# once written never changes (database triggers refuse UPDATE and DELETE, migration 0021).
model_policy_versions = Table(
    "model_policy_versions",
    metadata,
    Column(
        "version",
        String(64),
        primary_key=True,
        comment="the policy version id, <role>-approved-v<n>; frozen tasks name it",
    ),
    Column("role", String(32), nullable=False, comment="canonical role the version is for"),
    Column("policy_name", String(32), nullable=False, comment="fixed | governed | judge-fixed"),
    Column(
        "base_version",
        String(64),
        nullable=False,
        comment="the version this one extends (built-in from roles.yaml, or an earlier approval)",
    ),
    Column("models", JsonDoc, nullable=False, comment="every exact model id the version allows"),
    Column(
        "patterns",
        JsonDoc,
        nullable=False,
        comment="glob patterns inherited from the base (governed only); [] for judge-fixed",
    ),
    Column(
        "reported_aliases",
        JsonDoc,
        nullable=False,
        comment="dated ids a server may report, inherited from the base; {} for judge-fixed",
    ),
    Column(
        "added",
        JsonDoc,
        nullable=False,
        comment="what this approval added: [{provider, model}], the ids the author approved",
    ),
    Column(
        "content_sha256",
        String(64),
        nullable=False,
        comment="sha256 of the canonical JSON of {models, patterns, reportedAliases}",
    ),
    Column("approved_by", String(200), nullable=False, comment="who approved (the OS user)"),
    Column("approved_at", UtcDateTime, nullable=False),
    CheckConstraint("policy_name IN ('fixed','governed','judge-fixed')", name="policy_name"),
)
Index("ix_model_policy_versions_role", model_policy_versions.c.role)

# The author's model per role for one work (`muse models use`): append-only, the latest row of
# (work, role) is in force. A command-line --provider/--model still wins; nothing comes from the
# environment.
model_choices = Table(
    "model_choices",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True, comment="order of choices"),
    Column("work_id", Integer, ForeignKey("works.id"), nullable=False),
    Column("role", String(32), nullable=False, comment="canonical role"),
    Column("provider", String(64), nullable=False),
    Column("model", String(200), nullable=False, comment="the full model id"),
    Column("chosen_by", String(200), nullable=False, comment="who chose (the OS user)"),
    Column("chosen_at", UtcDateTime, nullable=False),
)
Index("ix_model_choices_work_id_role", model_choices.c.work_id, model_choices.c.role)
