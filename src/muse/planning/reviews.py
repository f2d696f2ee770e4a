"""需复核, stored: a confirmed stage superseded marks what was confirmed against it (spec 001 §1A).

A confirmed stage can be superseded — a new version drafted and confirmed, the old one kept in
history as ``superseded``. The stages below that were confirmed against the old version are not
wrong, but the author should look at them again; no dead end: they stay confirmed and writable.

* :func:`record_supersession` runs in the confirmation's transaction. For each confirmed section
  whose ``basis`` names a superseded twin of the newly confirmed one, it stores an ``open`` mark
  (``plan_reviews``) with the reason; and the marks of the superseded twins themselves are
  ``cleared`` — confirming a new version of a marked stage is the re-confirmation that clears it.
* :func:`review_findings` reads the open marks of sections still confirmed: ``muse plan check``
  reports them as warnings and ``muse plan show`` lists them (one computation, checking.py).

**Works superseded before migration 0022** have no rows: their marks are *derived on read*
(:func:`derived_reviews`) from the stored stage history — a confirmed section whose ``basis`` names
a section now ``superseded``, with no row for that pair, is marked exactly as
:func:`record_supersession` would have marked it. Derived rather than backfilled by a frozen data
migration because the rule then lives once (a frozen copy of it would drift from this one), it
covers any history that reaches the database without its rows (an old workspace opened later, a
restored export), and it needs no migration number. A derived mark clears the same way a stored
one does: confirming a new version of the marked stage leaves the marked section superseded.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, select

from muse.core.clock import utc_now
from muse.core.ids import new_id
from muse.planning.findings import Finding, warning
from muse.planning.sections import Section
from muse.planning.stages import STAGES
from muse.planning.tables import plan_reviews, plan_sections


@dataclass(frozen=True)
class Review:
    id: str
    section_id: str
    stage: int
    upstream_stage: int
    basis_id: str
    superseded_by: str
    reason: str
    state: str


def confirmed_twins(conn: Connection, section: Section) -> list[str]:
    """Ids of the confirmed rows ``section``'s confirmation will supersede (same work, stage,
    section type and chapter), read before it is confirmed."""
    query = select(plan_sections.c.id).where(
        plan_sections.c.work_id == section.work_id,
        plan_sections.c.stage == section.stage,
        plan_sections.c.section_type == section.section_type,
        plan_sections.c.state == "confirmed",
        plan_sections.c.id != section.id,
    )
    query = query.where(
        plan_sections.c.target_chapter == section.target_chapter
        if section.target_chapter is not None
        else plan_sections.c.target_chapter.is_(None)
    )
    return [str(i) for i in conn.execute(query).scalars()]


def record_supersession(conn: Connection, section: Section, superseded: list[str]) -> list[str]:
    """After ``section`` was confirmed in place of ``superseded``: clear the marks of the
    superseded rows and mark every confirmed section confirmed against them. Returns the ids of
    the new marks."""
    now = utc_now()
    if superseded:
        conn.execute(
            plan_reviews.update()
            .where(plan_reviews.c.section_id.in_(superseded), plan_reviews.c.state == "open")
            .values(state="cleared", cleared_at=now, cleared_by=section.id)
        )
    if not superseded or section.stage is None:
        return []
    old = set(superseded)
    rows = conn.execute(
        select(plan_sections.c.id, plan_sections.c.stage, plan_sections.c.basis).where(
            plan_sections.c.work_id == section.work_id,
            plan_sections.c.state == "confirmed",
            plan_sections.c.id != section.id,
        )
    ).all()
    marked = set(
        conn.execute(
            select(plan_reviews.c.section_id).where(
                plan_reviews.c.work_id == section.work_id,
                plan_reviews.c.superseded_by == section.id,
            )
        ).scalars()
    )
    created = []
    for row in rows:
        for basis in row.basis or []:
            if basis.get("stage") != section.stage or basis.get("id") not in old:
                continue
            if row.id in marked or row.stage is None:
                continue
            review_id = new_id("review")
            conn.execute(
                plan_reviews.insert().values(
                    id=review_id,
                    work_id=section.work_id,
                    section_id=row.id,
                    stage=row.stage,
                    upstream_stage=section.stage,
                    basis_id=basis["id"],
                    superseded_by=section.id,
                    reason=_reason(section.stage, section.id, basis["id"], row.id),
                    state="open",
                    created_at=now,
                )
            )
            marked.add(row.id)
            created.append(review_id)
    return created


def open_reviews(conn: Connection, work_id: int) -> list[Review]:
    """The open marks of sections that are still confirmed, oldest first; then the marks derived
    for supersessions that no row records."""
    return [*_stored_reviews(conn, work_id), *derived_reviews(conn, work_id)]


def derived_reviews(conn: Connection, work_id: int) -> list[Review]:
    """需复核 marks no row records (supersessions before migration 0022): each confirmed section
    confirmed against a section since superseded, naming the twin confirmed after that basis."""
    rows = conn.execute(
        select(
            plan_sections.c.id,
            plan_sections.c.stage,
            plan_sections.c.section_type,
            plan_sections.c.target_chapter,
            plan_sections.c.state,
            plan_sections.c.basis,
            plan_sections.c.confirmed_at,
        )
        .where(plan_sections.c.work_id == work_id)
        .order_by(plan_sections.c.confirmed_at, plan_sections.c.id)
    ).all()
    by_id = {r.id: r for r in rows}
    recorded = {
        (r.section_id, r.basis_id)
        for r in conn.execute(
            select(plan_reviews.c.section_id, plan_reviews.c.basis_id).where(
                plan_reviews.c.work_id == work_id
            )
        )
    }
    out = []
    for row in rows:
        if row.state != "confirmed" or row.stage is None:
            continue
        for basis in row.basis or []:
            old = by_id.get(basis.get("id"))
            if old is None or old.state != "superseded" or (row.id, old.id) in recorded:
                continue
            successor = _successor(old, rows)
            if successor is None or old.stage is None:
                continue
            out.append(
                Review(
                    id=f"derived:{row.id}:{old.id}",
                    section_id=row.id,
                    stage=row.stage,
                    upstream_stage=old.stage,
                    basis_id=old.id,
                    superseded_by=successor,
                    reason=_reason(old.stage, successor, old.id, row.id),
                    state="open",
                )
            )
    return out


def _successor(old: Any, rows: Sequence[Any]) -> str | None:
    """The twin of ``old`` confirmed next after it (rows are in confirmation order)."""
    twins = [
        r
        for r in rows
        if r.id != old.id
        and r.stage == old.stage
        and r.section_type == old.section_type
        and r.target_chapter == old.target_chapter
        and r.confirmed_at is not None
        and r.state in ("confirmed", "superseded")
    ]
    later = [r for r in twins if old.confirmed_at is None or r.confirmed_at > old.confirmed_at]
    return str(later[0].id) if later else None


def _reason(upstream_stage: int, successor: str, basis_id: str, section_id: str) -> str:
    return (
        f"{STAGES[upstream_stage].label}已由 {successor} 取代（确认时依据的是 {basis_id}），"
        f"{section_id} 需要复核：确认它的新版本即可清除此标记"
    )


def _stored_reviews(conn: Connection, work_id: int) -> list[Review]:
    rows = conn.execute(
        select(plan_reviews)
        .join(plan_sections, plan_sections.c.id == plan_reviews.c.section_id)
        .where(
            plan_reviews.c.work_id == work_id,
            plan_reviews.c.state == "open",
            plan_sections.c.state == "confirmed",
        )
        .order_by(plan_reviews.c.created_at, plan_reviews.c.id)
    ).all()
    return [
        Review(
            id=r.id,
            section_id=r.section_id,
            stage=r.stage,
            upstream_stage=r.upstream_stage,
            basis_id=r.basis_id,
            superseded_by=r.superseded_by,
            reason=r.reason,
            state=r.state,
        )
        for r in rows
    ]


def review_findings(conn: Connection, work_id: int) -> list[Finding]:
    """The stored 需复核 marks as warnings (never blocking: the author may write on)."""
    return [
        warning("upstream_superseded", r.reason, stage=r.stage, section_id=r.section_id)
        for r in open_reviews(conn, work_id)
    ]
