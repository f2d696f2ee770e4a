"""Everything about one run, for ``muse run show`` and the dashboard (read only, no rules).

Principle 1: if this cannot show it, it was not stored. A run's detail is its row, the frozen
context it wrote from (snapshot id, sha256, plan and manifest ids), every node event grouped by
attempt (timings and each node's input hashes and receipt ids as the node recorded them), every
candidate version with its check outcome, every model-call receipt (role, model asked and
reported, tokens, latency, input / messages / output sha256), and the evidence gaps searched.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, select

from muse.agents import run_call_rows
from muse.context import run_snapshots
from muse.core.clock import iso
from muse.flow import queries
from muse.flow.rows import RunRow
from muse.flow.states import RUN_STATE_LABELS, STEP_LABELS
from muse.flow.tables import candidates, run_evidence, runs


def show_run_detail(conn: Connection, run_id: str) -> dict[str, Any]:
    data = queries.show_run(conn, run_id)  # raises NotFound with a hint
    row = RunRow.from_row(conn.execute(select(runs).where(runs.c.id == run_id)).mappings().one())
    data["workId"] = row.work_id
    data["authorizationSnapshotId"] = row.authorization_snapshot_id
    data["baseRevision"] = row.base_revision
    data["qualityPolicyVersion"] = row.quality_policy_version
    data["maxRewrites"] = next(
        (
            e["detail"].get("maxRewrites")
            for e in data["events"]
            if e["node"] == "validating_context" and "maxRewrites" in e["detail"]
        ),
        None,
    )
    data["contextSnapshots"] = _snapshots(conn, run_id)
    data["candidates"] = _candidates(conn, run_id)
    data["receipts"] = _receipts(conn, run_id)
    data["tokenCache"] = queries.token_cache(
        sum(r["tokensIn"] or 0 for r in data["receipts"]),
        [r["tokensCached"] for r in data["receipts"]],
    )
    data["evidenceGaps"] = _evidence(conn, run_id)
    data["attempts"] = _attempts(data)
    return data


def _attempts(data: dict[str, Any]) -> list[dict[str, Any]]:
    numbers = sorted(
        {e["attempt"] for e in data["events"]} | {c["attempt"] for c in data["candidates"]}
    )
    out = []
    for n in numbers:
        nodes = [
            {**e, "label": STEP_LABELS.get(e["node"], RUN_STATE_LABELS.get(e["node"], e["node"]))}
            for e in data["events"]
            if e["attempt"] == n
        ]
        out.append(
            {
                "attempt": n,
                "nodes": nodes,
                "candidates": [c["id"] for c in data["candidates"] if c["attempt"] == n],
                "durationMs": sum(e["durationMs"] for e in nodes if e["status"] != "started"),
            }
        )
    return out


def _snapshots(conn: Connection, run_id: str) -> list[dict[str, Any]]:
    rows = run_snapshots(conn, run_id)
    return [
        {
            "id": r.id,
            "attempt": r.attempt,
            "asOf": r.as_of,
            "planId": r.plan_id,
            "manifestId": r.manifest_id,
            "sha256": r.sha256,
            "createdAt": iso(r.created_at),
        }
        for r in rows
    ]


def _candidates(conn: Connection, run_id: str) -> list[dict[str, Any]]:
    rows = conn.execute(
        select(
            candidates.c.id,
            candidates.c.version,
            candidates.c.state,
            candidates.c.sha256,
            candidates.c.han_count,
            candidates.c.report,
            candidates.c.writer_output,
        )
        .where(candidates.c.run_id == run_id)
        .order_by(candidates.c.version)
    )
    out = []
    for r in rows:
        report = r.report or {}
        out.append(
            {
                "id": r.id,
                "version": r.version,
                "attempt": report.get("attempt", (r.writer_output or {}).get("attempt", r.version)),
                "state": r.state,
                "sha256": r.sha256,
                "hanCount": r.han_count,
                "mechanical": (report.get("mechanical") or {}).get("status", "未检测"),
                "semantic": (report.get("semantic") or {}).get("status", "未检测"),
                "blocking": [
                    f
                    for f in (report.get("mechanical") or {}).get("findings", [])
                    + (report.get("semantic") or {}).get("findings", [])
                    if f.get("severity") == "high"
                ],
            }
        )
    return out


def _receipts(conn: Connection, run_id: str) -> list[dict[str, Any]]:
    # the receipt's own columns, not the prompt and output it stores
    names = "id role task provider model_requested model_returned status tokens_in tokens_out"
    names += " latency_ms input_sha256 messages_sha256 output_sha256 started_at"
    names += " tokens_cached request_params policy_version"
    rows = run_call_rows(conn, run_id, names.split())
    return [
        {
            "id": r["id"],
            "role": r["role"],
            "task": r["task"],
            "provider": r["provider"],
            "modelRequested": r["model_requested"],
            "modelReturned": r["model_returned"],
            "status": r["status"],
            "tokensIn": r["tokens_in"],
            "tokensOut": r["tokens_out"],
            "tokensCached": r["tokens_cached"],
            "latencyMs": r["latency_ms"],
            "inputSha256": r["input_sha256"],
            "messagesSha256": r["messages_sha256"],
            "outputSha256": r["output_sha256"],
            "startedAt": iso(r["started_at"]),
            # where the model came from (`muse models use` or the command line); None: not known
            "modelChoice": (r["request_params"] or {}).get("modelChoice"),
            "policyVersion": r["policy_version"],
        }
        for r in rows
    ]


def _evidence(conn: Connection, run_id: str) -> list[dict[str, Any]]:
    rows = conn.execute(
        select(run_evidence)
        .where(run_evidence.c.run_id == run_id)
        .order_by(run_evidence.c.attempt, run_evidence.c.gap_index)
    ).mappings()
    return [
        {
            "attempt": r["attempt"],
            "candidateId": r["candidate_id"],
            "index": r["gap_index"],
            "subject": r["subject"],
            "needed": r["needed"],
            "origin": r["origin"],
            "outcome": r["outcome"],
            "factEvidence": r["fact_evidence"],
            "newSetting": r["new_setting"],
            "note": r["note"],
        }
        for r in rows
    ]
