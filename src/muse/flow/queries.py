"""Read models of runs and candidates for the CLI and the dashboard (no business rules)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Connection, select

from muse.agents import run_token_sums
from muse.core.clock import iso
from muse.core.errors import NotFound
from muse.flow.rows import CandidateRow, RunRow
from muse.flow.states import RUN_STATE_LABELS
from muse.flow.tables import candidates, run_events, runs


def list_runs(conn: Connection, work_id: int, limit: int = 50) -> list[dict[str, Any]]:
    rows = conn.execute(
        select(runs)
        .where(runs.c.work_id == work_id)
        .order_by(runs.c.created_at.desc())
        .limit(limit)
    ).mappings()
    listed = [_run(RunRow.from_row(r)) for r in rows]
    caches = _token_caches(conn, [r["id"] for r in listed])
    return [{**r, "tokenCache": caches.get(r["id"], token_cache(0, []))} for r in listed]


def token_cache(tokens_in: int, cached: list[int | None]) -> dict[str, Any]:
    """Input tokens the provider served from its prefix cache: ``share`` is None when no call
    reported a cached count (the provider does not say, or there were no calls)."""
    reported = [c for c in cached if c is not None]
    total = sum(reported)
    share = round(total / tokens_in, 3) if reported and tokens_in else None
    return {"tokensIn": tokens_in, "tokensCached": total if reported else None, "share": share}


def _token_caches(conn: Connection, run_ids: list[str]) -> dict[str, dict[str, Any]]:
    """Per run: input tokens and the cached ones the receipts recorded (one query)."""
    if not run_ids:
        return {}
    rows = run_token_sums(conn, run_ids)
    return {run_id: token_cache(int(t_in), [cached]) for run_id, t_in, cached in rows}


def chapter_token_caches(runs_listed: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """Per chapter, over the listed runs: the same sums as per run."""
    by_chapter: dict[int, list[dict[str, Any]]] = {}
    for r in runs_listed:
        by_chapter.setdefault(r["chapter"], []).append(r["tokenCache"])
    return {
        chapter: token_cache(
            sum(c["tokensIn"] for c in caches), [c["tokensCached"] for c in caches]
        )
        for chapter, caches in sorted(by_chapter.items())
    }


def _run(r: RunRow) -> dict[str, Any]:
    return {
        "id": r.id,
        "chapter": r.target_chapter,
        "runType": r.run_type,
        "state": r.state,
        "stateLabel": RUN_STATE_LABELS.get(r.state, r.state),
        "attempt": r.attempt,
        "provider": r.provider,
        "model": r.model,
        "asOf": r.as_of,
        "reason": r.reason,
        "createdAt": iso(r.created_at),
    }


def show_run(conn: Connection, run_id: str) -> dict[str, Any]:
    row = run_row(conn, run_id)
    events = conn.execute(
        select(run_events).where(run_events.c.run_id == run_id).order_by(run_events.c.id)
    ).mappings()
    data = _run(row)
    data["events"] = [
        {
            "node": e["node"],
            "status": e["status"],
            "attempt": e["attempt"],
            "durationMs": e["duration_ms"],
            "detail": e["detail"],
            "at": iso(e["created_at"]),
        }
        for e in events
    ]
    data["candidates"] = [
        c["id"]
        for c in conn.execute(
            select(candidates.c.id).where(candidates.c.run_id == run_id)
        ).mappings()
    ]
    return data


def list_candidates(
    conn: Connection, work_id: int, chapter: int | None = None
) -> list[dict[str, Any]]:
    query = select(
        candidates.c.id,
        candidates.c.run_id,
        candidates.c.chapter,
        candidates.c.version,
        candidates.c.state,
        candidates.c.han_count,
        candidates.c.sha256,
        candidates.c.created_at,
    ).where(candidates.c.work_id == work_id)
    if chapter is not None:
        query = query.where(candidates.c.chapter == chapter)
    return [
        {
            "id": r.id,
            "runId": r.run_id,
            "chapter": r.chapter,
            "version": r.version,
            "state": r.state,
            "hanCount": r.han_count,
            "sha256": r.sha256,
            "createdAt": iso(r.created_at),
        }
        for r in conn.execute(query.order_by(candidates.c.created_at.desc()))
    ]


def candidate_row(conn: Connection, candidate_id: str) -> CandidateRow:
    """The candidate as ``conn`` sees it (a production read does not see an evaluation one)."""
    found = (
        conn.execute(select(candidates).where(candidates.c.id == candidate_id)).mappings().first()
    )
    if found is None:
        raise NotFound(f"候选 {candidate_id} 不存在。", hint="用 muse candidates 查看候选。")
    return CandidateRow.from_row(found)


def run_row(conn: Connection, run_id: str) -> RunRow:
    """The run as ``conn`` sees it (a production read does not see an evaluation one)."""
    found = conn.execute(select(runs).where(runs.c.id == run_id)).mappings().first()
    if found is None:
        raise NotFound(f"运行 {run_id} 不存在。", hint="用 muse runs 查看运行记录。")
    return RunRow.from_row(found)


def candidate_of_version(conn: Connection, run_id: str, version: int) -> str | None:
    """The id of version ``version`` of the run's candidate, if it was stored."""
    return conn.execute(
        select(candidates.c.id).where(
            candidates.c.run_id == run_id, candidates.c.version == version
        )
    ).scalar()


def show_candidate(conn: Connection, candidate_id: str) -> dict[str, Any]:
    r = candidate_row(conn, candidate_id)
    return {
        "id": r.id,
        "runId": r.run_id,
        "chapter": r.chapter,
        "version": r.version,
        "state": r.state,
        "acceptanceEligible": r.acceptance_eligible,
        "hanCount": r.han_count,
        "sha256": r.sha256,
        "contextSnapshotId": r.context_snapshot_id,
        "report": r.report,
        "claimLedger": r.writer_output.get("claimLedger", []),
        "body": r.body,
    }


def last_accepted_run(conn: Connection, work_id: int) -> str | None:
    """The work's most recent run whose candidate became canon, or None."""
    run_id: str | None = conn.execute(
        select(runs.c.id)
        .where(runs.c.work_id == work_id, runs.c.state == "extraction_queued")
        .order_by(runs.c.updated_at.desc(), runs.c.id.desc())
        .limit(1)
    ).scalar()
    return run_id


def is_production_row(conn: Connection, table: str, row_id: str) -> bool:
    """Whether a production read on ``conn`` sees the run (``table="runs"``) or candidate."""
    t = runs if table == "runs" else candidates
    return conn.execute(select(t.c.id).where(t.c.id == row_id)).first() is not None


def newest_run_since(conn: Connection, work_id: int, chapter: int, since: datetime) -> str | None:
    """The newest production run of ``chapter`` created at or after ``since`` (a live page
    started a write at ``since``: its run, whoever's process runs it)."""
    return conn.execute(
        select(runs.c.id)
        .where(
            runs.c.work_id == work_id,
            runs.c.target_chapter == chapter,
            runs.c.run_type == "production",
            runs.c.created_at >= since,
        )
        .order_by(runs.c.created_at.desc())
        .limit(1)
    ).scalar()


def newest_candidate_of_run(conn: Connection, run_id: str) -> str | None:
    """The run's latest candidate version (what a finished write lands on)."""
    return conn.execute(
        select(candidates.c.id)
        .where(candidates.c.run_id == run_id)
        .order_by(candidates.c.version.desc(), candidates.c.created_at.desc())
        .limit(1)
    ).scalar()
