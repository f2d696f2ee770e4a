"""foundation: works, chapters, prose, jobs

Revision ID: 0001
Revises:
Create Date: 2026-11-29 19:28:01.190400
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

import muse.store.metadata
from muse.store.immutable import drop_immutable, make_immutable

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "jobs",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column(
            "kind",
            sa.String(length=64),
            nullable=False,
            comment="what the job does, e.g. extract_chapter",
        ),
        sa.Column(
            "work_id",
            sa.Integer(),
            nullable=True,
            comment="the work it concerns; NULL: not work-bound",
        ),
        sa.Column(
            "payload", sa.JSON().with_variant(postgresql.JSONB(), "postgresql"), nullable=False
        ),
        sa.Column(
            "status",
            sa.String(length=16),
            nullable=False,
            comment="queued | running | done | failed",
        ),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("max_attempts", sa.Integer(), nullable=False),
        sa.Column(
            "run_after",
            muse.store.metadata.UtcDateTime(timezone=True),
            nullable=False,
            comment="not claimed before this time",
        ),
        sa.Column(
            "locked_by",
            sa.String(length=64),
            nullable=True,
            comment="worker id; NULL when not running",
        ),
        sa.Column("locked_at", muse.store.metadata.UtcDateTime(timezone=True), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column(
            "dedupe_key",
            sa.String(length=200),
            nullable=True,
            comment="one live job per key; NULL: no de-duplication",
        ),
        sa.Column("created_at", muse.store.metadata.UtcDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", muse.store.metadata.UtcDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_jobs")),
        sa.UniqueConstraint("dedupe_key", name=op.f("uq_jobs_dedupe_key")),
    )
    with op.batch_alter_table("jobs", schema=None) as batch_op:
        batch_op.create_index("ix_jobs_claim", ["status", "run_after"], unique=False)

    op.create_table(
        "works",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("title", sa.String(length=200), nullable=False),
        sa.Column(
            "source_kind",
            sa.String(length=32),
            nullable=False,
            comment="own | public_domain | licensed: where the text comes from (spec 000 §2.2)",
        ),
        sa.Column(
            "allowed_purposes",
            sa.JSON().with_variant(postgresql.JSONB(), "postgresql"),
            nullable=False,
            comment="list of purposes: production | evaluation",
        ),
        sa.Column(
            "source_status",
            sa.String(length=16),
            nullable=False,
            comment="active | suspended | withdrawn; anything but active fails closed",
        ),
        sa.Column(
            "source_version",
            sa.String(length=80),
            nullable=False,
            comment="sha256 prefix of the imported file, or 'manuscript' for own writing",
        ),
        sa.Column(
            "source_note",
            sa.Text(),
            nullable=True,
            comment="licence or provenance in the author's words",
        ),
        sa.Column(
            "default_chapter_chars",
            sa.Integer(),
            nullable=False,
            comment="length target when fewer than 3 valid chapters exist (spec 000 §8.1 rule 4)",
        ),
        sa.Column(
            "front_matter",
            sa.Text(),
            nullable=True,
            comment="text before the first chapter of an imported book; NULL: none",
        ),
        sa.Column("created_at", muse.store.metadata.UtcDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", muse.store.metadata.UtcDateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "source_kind IN ('own','public_domain','licensed')", name=op.f("ck_works_source_kind")
        ),
        sa.CheckConstraint(
            "source_status IN ('active','suspended','withdrawn')",
            name=op.f("ck_works_source_status"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_works")),
    )
    op.create_table(
        "authorization_snapshots",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("work_id", sa.Integer(), nullable=False),
        sa.Column(
            "purpose", sa.String(length=32), nullable=False, comment="production | evaluation"
        ),
        sa.Column("source_kind", sa.String(length=32), nullable=False),
        sa.Column(
            "source_status", sa.String(length=16), nullable=False, comment="the status when taken"
        ),
        sa.Column("source_version", sa.String(length=80), nullable=False),
        sa.Column("created_at", muse.store.metadata.UtcDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["work_id"], ["works.id"], name=op.f("fk_authorization_snapshots_work_id_works")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_authorization_snapshots")),
        comment="Immutable: a row is never updated; a later check compares it with the live work.",
    )
    op.create_table(
        "volumes",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("work_id", sa.Integer(), nullable=False),
        sa.Column(
            "number", sa.Integer(), nullable=False, comment="as written in the heading (第N卷)"
        ),
        sa.Column("title", sa.String(length=200), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False, comment="order of appearance, from 1"),
        sa.ForeignKeyConstraint(["work_id"], ["works.id"], name=op.f("fk_volumes_work_id_works")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_volumes")),
        sa.UniqueConstraint("work_id", "position", name=op.f("uq_volumes_work_id_position")),
    )
    op.create_table(
        "chapters",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("work_id", sa.Integer(), nullable=False),
        sa.Column(
            "number", sa.Integer(), nullable=False, comment="absolute chapter number in the work"
        ),
        sa.Column("title", sa.String(length=200), nullable=False),
        sa.Column(
            "volume_id", sa.Integer(), nullable=True, comment="NULL: the work has no volumes"
        ),
        sa.Column(
            "current_revision",
            sa.Integer(),
            nullable=False,
            comment="revision of the canonical prose block; moves only by compare-and-set",
        ),
        sa.Column("created_at", muse.store.metadata.UtcDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", muse.store.metadata.UtcDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["volume_id"], ["volumes.id"], name=op.f("fk_chapters_volume_id_volumes")
        ),
        sa.ForeignKeyConstraint(["work_id"], ["works.id"], name=op.f("fk_chapters_work_id_works")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_chapters")),
        sa.UniqueConstraint("work_id", "number", name=op.f("uq_chapters_work_id_number")),
    )
    op.create_table(
        "prose_blocks",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("chapter_id", sa.Integer(), nullable=False),
        sa.Column(
            "revision",
            sa.Integer(),
            nullable=False,
            comment="1 for the first text, then +1 per change",
        ),
        sa.Column("text", sa.Text(), nullable=False, comment="NFC, LF, no BOM"),
        sa.Column("content_sha256", sa.String(length=64), nullable=False),
        sa.Column("han_count", sa.Integer(), nullable=False),
        sa.Column(
            "origin",
            sa.String(length=16),
            nullable=False,
            comment="import | accept | edit | revert: how this revision came to be",
        ),
        sa.Column(
            "attribution",
            sa.JSON().with_variant(postgresql.JSONB(), "postgresql"),
            nullable=False,
            comment="run, candidate, decision or file behind this revision; {} when none",
        ),
        sa.Column("created_at", muse.store.metadata.UtcDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["chapter_id"], ["chapters.id"], name=op.f("fk_prose_blocks_chapter_id_chapters")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_prose_blocks")),
        sa.UniqueConstraint(
            "chapter_id", "revision", name=op.f("uq_prose_blocks_chapter_id_revision")
        ),
    )

    make_immutable("authorization_snapshots")
    make_immutable("prose_blocks")


def downgrade() -> None:
    drop_immutable("prose_blocks")
    drop_immutable("authorization_snapshots")
    op.drop_table("prose_blocks")
    op.drop_table("chapters")
    op.drop_table("volumes")
    op.drop_table("authorization_snapshots")
    op.drop_table("works")
    with op.batch_alter_table("jobs", schema=None) as batch_op:
        batch_op.drop_index("ix_jobs_claim")

    op.drop_table("jobs")
