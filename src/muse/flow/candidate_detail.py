"""What ``muse candidate show`` / ``diff`` display: one read model, no business rules.

A candidate is shown with everything the author needs to decide (spec 001 §2.3 output blocks):
its text, version and state; the check report with every finding's quote located in the text
(line from 1, column and offset in code points); what it was written from (the frozen context:
snapshot id and sha256, the manifest's sources with their reasons, what was left out and why);
the decisions taken on it; and the diff against the previous version when there is one.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, select

from muse.context import snapshot_row
from muse.core.clock import iso
from muse.core.errors import NotFound
from muse.flow import queries
from muse.flow.decisions import CANDIDATE_STATE_LABELS
from muse.flow.diff import diff_texts
from muse.flow.rows import DecisionRow
from muse.flow.tables import candidates, decisions


def candidate_view(conn: Connection, candidate_id: str) -> dict[str, Any]:
    data = queries.show_candidate(conn, candidate_id)
    body = data["body"]
    versions = _versions(conn, data["runId"])
    data["stateLabel"] = CANDIDATE_STATE_LABELS.get(data["state"], data["state"])
    data["versions"] = versions
    data["findings"] = locate_findings(body, data["report"])
    data["aiFlavor"] = ((data["report"] or {}).get("mechanical") or {}).get("aiFlavor")
    data["context"] = context_summary(conn, data["contextSnapshotId"])
    data["decisions"] = _decisions(conn, [v["id"] for v in versions], candidate_id)
    data["attribution"] = (data["report"] or {}).get("attribution") or _attribution(
        data["decisions"], candidate_id
    )
    previous = [v for v in versions if v["version"] == data["version"] - 1]
    data["diff"] = version_diff(conn, candidate_id, previous[0]["version"]) if previous else None
    return data


def version_diff(conn: Connection, candidate_id: str, against: int | None = None) -> dict[str, Any]:
    """The diff of ``candidate_id`` against version ``against`` of its run (default: previous)."""
    row = _body(conn, candidates.c.id == candidate_id)
    if row is None:
        raise NotFound(f"候选 {candidate_id} 不存在。", hint="用 muse candidates 查看候选。")
    version = row.version - 1 if against is None else against
    base = _body(conn, candidates.c.run_id == row.run_id, candidates.c.version == version)
    if base is None:
        raise NotFound(
            f"候选 {candidate_id} 所在的运行没有 v{version}。",
            hint="用 muse candidate show 查看该运行的各个版本。",
        )
    diff = diff_texts(base.body, row.body)
    return {
        "candidateId": candidate_id,
        "version": row.version,
        "againstId": base.id,
        "againstVersion": base.version,
        **diff.to_dict(f"v{base.version}（{base.id}）", f"v{row.version}（{row.id}）"),
    }


def _body(conn: Connection, *where: Any) -> Any:
    return conn.execute(
        select(candidates.c.id, candidates.c.run_id, candidates.c.version, candidates.c.body).where(
            *where
        )
    ).first()


def _versions(conn: Connection, run_id: str) -> list[dict[str, Any]]:
    rows = conn.execute(
        select(candidates.c.id, candidates.c.version, candidates.c.state, candidates.c.sha256)
        .where(candidates.c.run_id == run_id)
        .order_by(candidates.c.version)
    )
    return [{"id": r.id, "version": r.version, "state": r.state, "sha256": r.sha256} for r in rows]


def locate(
    body: str, start: int | None, end: int | None, quote: str | None
) -> dict[str, Any] | None:
    """Where a finding is: its range, or its quote found verbatim; line from 1, code points."""
    if start is None and quote:
        at = body.find(quote)
        start, end = (at, at + len(quote)) if at >= 0 else (None, None)
    if start is None or end is None or not 0 <= start <= end <= len(body):
        return None
    line_start = body.rfind("\n", 0, start) + 1
    return {
        "start": start,
        "end": end,
        "line": body.count("\n", 0, start) + 1,
        "column": start - line_start,
        "text": body[start:end],
    }


def locate_findings(body: str, report: dict[str, Any] | None) -> list[dict[str, Any]]:
    report = report or {}
    found = []
    for source in ("mechanical", "semantic"):
        for f in (report.get(source) or {}).get("findings", []):
            found.append(
                {
                    "source": source,
                    "kind": f.get("kind"),
                    "severity": f.get("severity"),
                    "message": f.get("message"),
                    "quote": f.get("quote"),
                    "location": locate(body, f.get("start"), f.get("end"), f.get("quote")),
                }
            )
    return found


def context_summary(conn: Connection, snapshot_id: str) -> dict[str, Any]:
    row = snapshot_row(conn, snapshot_id)
    if row is None:
        return {"snapshotId": snapshot_id, "missing": True}
    payload = row.payload
    manifest = payload.get("manifest", {})
    return {
        "snapshotId": row.id,
        "sha256": row.sha256,
        "planId": row.plan_id,
        "manifestId": row.manifest_id,
        "asOf": row.as_of,
        "chapterRevisions": row.chapter_revisions,
        "sources": [
            {
                "kind": s.get("kind"),
                "sourceId": s.get("sourceId"),
                "chapter": s.get("chapter"),
                "reason": s.get("reason"),
                "trimmed": s.get("trimmed"),
            }
            for s in manifest.get("sources", [])
        ],
        "omitted": [
            {"kind": o.get("kind"), "sourceId": o.get("sourceId"), "reason": o.get("reason")}
            for o in payload.get("omittedSources", []) + manifest.get("omittedSources", [])
        ],
    }


def _decisions(
    conn: Connection, run_candidates: list[str], candidate_id: str
) -> list[dict[str, Any]]:
    rows = [
        DecisionRow.from_row(r)
        for r in conn.execute(
            select(decisions)
            .where(decisions.c.candidate_id.in_(run_candidates))
            .order_by(decisions.c.created_at)
        ).mappings()
    ]
    return [
        {
            "id": r.id,
            "kind": r.kind,
            "actor": r.actor,
            "outcome": r.outcome,
            "commandId": r.command_id,
            "candidateId": r.candidate_id,
            "newCandidateId": r.detail.get("newCandidateId"),
            "message": r.detail.get("message", ""),
            "at": iso(r.created_at),
        }
        for r in rows
        if r.candidate_id == candidate_id or r.detail.get("newCandidateId") == candidate_id
    ]


def _attribution(rows: list[dict[str, Any]], candidate_id: str) -> str:
    made_by_edit = any(d["newCandidateId"] == candidate_id for d in rows)
    return "author_edit" if made_by_edit else "writer"
