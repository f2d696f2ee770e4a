"""Acceptance eligibility: derived from the run, never taken from what a writer or a row says.

Spec 001 §3 and §7: a candidate of an evaluation (or diagnostic) run can never become canonical
prose, enforced four times, each on its own:

1. **Derived** (here): a candidate's ``acceptance_eligible`` is computed from its run's
   ``run_type`` and ``mode`` when the row is written, whatever the WriterOutput claims. Every
   candidate row — a writer's attempt (``production``, an evaluation arm) and an author's edited
   version (``edit_merge``) — is written by :func:`insert_candidate`, so no insert can skip the
   rule; every run row, production or evaluation, by :func:`insert_run`.
2. **Contract**: WriterOutput v1 refuses ``acceptanceEligible: true`` outside the production mode
   and quality policy (``muse.context.output_contracts``).
3. **Accept entry**: ``muse.flow.accept`` refuses a candidate of a run that is not a production
   run in production mode, or not eligible, before any transaction.
4. **Database**: triggers (``muse.flow.triggers``) refuse an eligible candidate of a
   non-production run, a move to ACCEPTED of an ineligible one, and any change of ``run_type``,
   ``mode`` or ``acceptance_eligible`` after insert.
"""

from __future__ import annotations

from sqlalchemy import Connection, bindparam, select

from muse.context import WriterOutput
from muse.core.clock import utc_now
from muse.core.errors import NotFound
from muse.core.ids import new_id
from muse.core.process import process_owner
from muse.core.text import count_han
from muse.flow.tables import candidates, runs
from muse.store.prepared import Prepared
from muse.works import current_revision

_RUN_KIND = Prepared(select(runs.c.run_type, runs.c.mode).where(runs.c.id == bindparam("run_id")))
# the columns each insert below sets
_INSERT_RUN = Prepared(
    runs.insert(),
    keys=(
        *("id", "work_id", "target_chapter", "run_type", "mode", "quality_policy_version"),
        *("state", "attempt", "revision", "provider", "model", "as_of", "base_revision"),
        *("created_at", "updated_at", "owner"),
    ),
)
_INSERT_CANDIDATE = Prepared(
    candidates.insert(),
    keys=(
        *("id", "run_id", "work_id", "chapter", "version", "state", "revision"),
        *("acceptance_eligible", "body", "sha256", "han_count", "context_snapshot_id"),
        *("writer_output", "report", "created_at", "updated_at"),
    ),
)


def acceptance_eligible(run_type: str, mode: str) -> bool:
    """Only a production run in production mode produces acceptable candidates."""
    return run_type == "production" and mode == "production"


def run_acceptance_eligible(conn: Connection, run_id: str) -> bool:
    """The eligibility every candidate of run ``run_id`` carries."""
    row = _RUN_KIND.run(conn, run_id=run_id).first()
    if row is None:
        raise NotFound(f"运行 {run_id} 不存在。")
    return acceptance_eligible(row.run_type, row.mode)


def insert_run(
    conn: Connection,
    *,
    work_id: int,
    chapter: int,
    run_type: str,
    mode: str,
    quality_policy_version: str,
    as_of: int,
    provider: str,
    model: str,
) -> str:
    """Write a new run row in ``validating_context`` (attempt 1) and return its id; its base
    revision is the chapter's canonical revision now (0: no canonical text yet)."""
    run_id, now = new_id("run"), utc_now()
    _INSERT_RUN.run(
        conn,
        **{
            "id": run_id,
            "work_id": work_id,
            "target_chapter": chapter,
            "run_type": run_type,
            "mode": mode,
            "quality_policy_version": quality_policy_version,
            "state": "validating_context",
            "attempt": 1,
            "revision": 0,
            "provider": provider,
            "model": model,
            "as_of": as_of,
            "base_revision": current_revision(conn, work_id, chapter) or 0,
            "created_at": now,
            "updated_at": now,
            "owner": process_owner(),
        },
    )
    return run_id


def insert_candidate(
    conn: Connection,
    candidate_id: str,
    *,
    run_id: str,
    work_id: int,
    chapter: int,
    context_snapshot_id: str,
    output: WriterOutput,
) -> None:
    """Write a new DRAFT candidate row for ``output``; its eligibility comes from the run."""
    now = utc_now()
    _INSERT_CANDIDATE.run(
        conn,
        **{
            "id": candidate_id,
            "run_id": run_id,
            "work_id": work_id,
            "chapter": chapter,
            "version": output.candidate_version,
            "state": "DRAFT",
            "revision": 0,
            "acceptance_eligible": run_acceptance_eligible(conn, run_id),  # never the writer's word
            "body": output.candidate_body,
            "sha256": output.candidate_sha256,
            "han_count": count_han(output.candidate_body),
            "context_snapshot_id": context_snapshot_id,
            "writer_output": output.wire(),
            "report": None,
            "created_at": now,
            "updated_at": now,
        },
    )
