"""``muse eval report``: per sample, arm and dimension; C−A and C−B deltas; Gate A and B.

Everything here is read from stored rows (the evaluation runs, their arms and judge sheets, and
the receipts of every call); nothing is computed that is not stored. The gate facts are measured
over the whole set and handed to the pure gate functions (``muse.evaluation.gates``).
"""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal
from fractions import Fraction
from typing import Any

from sqlalchemy import Connection, Engine, Integer, Row, func, select

from muse.agents import usage_by_model
from muse.core.errors import NotFound
from muse.evaluation.contracts import ARMS, DIMENSIONS, SCENE_CLASSES, EvaluationSet
from muse.evaluation.gates import GateFacts, SampleDeltas, gate_a, gate_b
from muse.evaluation.preregistration import load_set
from muse.evaluation.rounds import base_of, round_of_set, rounds_of, set_ids_in_order
from muse.evaluation.sample_state import arm_rows, judge_sheets, zone_engine
from muse.evaluation.states import EVAL_STATE_LABELS, EVAL_TERMINAL, REPORT_STATES
from muse.evaluation.tables import eval_runs, eval_sets
from muse.store.engine import reading
from muse.works import get_work_row

SYSTEM_FAILURES = frozenset({"failed_model", "failed_freeze", "failed_authorization"})


def _f(value: str) -> Fraction:
    return Fraction(value)


def _delta(final: dict[str, Any], left: str, right: str) -> dict[str, str]:
    return {d: f"{float(_f(final[left][d]) - _f(final[right][d])):g}" for d in DIMENSIONS}


def _sample(conn: Connection, row: Row[*tuple[Any, ...]]) -> dict[str, Any]:
    arms = arm_rows(conn, row.id)
    sheets = judge_sheets(conn, row.id)
    work = get_work_row(conn, row.work_id)
    out: dict[str, Any] = {
        "sampleId": row.sample_key,
        "work": work.title,
        "targetChapter": row.target_chapter,
        "asOf": row.as_of,
        "sceneClass": row.scene_class,
        "state": row.state,
        "stateLabel": EVAL_STATE_LABELS[row.state],
        "reason": row.reason,
        "judges": len(sheets),
        "arms": {
            arm: {
                "runId": arms[arm].run_id,
                "candidateId": arms[arm].candidate_id,
                "check": {k: v for k, v in (arms[arm].check or {}).items() if k != "findings"}
                or None,
                "final": (row.final or {}).get(arm),
            }
            for arm in ARMS
            if arm in arms
        },
        "deltas": None,
    }
    if row.final:
        out["deltas"] = {"C-A": _delta(row.final, "C", "A"), "C-B": _delta(row.final, "C", "B")}
    return out


