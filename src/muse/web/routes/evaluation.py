"""The evaluation zone (评测区), apart from production: preregistered evaluation sets, each
set's report (samples, arms A/B/C, C−A and C−B deltas, Gate A and B with the deciding rule),
and one sample with its arms and every blind judge's sheet. Everything is read through the
evaluation services (``muse eval report``), which open the zone (``muse.flow.zone``); production
pages never show these rows, and the pages here are visibly marked as evaluation."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from muse.evaluation import build_report, list_sets, sample_detail
from muse.web.deps import engine_of
from muse.web.render import page

router = APIRouter()


@router.get("/evaluation", response_class=HTMLResponse)
def zone_home(request: Request) -> Response:
    return page(request, "evaluation.html", title="评测区", sets=list_sets(engine_of(request)))


@router.get("/evaluation/sets/{set_id}", response_class=HTMLResponse)
def set_report(request: Request, set_id: str) -> Response:
    report = build_report(engine_of(request), set_id)
    return page(request, "evaluation_set.html", title="评测报告", r=report)


@router.get("/evaluation/sets/{set_id}/samples/{sample_key}", response_class=HTMLResponse)
def sample(request: Request, set_id: str, sample_key: str) -> Response:
    detail = sample_detail(engine_of(request), set_id, sample_key)
    return page(request, "evaluation_sample.html", title="评测样本", s=detail)
