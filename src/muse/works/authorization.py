"""Authorization snapshots (spec 000 §2.2, §7.1 authorizationSnapshot / sourceStatus).

Each work records where its text comes from and what it may be used for. A run freezes an
immutable snapshot (id, purpose, status, source version) into its context; later checks compare
that snapshot with the live work and fail closed when the status no longer allows the purpose or
the source changed underneath.
"""

from __future__ import annotations

from sqlalchemy import Connection, select

from muse.core.clock import iso, utc_now
from muse.core.errors import AuthorizationError, InvalidInput, NotFound
from muse.core.ids import new_id
from muse.store.prepared import Prepared
from muse.works.catalog import get_work_row
from muse.works.contracts import (
    STATUS_LABELS,
    AuthorizationSnapshot,
    Purpose,
    SourceKind,
    SourceStatus,
)
from muse.works.rows import WorkRow
from muse.works.tables import authorization_snapshots, works

PURPOSE_LABELS = {"production": "正式创作", "evaluation": "离线评测"}


def _check_allowed(row: WorkRow, purpose: Purpose) -> None:
    if row.source_status != SourceStatus.active.value:
        raise AuthorizationError(
            f"《{row.title}》的来源状态是「{STATUS_LABELS[row.source_status]}」，不能用于"
            f"{PURPOSE_LABELS[purpose.value]}。",
            hint="来源恢复为有效后再试：muse work status --status active。",
        )
    if purpose.value not in row.allowed_purposes:
        raise AuthorizationError(
            f"《{row.title}》的授权不包含「{PURPOSE_LABELS[purpose.value]}」用途。",
            hint="授权参考书默认只能用于离线评测。",
        )


_INSERT_SNAPSHOT = Prepared(
    authorization_snapshots.insert(),
    keys=(
        "id",
        "work_id",
        "purpose",
        "source_kind",
        "source_status",
        "source_version",
        "created_at",
    ),
)


def take_snapshot(conn: Connection, work_id: int, purpose: Purpose | str) -> AuthorizationSnapshot:
    """Freeze the work's authorization for ``purpose``; fails closed if it is not allowed now."""
    purpose = Purpose(purpose)
    row = get_work_row(conn, work_id)
    _check_allowed(row, purpose)
    now = utc_now()
    snapshot = AuthorizationSnapshot(
        id=new_id("auth"),
        work_id=work_id,
        purpose=purpose,
        source_kind=SourceKind(row.source_kind),
        source_status=SourceStatus(row.source_status),
        source_version=row.source_version,
        created_at=iso(now) or "",
    )
    _INSERT_SNAPSHOT.run(
        conn,
        id=snapshot.id,
        work_id=work_id,
        purpose=purpose.value,
        source_kind=row.source_kind,
        source_status=row.source_status,
        source_version=row.source_version,
        created_at=now,
    )
    return snapshot


def get_snapshot(conn: Connection, snapshot_id: str) -> AuthorizationSnapshot:
    row = (
        conn.execute(
            select(authorization_snapshots).where(authorization_snapshots.c.id == snapshot_id)
        )
        .mappings()
        .first()
    )
    if row is None:
        raise NotFound(f"授权快照 {snapshot_id} 不存在。")
    return AuthorizationSnapshot(
        id=row["id"],
        work_id=row["work_id"],
        purpose=row["purpose"],
        source_kind=row["source_kind"],
        source_status=row["source_status"],
        source_version=row["source_version"],
        created_at=iso(row["created_at"]) or "",
    )


def revalidate(conn: Connection, snapshot_id: str) -> AuthorizationSnapshot:
    """Check a frozen snapshot against the live work; raises AuthorizationError when stale."""
    snapshot = get_snapshot(conn, snapshot_id)
    row = get_work_row(conn, snapshot.work_id)
    _check_allowed(row, snapshot.purpose)
    if row.source_version != snapshot.source_version:
        raise AuthorizationError(
            f"《{row.title}》的来源版本已变化（{snapshot.source_version} → "
            f"{row.source_version}），冻结时的授权失效。",
            hint="重新运行以获取新的授权快照。",
        )
    return snapshot


def set_source_status(conn: Connection, work_id: int, status: SourceStatus | str) -> None:
    try:
        status = SourceStatus(status)
    except ValueError:
        raise InvalidInput(
            f"未知的来源状态「{status}」，可选：active / suspended / withdrawn。"
        ) from None
    get_work_row(conn, work_id)
    conn.execute(
        works.update()
        .where(works.c.id == work_id)
        .values(source_status=status.value, updated_at=utc_now())
    )
