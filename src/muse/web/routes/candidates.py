"""Candidates: the list, and one candidate with everything the author decides on (spec 001 §2.3).

The page shows the body with every finding highlighted at its located quote and the claim ledger
as highlights linked to their evidence; the version history with a diff against any version; the
round's input summary (the seven items in order, item 7 the author's words); the detector report
with its binding and verdict; the fact deltas proposed for it; and the decision menu, which
offers only what :func:`muse.flow.menu.decision_menu` allows.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from muse.context import round_inputs
from muse.core.ids import new_id
from muse.evaluation import candidate_judgements_of
from muse.flow import (
    candidate_view,
    decision_menu,
    list_candidate_facts,
    list_candidates,
    load,
    load_context,
    version_diff,
)
from muse.web.deps import engine_of, read, work_nav, zoned_for
from muse.web.highlight import claim_marks, finding_marks, segments
from muse.web.render import page

router = APIRouter()


@router.get("/works/{work_id}/candidates", response_class=HTMLResponse)
def candidate_list(request: Request, work_id: int) -> Response:
    with read(request) as conn:
        info = work_nav(conn, work_id)
        rows = list_candidates(conn, work_id)
    return page(request, "candidates.html", title="候选稿", work=info, candidates=rows)


@router.get("/candidates/{candidate_id}", response_class=HTMLResponse)
def candidate_page(request: Request, candidate_id: str, against: int | None = None) -> Response:
    with read(request) as conn:
        conn = zoned_for(conn, "candidates", candidate_id)
        view = candidate_view(conn, candidate_id)
        cand, run = load(conn, candidate_id)
        info = work_nav(conn, cand["work_id"])
        diff = version_diff(conn, candidate_id, against) if against else view["diff"]
        rounds = _round_items(conn, view)
        facts = list_candidate_facts(conn, candidate_id).deltas
    judgements = candidate_judgements_of(engine_of(request), candidate_id)
    marks = finding_marks(view["findings"]) + claim_marks(view["claimLedger"])
    return page(
        request,
        "candidate.html",
        title=f"候选 · 第 {view['chapter']} 章 v{view['version']}",
        work=info,
        c=view,
        run=dict(run),
        segments=segments(view["body"], marks),
        diff=diff,
        against=against,
        rounds=rounds,
        facts=facts,
        menu=decision_menu(cand, run),
        command_id=new_id("cmd"),
        expected_revision=run["base_revision"],
        judgements=judgements,
    )


def _round_items(conn, view: dict[str, Any]) -> list[dict[str, Any]] | None:
    if view["context"].get("missing"):
        return None
    context = load_context(conn, view["contextSnapshotId"])
    return [
        {"position": r.position, "title": r.title, "summary": r.summary, "fields": list(r.content)}
        for r in round_inputs(context)
    ]


@router.get("/candidates/{candidate_id}/edit", response_class=HTMLResponse)
def edit_page(request: Request, candidate_id: str) -> Response:
    with read(request) as conn:
        conn = zoned_for(conn, "candidates", candidate_id)
        view = candidate_view(conn, candidate_id)
        cand, run = load(conn, candidate_id)
        info = work_nav(conn, cand["work_id"])
    return page(
        request,
        "candidate_edit.html",
        title=f"修改后合并 · 第 {view['chapter']} 章 v{view['version']}",
        work=info,
        c=view,
        menu=decision_menu(cand, run),
        command_id=new_id("cmd"),
        expected_revision=run["base_revision"],
    )
