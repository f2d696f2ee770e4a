"""``muse invariants``: the standing invariants of the evaluation boundary (spec 001 §7).

1. no card or fact derived from an evaluation run is bound to production (confirmed drafts,
   approved fact deltas);
2. no evaluation quality result reaches a production view (production reads of candidates see no
   evaluation candidate; no on-demand judgement is attached to an evaluation candidate);
3. no canonical prose revision traces back to an evaluation run or candidate;
4. no evaluation candidate is acceptance eligible, ACCEPTED, or the subject of an accept decision.

Each violation names its table and row. The checks read the whole database through the
evaluation zone, except the one that must look through production's eyes.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from sqlalchemy import Connection, Engine, select

from muse.evaluation.sample_state import zone_engine
from muse.evaluation.tables import candidate_judgements
from muse.store.engine import reading
from muse.store.migrate import load_all_tables
from muse.works import prose_attributions

# An audit of the whole schema, like the board's raw table pages: it reads the other domains'
# tables through the store's one MetaData, never by importing their tables modules.
_TABLES = load_all_tables().tables
candidates, decisions, runs = _TABLES["candidates"], _TABLES["decisions"], _TABLES["runs"]
card_drafts, fact_deltas = _TABLES["card_drafts"], _TABLES["fact_deltas"]

INVARIANTS = {
    "evaluation_card_in_production": "评测派生的卡或事实进入了生产",
    "evaluation_quality_in_production": "评测质量结果出现在生产视图",
    "canonical_from_evaluation": "正式正文来源于评测候选",
    "evaluation_candidate_accepted": "评测候选被接受或可接受",
}


@dataclass(frozen=True)
class Violation:
    invariant: str
    table: str
    row_id: str
    detail: str

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "label": INVARIANTS[self.invariant]}


def _evaluation_ids(conn: Connection) -> tuple[set[str], set[str]]:
    run_ids = set(conn.execute(select(runs.c.id).where(runs.c.run_type == "evaluation")).scalars())
    cand_ids = (
        set(conn.execute(select(candidates.c.id).where(candidates.c.run_id.in_(run_ids))).scalars())
        if run_ids
        else set()
    )
    return run_ids, cand_ids


def _cards(conn: Connection, run_ids: set[str]) -> list[Violation]:
    found = []
    for table, status in ((card_drafts, "confirmed"), (fact_deltas, "approved")):
        rows = conn.execute(
            select(table.c.id, table.c.origin_detail).where(table.c.status == status)
        ).all()
        found += [
            Violation(
                "evaluation_card_in_production",
                table.name,
                str(r.id),
                f"来源运行 {r.origin_detail.get('runId')} 是评测运行",
            )
            for r in rows
            if isinstance(r.origin_detail, dict) and r.origin_detail.get("runId") in run_ids
        ]
    return found


def _quality(
    engine: Engine, conn: Connection, run_ids: set[str], cand_ids: set[str]
) -> list[Violation]:
    found = []
    with reading(engine) as production:  # production's own view, without the zone option
        seen = set(production.execute(select(candidates.c.id, candidates.c.run_id)).all())
    found += [
        Violation("evaluation_quality_in_production", "candidates", cid, "生产读取能看到评测候选")
        for cid, rid in seen
        if rid in run_ids
    ]
    rows = conn.execute(
        select(candidate_judgements.c.id, candidate_judgements.c.candidate_id)
    ).all()
    found += [
        Violation(
            "evaluation_quality_in_production",
            "candidate_judgements",
            r.id,
            f"按需评审挂在评测候选 {r.candidate_id} 上",
        )
        for r in rows
        if r.candidate_id in cand_ids
    ]
    return found


def _canonical(conn: Connection, run_ids: set[str], cand_ids: set[str]) -> list[Violation]:
    rows = prose_attributions(conn)
    return [
        Violation(
            "canonical_from_evaluation",
            "prose_blocks",
            str(r.id),
            f"修订来源 运行 {r.attribution.get('runId')} / 候选 {r.attribution.get('candidateId')}",
        )
        for r in rows
        if isinstance(r.attribution, dict)
        and (r.attribution.get("runId") in run_ids or r.attribution.get("candidateId") in cand_ids)
    ]


def _accepted(conn: Connection, cand_ids: set[str]) -> list[Violation]:
    if not cand_ids:
        return []
    rows = conn.execute(
        select(candidates.c.id, candidates.c.state, candidates.c.acceptance_eligible).where(
            candidates.c.id.in_(cand_ids)
        )
    ).all()
    found = [
        Violation(
            "evaluation_candidate_accepted",
            "candidates",
            r.id,
            f"状态 {r.state}，可接受={r.acceptance_eligible}",
        )
        for r in rows
        if r.state == "ACCEPTED" or r.acceptance_eligible
    ]
    decided = conn.execute(
        select(decisions.c.id, decisions.c.candidate_id, decisions.c.outcome).where(
            decisions.c.candidate_id.in_(cand_ids), decisions.c.kind.in_(("accept", "edit_merge"))
        )
    ).all()
    found += [
        Violation(
            "evaluation_candidate_accepted",
            "decisions",
            r.id,
            f"对评测候选 {r.candidate_id} 的接受决定（{r.outcome}）",
        )
        for r in decided
    ]
    return found


def check_invariants(engine: Engine) -> list[Violation]:
    zoned = zone_engine(engine)
    with reading(zoned) as conn:
        run_ids, cand_ids = _evaluation_ids(conn)
        return (
            _cards(conn, run_ids)
            + _quality(engine, conn, run_ids, cand_ids)
            + _canonical(conn, run_ids, cand_ids)
            + _accepted(conn, cand_ids)
        )