def _distribution(samples: list[dict[str, Any]], key: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for d in DIMENSIONS:
        values = [_f(s["deltas"][key][d]) for s in samples if s["deltas"]]
        if not values:
            out[d] = None
            continue
        out[d] = {
            "mean": f"{float(sum(values) / len(values)):.3f}",
            "min": f"{float(min(values)):g}",
            "max": f"{float(max(values)):g}",
            "positive": sum(1 for v in values if v > 0),
            "zero": sum(1 for v in values if v == 0),
            "negative": sum(1 for v in values if v < 0),
        }
    return out


def gate_facts(samples: list[dict[str, Any]], total: int, dry_run: bool) -> GateFacts:
    valid = [s for s in samples if s["state"] in REPORT_STATES]
    checks = [a["check"] for s in samples for a in s["arms"].values() if a["check"]]
    c_checks = [
        s["arms"]["C"]["check"] for s in samples if "C" in s["arms"] and s["arms"]["C"]["check"]
    ]
    hard_total = sum(c["hardTotal"] for c in c_checks)
    hard_missing = sum(c["hardMissing"] for c in c_checks)
    books: dict[str, int] = defaultdict(int)
    for s in valid:
        books[s["work"]] += 1
    return GateFacts(
        dry_run=dry_run,
        valid_samples=len(valid),
        schema_invalid=sum(1 for s in samples if s["state"] == "failed_contract"),
        future_leaks=sum(c["futureLeaks"] for c in checks),
        system_failures=sum(1 for s in samples if s["state"] in SYSTEM_FAILURES),
        c_high_severity=sum(c["highSeverity"] for c in c_checks),
        c_hard_coverage=Fraction(hard_total - hard_missing, hard_total)
        if hard_total
        else Fraction(1),
        books_valid=dict(books),
        scene_classes_valid=frozenset(s["sceneClass"] for s in valid),
        samples_total=total,
        unstable_samples=sum(1 for s in samples if s["state"] == "invalid_unstable"),
        deltas=tuple(
            SampleDeltas(
                fidelity=_f(s["deltas"]["C-A"]["settingFidelity"]),
                style=_f(s["deltas"]["C-A"]["styleConsistency"]),
                tension=_f(s["deltas"]["C-A"]["narrativeTension"]),
            )
            for s in valid
        ),
    )


def _usage(conn: Connection, run_ids: list[str]) -> list[dict[str, Any]]:
    rows = usage_by_model(conn, run_ids)
    return [
        {
            "provider": p,
            "model": m,
            "role": role,
            "calls": n,
            "inputTokens": int(tin or 0),
            "outputTokens": int(tout or 0),
            "cost": None if cost is None else str(Decimal(str(cost)).quantize(Decimal("0.0001"))),
            "currency": cur,
        }
        for p, m, role, n, tin, tout, cost, cur in rows
    ]


def _set_view(conn: Connection, set_id: str, evaluation_set: EvaluationSet) -> dict[str, Any]:
    rows = conn.execute(
        select(eval_runs).where(eval_runs.c.set_id == set_id).order_by(eval_runs.c.sample_key)
    ).all()
    samples = [_sample(conn, row) for row in rows]
    run_ids = [r.id for r in rows] + [a["runId"] for s in samples for a in s["arms"].values()]
    facts = gate_facts(samples, len(rows), evaluation_set.dry_run)
    a = gate_a(facts)
    return {
        "samples": samples,
        "usage": _usage(conn, run_ids),
        "gateA": a,
        "gateB": gate_b(facts, a),
        "finished": bool(rows) and all(r.state in EVAL_TERMINAL for r in rows),
    }


def _means(samples: list[dict[str, Any]]) -> dict[str, str | None]:
    dist = _distribution(samples, "C-A")
    return {d: (v["mean"] if v else None) for d, v in dist.items()}


def _rounds(conn: Connection, set_id: str) -> list[dict[str, Any]]:
    """Round 0 (the base set) and every optimisation round, each compared with the one before:
    the variable it changed, both gates, and the C−A mean of each dimension with its change."""
    base_id = base_of(conn, set_id)
    items = {r.number: r for r in rounds_of(conn, base_id)}
    if not items:
        return []
    out: list[dict[str, Any]] = []
    previous: dict[str, str | None] | None = None
    for number, sid in set_ids_in_order(conn, base_id):
        _, evaluation_set = load_set(conn, sid)
        view = _set_view(conn, sid, evaluation_set)
        means = _means(view["samples"])
        entry: dict[str, Any] = {
            "number": number,
            "setId": sid,
            "evaluationSetVersion": evaluation_set.evaluationSetVersion,
            "variables": evaluation_set.settings.values,
            "finished": view["finished"],
            "gateA": view["gateA"].verdict,
            "gateB": view["gateB"].verdict,
            "meanCminusA": means,
            "changeFromPrevious": None,
            "calls": sum(u["calls"] for u in view["usage"]),
        }
        if number:
            entry.update(items[number].to_dict())
        if previous is not None:
            entry["changeFromPrevious"] = {
                d: None
                if means[d] is None or previous[d] is None
                else f"{float(Fraction(means[d] or 0) - Fraction(previous[d] or 0)):+.3f}"
                for d in DIMENSIONS
            }
        out.append(entry)
        previous = means
    return out


def build_report(engine: Engine, ref: str) -> dict[str, Any]:
    engine = zone_engine(engine)
    with reading(engine) as conn:
        set_id, evaluation_set = load_set(conn, ref)
        view = _set_view(conn, set_id, evaluation_set)
        own_round = round_of_set(conn, set_id)
        rounds = _rounds(conn, set_id)
    samples, usage, a, b = view["samples"], view["usage"], view["gateA"], view["gateB"]
    return {
        "setId": set_id,
        "evaluationSetVersion": evaluation_set.evaluationSetVersion,
        "dryRun": evaluation_set.dry_run,
        "models": evaluation_set.models.model_dump(),
        "variables": evaluation_set.settings.values,
        "round": own_round.to_dict() if own_round else None,
        "rounds": rounds,
        "samples": samples,
        "deltas": {
            "C-A": _distribution(samples, "C-A"),
            "C-B": _distribution(samples, "C-B"),
        },
        "invalid": [
            {"sampleId": s["sampleId"], "state": s["state"], "reason": s["reason"]}
            for s in samples
            if s["state"] not in REPORT_STATES
        ],
        "gateA": {"verdict": a.verdict, "rule": a.rule, "reason": a.reason},
        "gateB": {"verdict": b.verdict, "rule": b.rule, "reason": b.reason},
        "usage": usage,
        "totals": {
            "calls": sum(u["calls"] for u in usage),
            "inputTokens": sum(u["inputTokens"] for u in usage),
            "outputTokens": sum(u["outputTokens"] for u in usage),
        },
        "sceneClasses": SCENE_CLASSES,
        "dimensions": DIMENSIONS,
    }


def list_sets(engine: Engine) -> list[dict[str, Any]]:
    """Every preregistered evaluation set, newest first, with its sample count and how many
    samples have ended in a report state (the workbench's 评测区)."""
    with reading(zone_engine(engine)) as conn:
        counts = {
            set_id: (int(total), int(done or 0))
            for set_id, total, done in conn.execute(
                select(
                    eval_runs.c.set_id,
                    func.count(),
                    func.sum(func.cast(eval_runs.c.state.in_(REPORT_STATES), Integer)),
                ).group_by(eval_runs.c.set_id)
            )
        }
        rows = conn.execute(select(eval_sets).order_by(eval_sets.c.created_at.desc())).all()
    return [
        {
            "id": r.id,
            "version": r.version,
            "sha256": r.sha256,
            "dryRun": r.dry_run,
            "createdAt": r.created_at,
            "samples": counts.get(r.id, (0, 0))[0],
            "reported": counts.get(r.id, (0, 0))[1],
            "document": r.document,
        }
        for r in rows
    ]


def sample_detail(engine: Engine, set_id: str, sample_key: str) -> dict[str, Any]:
    """One sample of an evaluation: its row, its three arms (run, candidate, check) and every
    judge's sheet in the order the judge saw the anonymous candidates."""
    with reading(zone_engine(engine)) as conn:
        row = conn.execute(
            select(eval_runs).where(
                eval_runs.c.set_id == set_id, eval_runs.c.sample_key == sample_key
            )
        ).first()
        if row is None:
            raise NotFound(f"评测集 {set_id} 没有样本 {sample_key}。")
        sample = _sample(conn, row)
        sheets = judge_sheets(conn, row.id)
    return {
        **sample,
        "id": row.id,
        "setId": row.set_id,
        "labels": row.labels,
        "final": row.final,
        "qualityPolicyVersion": row.quality_policy_version,
        "judgements": [{"judge": k, **v} for k, v in sorted(sheets.items())],
    }
