"""``muse candidate judge CAND --provider P --model M``: quality details on demand (000 §3.1).

One blind judge on a production candidate, only when the author asks: scores per dimension with
quotes located in the body, stored with the candidate (``candidate_judgements``). It never
blocks, never changes a state and is never an automatic cost of writing. An evaluation
candidate is not visible here (the zone filter) and so cannot be judged this way.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, select

from muse.agents import dispatch
from muse.context import snapshot_payload
from muse.core.clock import iso, utc_now
from muse.core.errors import ContractViolation
from muse.core.ids import new_id
from muse.evaluation.contracts import DIMENSIONS, JudgeScores
from muse.evaluation.judging import judge_input
from muse.evaluation.tables import candidate_judgements
from muse.flow import candidate_row
from muse.store.engine import reading

LABEL = "候选"


def _load(engine: Engine, candidate_id: str) -> tuple[str, dict[str, Any], str]:
    with reading(engine) as conn:  # production view: evaluation candidates are not found
        cand = candidate_row(conn, candidate_id)
        payload = snapshot_payload(conn, cand.context_snapshot_id)
    return cand.body, payload["fineOutline"], cand.run_id


def _located(body: str, quotes: list[str]) -> list[dict[str, Any]]:
    out = []
    for quote in quotes:
        at = body.find(quote) if quote else -1
        out.append(
            {
                "quote": quote,
                "start": at if at >= 0 else None,
                "end": at + len(quote) if at >= 0 else None,
                "found": at >= 0,
            }
        )
    return out


def judge_candidate(
    engine: Engine, candidate_id: str, *, provider: str, model: str
) -> dict[str, Any]:
    body, outline, run_id = _load(engine, candidate_id)
    result = dispatch(
        engine,
        role="blind_judge",
        task="score",
        provider=provider,
        model=model,
        task_input=judge_input(outline, [LABEL], {LABEL: body}),
        output_model=JudgeScores,
        run_id=run_id,
    )
    assert isinstance(result.output, JudgeScores)
    scored = [c for c in result.output.candidates if c.candidateLabel == LABEL]
    if len(scored) != 1:
        raise ContractViolation("评委没有按输入的匿名标签给出这一份候选的评分。")
    sheet = {
        key: {
            **getattr(scored[0].dimensions, key).model_dump(mode="json"),
            "located": _located(body, getattr(scored[0].dimensions, key).quotes),
        }
        for key in DIMENSIONS
    }
    row = {
        "id": new_id("cj"),
        "candidate_id": candidate_id,
        "provider": provider,
        "model": model,
        "receipt_id": result.receipt_id,
        "sheet": sheet,
        "created_at": utc_now(),
    }
    with engine.begin() as conn:
        conn.execute(candidate_judgements.insert().values(**row))
    return _wire(row)


def _wire(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": row["id"],
        "candidateId": row["candidate_id"],
        "provider": row["provider"],
        "model": row["model"],
        "receiptId": row["receipt_id"],
        "sheet": row["sheet"],
        "createdAt": iso(row["created_at"]),
    }


def candidate_judgements_of(engine: Engine, candidate_id: str) -> list[dict[str, Any]]:
    with reading(engine) as conn:
        rows = conn.execute(
            select(candidate_judgements)
            .where(candidate_judgements.c.candidate_id == candidate_id)
            .order_by(candidate_judgements.c.created_at)
        ).mappings()
        return [_wire(dict(r)) for r in rows]
