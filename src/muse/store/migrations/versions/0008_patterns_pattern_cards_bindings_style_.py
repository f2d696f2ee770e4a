"""patterns: pattern cards, bindings, style profiles

Public pattern cards have work_id NULL (the spec's work_id=0); bindings and bound style profiles
are written when the author confirms an assembly (plan_sections, planning branch), which is why
assembly_section_id is a plain column and not a foreign key across branches.

Revision ID: 0008
Revises: 0001
Create Date: 2026-11-29 19:49:24.437170
"""

from alembic import op
import sqlalchemy as sa
import muse.store.metadata
from sqlalchemy.dialects import postgresql

revision = "0008"
down_revision = "0001"
branch_labels = ("patterns",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "pattern_cards",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column(
            "work_id",
            sa.Integer(),
            nullable=True,
            comment="the work owning a private card; NULL: a public card (spec: work_id=0)",
        ),
        sa.Column(
            "scope",
            sa.String(length=24),
            nullable=False,
            comment="'public' or 'work:<id>': the uniqueness key (NULL work ids never collide)",
        ),
        sa.Column(
            "key",
            sa.String(length=80),
            nullable=False,
            comment="stable key across versions, e.g. chapter-end-hook",
        ),
        sa.Column(
            "version",
            sa.Integer(),
            nullable=False,
            comment="1, 2, …; a changed content is a new version",
        ),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("category", sa.String(length=40), nullable=False),
        sa.Column(
            "content",
            sa.JSON().with_variant(postgresql.JSONB(), "postgresql"),
            nullable=False,
            comment="PatternContent; never edited in place",
        ),
        sa.Column(
            "content_sha256",
            sa.String(length=64),
            nullable=False,
            comment="sha256 of the canonical content, computed before storing",
        ),
        sa.Column("created_at", muse.store.metadata.UtcDateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "(work_id IS NULL AND scope = 'public') OR (work_id IS NOT NULL AND scope <> 'public')",
            name=op.f("ck_pattern_cards_scope"),
        ),
        sa.CheckConstraint("version >= 1", name=op.f("ck_pattern_cards_version")),
        sa.ForeignKeyConstraint(
            ["work_id"], ["works.id"], name=op.f("fk_pattern_cards_work_id_works")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_pattern_cards")),
        sa.UniqueConstraint(
            "scope", "key", "version", name=op.f("uq_pattern_cards_scope_key_version")
        ),
    )
    op.create_table(
        "style_profiles",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("work_id", sa.Integer(), nullable=False),
        sa.Column(
            "assembly_section_id",
            sa.String(length=40),
            nullable=False,
            comment="the confirmed assembly (plan_sections.id) that carried this profile",
        ),
        sa.Column(
            "profile",
            sa.JSON().with_variant(postgresql.JSONB(), "postgresql"),
            nullable=False,
            comment="StyleProfile, the eight fields",
        ),
        sa.Column(
            "profile_sha256",
            sa.String(length=64),
            nullable=False,
            comment="sha256 of the canonical profile",
        ),
        sa.Column(
            "state",
            sa.String(length=12),
            nullable=False,
            comment="bound: the work's confirmed style | released: replaced by a later assembly",
        ),
        sa.Column("bound_at", muse.store.metadata.UtcDateTime(timezone=True), nullable=False),
        sa.Column(
            "released_at",
            muse.store.metadata.UtcDateTime(timezone=True),
            nullable=True,
            comment="NULL while bound",
        ),
        sa.CheckConstraint("state IN ('bound','released')", name=op.f("ck_style_profiles_state")),
        sa.ForeignKeyConstraint(
            ["work_id"], ["works.id"], name=op.f("fk_style_profiles_work_id_works")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_style_profiles")),
    )
    with op.batch_alter_table("style_profiles", schema=None) as batch_op:
        batch_op.create_index("ix_style_profiles_work_state", ["work_id", "state"], unique=False)

    op.create_table(
        "pattern_bindings",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("work_id", sa.Integer(), nullable=False),
        sa.Column(
            "assembly_section_id",
            sa.String(length=40),
            nullable=False,
            comment="the confirmed assembly (plan_sections.id) that made this binding",
        ),
        sa.Column(
            "pattern_id",
            sa.String(length=40),
            nullable=False,
            comment="the exact card version bound",
        ),
        sa.Column(
            "content_sha256",
            sa.String(length=64),
            nullable=False,
            comment="hash pinned by the assembly; equals the card's content_sha256",
        ),
        sa.Column(
            "position", sa.Integer(), nullable=False, comment="order within the assembly, from 0"
        ),
        sa.Column(
            "purpose",
            sa.Text(),
            nullable=False,
            comment="what the author binds it for, in their words",
        ),
        sa.Column(
            "state",
            sa.String(length=12),
            nullable=False,
            comment="bound: part of the confirmed assembly | released: a later assembly replaced it",
        ),
        sa.Column("bound_at", muse.store.metadata.UtcDateTime(timezone=True), nullable=False),
        sa.Column(
            "released_at",
            muse.store.metadata.UtcDateTime(timezone=True),
            nullable=True,
            comment="NULL while bound",
        ),
        sa.CheckConstraint("state IN ('bound','released')", name=op.f("ck_pattern_bindings_state")),
        sa.ForeignKeyConstraint(
            ["pattern_id"],
            ["pattern_cards.id"],
            name=op.f("fk_pattern_bindings_pattern_id_pattern_cards"),
        ),
        sa.ForeignKeyConstraint(
            ["work_id"], ["works.id"], name=op.f("fk_pattern_bindings_work_id_works")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_pattern_bindings")),
    )
    with op.batch_alter_table("pattern_bindings", schema=None) as batch_op:
        batch_op.create_index("ix_pattern_bindings_work_state", ["work_id", "state"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("pattern_bindings", schema=None) as batch_op:
        batch_op.drop_index("ix_pattern_bindings_work_state")

    op.drop_table("pattern_bindings")
    with op.batch_alter_table("style_profiles", schema=None) as batch_op:
        batch_op.drop_index("ix_style_profiles_work_state")

    op.drop_table("style_profiles")
    op.drop_table("pattern_cards")
