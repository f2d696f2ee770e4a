"""Blind judging and the stability gate of one sample (spec 000 §10; spec 003 judge).

Arms are known to the judges only by the random labels drawn at preregistration. The order of
presentation is derived from ``evaluationSetVersion + sampleId`` and fixed: judge 1 sees it,
judge 2 the reverse, a third judge (at most one, only when a dimension is unstable) the order
rotated by one. A judge's input holds the anonymous candidates, the common fine outline and the
rubric, nothing else; the role's input guards refuse anything more before it is sent.

Each sheet is stored as soon as it is returned; a resumed run reuses a stored sheet, and a
receipted judge reply whose sheet was not yet stored (a crash in between) is reused too.
"""

from __future__ import annotations

import hashlib
from fractions import Fraction
from typing import Any

from muse.agents import AgentCallError, ForbiddenInput, InvalidOutput, dispatch, ok_calls
from muse.core.canonical import canonical_json
from muse.core.clock import utc_now
from muse.core.errors import ContractViolation
from muse.evaluation.contracts import ARMS, DIMENSIONS, JudgeScores
from muse.evaluation.replay import SampleCtx, SampleFailed
from muse.evaluation.sample_state import arm_rows, eval_row, judge_sheets
from muse.evaluation.stability import Outcome, assess
from muse.evaluation.tables import eval_judgements
from muse.flow import candidate_row
from muse.store.engine import reading

RUBRIC = {
    "scale": "每个维度 1–5 分，步长 0.5：1 很差，2 较差，3 合格，4 良好，5 出色。",
    "dimensions": [{"key": key, "name": name} for key, name in DIMENSIONS.items()],
}


def presentation_order(set_version: str, sample_id: str, labels: dict[str, str]) -> list[str]:
    """The fixed, seeded order of the anonymous labels (judge 1)."""
    seed = f"{set_version}\n{sample_id}"
    return sorted(
        labels.values(),
        key=lambda label: hashlib.sha256(f"{seed}\n{label}".encode()).hexdigest(),
    )


def judge_order(base: list[str], judge_index: int) -> list[str]:
    if judge_index == 1:
        return list(base)
    if judge_index == 2:
        return list(reversed(base))
    return base[1:] + base[:1]


def judge_input(
    outline: dict[str, Any], order: list[str], bodies: dict[str, str]
) -> dict[str, Any]:
    return {
        "rubric": RUBRIC,
        "fineOutline": outline,
        "candidates": [{"candidateLabel": label, "text": bodies[label]} for label in order],
    }


def _bodies(ctx: SampleCtx, labels: dict[str, str]) -> dict[str, str]:
    with reading(ctx.engine) as conn:
        rows = arm_rows(conn, ctx.eval_run_id)
        return {
            labels[arm]: candidate_row(conn, _candidate_of(rows[arm].candidate_id)).body
            for arm in ARMS
        }


def _candidate_of(candidate_id: str | None) -> str:
    if candidate_id is None:  # judging starts after every arm has its candidate
        raise SampleFailed("failed_contract", "有一臂没有候选，无法评审。")
    return candidate_id


def _sheet(scores: JudgeScores, order: list[str]) -> dict[str, dict[str, Any]]:
    got = [c.candidateLabel for c in scores.candidates]
    if sorted(got) != sorted(order):
        raise SampleFailed(
            "failed_contract",
            f"评委返回的候选标签 {got} 与输入 {order} 不一致（须逐一照抄匿名标签）。",
        )
    return {
        c.candidateLabel: {
            key: getattr(c.dimensions, key).model_dump(mode="json") for key in DIMENSIONS
        }
        for c in scores.candidates
    }


def _receipted(ctx: SampleCtx, task_input: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """A successful judge call of this evaluation run with exactly this input, if any."""
    wanted = canonical_json(task_input)
    with reading(ctx.engine) as conn:
        rows = ok_calls(conn, ctx.eval_run_id, "judge")
    for row in rows:
        if canonical_json(row.task_input) == wanted:
            return row.id, row.output
    return None


def run_judge(ctx: SampleCtx, judge_index: int) -> dict[str, Any]:
    with reading(ctx.engine) as conn:
        stored = judge_sheets(conn, ctx.eval_run_id).get(judge_index)
        labels = eval_row(conn, ctx.eval_run_id)["labels"]
    if stored is not None:
        sheet: dict[str, Any] = stored["sheet"]
        return sheet
    base = presentation_order(ctx.evaluation_set.evaluationSetVersion, ctx.sample.sampleId, labels)
    order = judge_order(base, judge_index)
    task_input = judge_input(
        ctx.sample.outline().model_dump(mode="json"), order, _bodies(ctx, labels)
    )
    found = _receipted(ctx, task_input)
    if found is not None:
        receipt_id, output = found
        scores = JudgeScores.model_validate(output)
        ctx.emit(f"judge{judge_index}", "reused")
    else:
        receipt_id, scores = _call(ctx, judge_index, task_input)
    sheet = _sheet(scores, order)
    with ctx.engine.begin() as conn:
        conn.execute(
            eval_judgements.insert().values(
                eval_run_id=ctx.eval_run_id,
                judge_index=judge_index,
                order=order,
                receipt_id=receipt_id,
                sheet=sheet,
                created_at=utc_now(),
            )
        )
    return sheet


def _call(ctx: SampleCtx, judge_index: int, task_input: dict[str, Any]) -> tuple[str, JudgeScores]:
    judge = ctx.evaluation_set.models.judge
    ctx.emit(f"judge{judge_index}", "running")
    try:
        result = dispatch(
            ctx.engine,
            role="blind_judge",
            task="score",
            provider=judge.provider,
            model=judge.model,
            task_input=task_input,
            output_model=JudgeScores,
            run_id=ctx.eval_run_id,  # the receipt's run, never part of the judge's input
        )
    except (InvalidOutput, ForbiddenInput) as err:
        raise SampleFailed("failed_contract", f"评委 {judge_index} 输出不合合同：{err}") from None
    except AgentCallError as err:
        raise SampleFailed("failed_model", f"评委 {judge_index} 调用失败：{err}") from None
    ctx.emit(f"judge{judge_index}", "ok")
    assert isinstance(result.output, JudgeScores)
    return result.receipt_id, result.output


def scores_only(sheet: dict[str, dict[str, Any]]) -> dict[str, dict[str, float]]:
    return {label: {d: v["score"] for d, v in dims.items()} for label, dims in sheet.items()}


def assess_sheets(sheets: list[dict[str, Any]]) -> Outcome:
    try:
        return assess([scores_only(s) for s in sheets])
    except ContractViolation as err:
        raise SampleFailed("failed_contract", str(err)) from None


def final_by_arm(outcome: Outcome, labels: dict[str, str]) -> dict[str, dict[str, str]]:
    """arm → dimension → final score as a decimal string ("3.25"), de-blinded for the report."""
    assert outcome.final is not None
    return {arm: {d: _decimal(outcome.final[labels[arm]][d]) for d in DIMENSIONS} for arm in ARMS}


def _decimal(value: Fraction) -> str:
    return f"{float(value):g}"
