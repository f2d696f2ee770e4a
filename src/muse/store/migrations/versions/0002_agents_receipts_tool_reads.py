"""agents: receipts, tool reads

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29

The agents branch (spec 003, ARCHITECTURE.md §8):

- ``model_calls``: one receipt per model call, written once when the call ends (ok or a named
  failure), with the prompts sent, the raw replies, the validated output, tokens, latency,
  estimated cost and the hashes of input, messages and output. Never an API key.
- ``tool_reads``: the ledger of read-only tool reads; a run's ``ok`` rows in id order are its
  dependency list. ``call_id`` is deliberately not a foreign key: the reads of a call are
  written while it runs, its receipt only when it ends.

The CHECK on ``model_calls.status`` lists ``muse.agents.errors.RECEIPT_STATUSES``; a new status
needs a new migration on this branch. Column comments say what each column and its NULL mean.
"""

from alembic import op
import sqlalchemy as sa
import muse.store.metadata
from sqlalchemy.dialects import postgresql

revision = "0002"
down_revision = "0001"
branch_labels = ("agents",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "model_calls",
        sa.Column("id", sa.String(length=40), nullable=False, comment="receipt id, call_…"),
        sa.Column(
            "run_id",
            sa.String(length=40),
            nullable=True,
            comment="the run the call belongs to; NULL: outside any run",
        ),
        sa.Column(
            "role",
            sa.String(length=32),
            nullable=False,
            comment="canonical role (writer | planner | extractor | detector | judge), or the name given when it was not a known role",
        ),
        sa.Column("task", sa.String(length=64), nullable=False),
        sa.Column(
            "provider",
            sa.String(length=64),
            nullable=False,
            comment="provider name as the call gave it (offline, deepseek, a config entry …)",
        ),
        sa.Column(
            "base_url",
            sa.String(length=500),
            nullable=True,
            comment="endpoint called; NULL: offline, or refused before a provider was built",
        ),
        sa.Column(
            "model_requested", sa.String(length=200), nullable=False, comment="the frozen model id"
        ),
        sa.Column(
            "model_returned",
            sa.String(length=200),
            nullable=True,
            comment="model id the server reported last; NULL: no reply received",
        ),
        sa.Column(
            "policy_name",
            sa.String(length=32),
            nullable=True,
            comment="fixed | governed | judge-fixed; NULL: refused before the policy was known",
        ),
        sa.Column(
            "policy_version",
            sa.String(length=64),
            nullable=True,
            comment="the model-policy version the task was frozen under; NULL as policy_name",
        ),
        sa.Column(
            "output_mode",
            sa.String(length=16),
            nullable=True,
            comment="json_schema | json_object; NULL: refused before a request was built",
        ),
        sa.Column(
            "status", sa.String(length=32), nullable=False, comment="ok, or the named failure"
        ),
        sa.Column(
            "error", sa.Text(), nullable=True, comment="the error the caller received; NULL when ok"
        ),
        sa.Column(
            "attempts",
            sa.Integer(),
            nullable=False,
            comment="requests sent (retries, repair and tool rounds included); 0: refused",
        ),
        sa.Column(
            "tokens_in", sa.Integer(), nullable=False, comment="prompt tokens over all attempts"
        ),
        sa.Column(
            "tokens_out",
            sa.Integer(),
            nullable=False,
            comment="completion tokens over all attempts",
        ),
        sa.Column(
            "tokens_cached",
            sa.Integer(),
            nullable=True,
            comment="prompt tokens served from the provider's cache; NULL: never reported",
        ),
        sa.Column(
            "latency_ms", sa.Integer(), nullable=False, comment="wall time of the whole call"
        ),
        sa.Column(
            "cost_estimate",
            sa.Numeric(precision=14, scale=6),
            nullable=True,
            comment="estimated from the preset's price list; NULL: no price known for the model",
        ),
        sa.Column(
            "cost_currency",
            sa.String(length=3),
            nullable=True,
            comment="CNY | USD; NULL with cost_estimate",
        ),
        sa.Column(
            "input_sha256",
            sa.String(length=64),
            nullable=False,
            comment="sha256 of the canonical JSON of the frozen task input",
        ),
        sa.Column(
            "messages_sha256",
            sa.String(length=64),
            nullable=True,
            comment="sha256 of the canonical JSON of the first request's messages; NULL: refused before the prompt was rendered",
        ),
        sa.Column(
            "output_sha256",
            sa.String(length=64),
            nullable=True,
            comment="sha256 of the canonical JSON of the validated output; NULL unless ok",
        ),
        sa.Column(
            "prompt_templates",
            sa.JSON().with_variant(postgresql.JSONB(), "postgresql"),
            nullable=False,
            comment="template ids and versions used, and the sha256 of their sources; {} if none",
        ),
        sa.Column(
            "task_input",
            sa.JSON().with_variant(postgresql.JSONB(), "postgresql"),
            nullable=False,
            comment="the frozen task input as given",
        ),
        sa.Column(
            "messages",
            sa.JSON().with_variant(postgresql.JSONB(), "postgresql"),
            nullable=False,
            comment="the whole conversation sent: prompts, repair and tool messages; [] if refused",
        ),
        sa.Column(
            "request_params",
            sa.JSON().with_variant(postgresql.JSONB(), "postgresql"),
            nullable=False,
            comment="output mode, schema, tools offered, timeout, role as requested",
        ),
        sa.Column(
            "raw_outputs",
            sa.JSON().with_variant(postgresql.JSONB(), "postgresql"),
            nullable=False,
            comment="one entry per attempt: raw response body or the error",
        ),
        sa.Column(
            "output",
            sa.JSON().with_variant(postgresql.JSONB(), "postgresql"),
            nullable=True,
            comment="the validated output; NULL unless ok",
        ),
        sa.Column("started_at", muse.store.metadata.UtcDateTime(timezone=True), nullable=False),
        sa.Column("finished_at", muse.store.metadata.UtcDateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "status IN ('ok','refused_task','refused_policy','refused_input','refused_tools','requests_disabled','missing_key','config_error','transport_error','rate_limited','server_error','provider_rejected','malformed_response','timeout','cancelled','empty_reply','invalid_output','truncated_output','model_mismatch','tool_refused','tool_rounds_exceeded','internal_error')",
            name=op.f("ck_model_calls_status"),
        ),
        sa.CheckConstraint("attempts >= 0", name=op.f("ck_model_calls_attempts")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_model_calls")),
    )
    with op.batch_alter_table("model_calls", schema=None) as batch_op:
        batch_op.create_index("ix_model_calls_run_id", ["run_id"], unique=False)

    op.create_table(
        "tool_reads",
        sa.Column(
            "id",
            sa.Integer(),
            autoincrement=True,
            nullable=False,
            comment="insertion order: the order of the dependency list",
        ),
        sa.Column(
            "run_id", sa.String(length=40), nullable=True, comment="NULL: a read outside any run"
        ),
        sa.Column(
            "call_id",
            sa.String(length=40),
            nullable=True,
            comment="the model call (model_calls.id) that asked for the read; NULL: a deterministic replay read, no model involved. Not a foreign key: the receipt is written when the call ends, after its reads",
        ),
        sa.Column("tool", sa.String(length=32), nullable=False),
        sa.Column(
            "arguments", sa.JSON().with_variant(postgresql.JSONB(), "postgresql"), nullable=False
        ),
        sa.Column(
            "status",
            sa.String(length=16),
            nullable=False,
            comment="ok | refused (not whitelisted, or past as_of) | error (bad arguments)",
        ),
        sa.Column(
            "result_sha256",
            sa.String(length=64),
            nullable=True,
            comment="sha256 of the canonical JSON of the result; NULL unless ok",
        ),
        sa.Column(
            "error", sa.Text(), nullable=True, comment="why it was refused or failed; NULL when ok"
        ),
        sa.Column("created_at", muse.store.metadata.UtcDateTime(timezone=True), nullable=False),
        sa.CheckConstraint("status IN ('ok','refused','error')", name=op.f("ck_tool_reads_status")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tool_reads")),
    )
    with op.batch_alter_table("tool_reads", schema=None) as batch_op:
        batch_op.create_index("ix_tool_reads_call_id", ["call_id"], unique=False)
        batch_op.create_index("ix_tool_reads_run_id", ["run_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("tool_reads", schema=None) as batch_op:
        batch_op.drop_index("ix_tool_reads_run_id")
        batch_op.drop_index("ix_tool_reads_call_id")

    op.drop_table("tool_reads")
    with op.batch_alter_table("model_calls", schema=None) as batch_op:
        batch_op.drop_index("ix_model_calls_run_id")

    op.drop_table("model_calls")
