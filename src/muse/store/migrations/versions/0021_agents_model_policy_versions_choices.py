"""agents: model_policy_versions (approved policy versions) and model_choices (model per role)

``model_policy_versions`` holds the policy versions an author approved with ``muse models
approve`` (spec 003: a new model is approved explicitly, by full id, as a new policy version;
tasks frozen under an older version keep it). Each row is a whole allowance (models, patterns,
reported aliases) extending ``base_version``, with who approved it and when; rows are immutable
(triggers refuse UPDATE and DELETE). The dispatcher merges them with the built-in versions of
``roles.yaml``; a role's newest approved version is its current one.

``model_choices`` records ``muse models use <role> <provider>:<model>`` per work, append-only;
the latest row of (work, role) is in force.

``chapters.heading`` and ``volumes.heading`` keep the heading line as imported (``第一回　上联
下联``), so that an export writes the book's own headings and imports back to the same
chapters; NULL (chapters written by Muse, works imported before 0021): none recorded.

Revision ID: 0021
Revises: 0017
"""

from alembic import op
import sqlalchemy as sa

from muse.store.immutable import drop_immutable, make_immutable
from muse.store.metadata import JsonDoc, UtcDateTime

revision = "0021"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "model_policy_versions",
        sa.Column(
            "version",
            sa.String(length=64),
            nullable=False,
            comment="the policy version id, <role>-approved-v<n>; frozen tasks name it",
        ),
        sa.Column(
            "role",
            sa.String(length=32),
            nullable=False,
            comment="canonical role the version is for",
        ),
        sa.Column(
            "policy_name",
            sa.String(length=32),
            nullable=False,
            comment="fixed | governed | judge-fixed",
        ),
        sa.Column(
            "base_version",
            sa.String(length=64),
            nullable=False,
            comment="the version this one extends (built-in from roles.yaml, or an earlier approval)",
        ),
        sa.Column(
            "models", JsonDoc, nullable=False, comment="every exact model id the version allows"
        ),
        sa.Column(
            "patterns",
            JsonDoc,
            nullable=False,
            comment="glob patterns inherited from the base (governed only); [] for judge-fixed",
        ),
        sa.Column(
            "reported_aliases",
            JsonDoc,
            nullable=False,
            comment="dated ids a server may report, inherited from the base; {} for judge-fixed",
        ),
        sa.Column(
            "added",
            JsonDoc,
            nullable=False,
            comment="what this approval added: [{provider, model}], the ids the author approved",
        ),
        sa.Column(
            "content_sha256",
            sa.String(length=64),
            nullable=False,
            comment="sha256 of the canonical JSON of {models, patterns, reportedAliases}",
        ),
        sa.Column(
            "approved_by",
            sa.String(length=200),
            nullable=False,
            comment="who approved (the OS user)",
        ),
        sa.Column("approved_at", UtcDateTime(), nullable=False),
        sa.CheckConstraint(
            "policy_name IN ('fixed','governed','judge-fixed')",
            name=op.f("ck_model_policy_versions_policy_name"),
        ),
        sa.PrimaryKeyConstraint("version", name=op.f("pk_model_policy_versions")),
    )
    op.create_index(
        "ix_model_policy_versions_role", "model_policy_versions", ["role"], unique=False
    )
    make_immutable("model_policy_versions")
    op.create_table(
        "model_choices",
        sa.Column(
            "id", sa.Integer(), autoincrement=True, nullable=False, comment="order of choices"
        ),
        sa.Column("work_id", sa.Integer(), nullable=False),
        sa.Column("role", sa.String(length=32), nullable=False, comment="canonical role"),
        sa.Column("provider", sa.String(length=64), nullable=False),
        sa.Column("model", sa.String(length=200), nullable=False, comment="the full model id"),
        sa.Column(
            "chosen_by", sa.String(length=200), nullable=False, comment="who chose (the OS user)"
        ),
        sa.Column("chosen_at", UtcDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["work_id"], ["works.id"], name=op.f("fk_model_choices_work_id_works")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_model_choices")),
    )
    op.create_index(
        "ix_model_choices_work_id_role", "model_choices", ["work_id", "role"], unique=False
    )

    for table in ("chapters", "volumes"):
        op.add_column(
            table,
            sa.Column(
                "heading",
                sa.String(length=300),
                nullable=True,
                comment=_HEADING_COMMENTS[table],
            ),
        )


_HEADING_COMMENTS = {
    "chapters": "the heading line as imported (第一回　上联　下联); NULL: none recorded, export "
    "writes one in the book's own style",
    "volumes": "the heading line as imported; NULL: none recorded (export writes 第N卷 title)",
}


def downgrade() -> None:
    for table in ("volumes", "chapters"):
        # a native DROP COLUMN (SQLite >= 3.35): recreating ``chapters`` would trip the foreign
        # keys that point at it
        op.drop_column(table, "heading")
    op.drop_index("ix_model_choices_work_id_role", table_name="model_choices")
    op.drop_table("model_choices")
    drop_immutable("model_policy_versions")
    op.drop_index("ix_model_policy_versions_role", table_name="model_policy_versions")
    op.drop_table("model_policy_versions")
