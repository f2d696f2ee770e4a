"""Reading and moving one evaluation run (compare-and-set, writer-eval-v1)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Engine, select
from sqlalchemy.exc import DBAPIError

from muse.core.clock import utc_now
from muse.core.errors import NotFound, StaleTransition
from muse.evaluation.states import eval_move_allowed
from muse.evaluation.tables import eval_arms, eval_judgements, eval_runs
from muse.flow import ZONE_OPTION, is_state_machine_refusal
from muse.store.cas import compare_and_set


def zone_engine(engine: Engine) -> Engine:
    """The engine the evaluation chain works on: the evaluation zone is visible."""
    return engine.execution_options(**{ZONE_OPTION: "all"})


def eval_row(conn: Connection, eval_run_id: str) -> dict[str, Any]:
    row = conn.execute(select(eval_runs).where(eval_runs.c.id == eval_run_id)).mappings().first()
    if row is None:
        raise NotFound(f"评测运行 {eval_run_id} 不存在。")
    return dict(row)


def move_eval(
    conn: Connection,
    eval_run_id: str,
    new_state: str,
    *,
    expected_state: str,
    reason: str | None = None,
    **values: Any,
) -> None:
    """One compare-and-set move of an evaluation run; anything else raises StaleTransition."""
    row = eval_row(conn, eval_run_id)
    if row["state"] != expected_state:
        raise StaleTransition(
            f"评测运行 {eval_run_id} 已是 {row['state']}（预期 {expected_state}）。"
        )
    if not eval_move_allowed(row["state"], new_state):
        raise StaleTransition(f"评测运行 {eval_run_id} 不能从 {row['state']} 转到 {new_state}。")
    update = {"state": new_state, "revision": row["revision"] + 1, "updated_at": utc_now()}
    if reason is not None:
        update["reason"] = reason
    try:
        compare_and_set(
            conn,
            eval_runs,
            where={"id": eval_run_id, "state": row["state"], "revision": row["revision"]},
            values={**update, **values},
        )
    except DBAPIError as err:
        if not is_state_machine_refusal(err):
            raise
        raise StaleTransition(f"数据库拒绝了这次状态转移：{err.orig}") from err


@dataclass(frozen=True)
class ArmRow:
    arm: str
    run_id: str
    candidate_id: str | None
    writer_receipt_id: str | None
    check: dict[str, Any] | None


def arm_rows(conn: Connection, eval_run_id: str) -> dict[str, ArmRow]:
    rows = conn.execute(select(eval_arms).where(eval_arms.c.eval_run_id == eval_run_id)).all()
    return {
        r.arm: ArmRow(r.arm, r.run_id, r.candidate_id, r.writer_receipt_id, r.check) for r in rows
    }


def judge_sheets(conn: Connection, eval_run_id: str) -> dict[int, dict[str, Any]]:
    rows = conn.execute(
        select(eval_judgements).where(eval_judgements.c.eval_run_id == eval_run_id)
    ).all()
    return {
        r.judge_index: {"order": r.order, "sheet": r.sheet, "receiptId": r.receipt_id} for r in rows
    }
