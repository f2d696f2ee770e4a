"""Offline optimisation rounds (spec 000 §10): at most 5, each changing exactly one variable.

A separate state machine from the production rewrite loop (``flow.rewrite``) and from the
per-sample ``writer-eval-v1`` machine: a round is

    declared → evaluating → reported

and is stored in the evaluation zone (``eval_rounds``). The base set (round 0) is a
preregistered set that declares, under ``variables``, what rounds may change
(``muse.evaluation.variables``). Round *k* takes round *k − 1*'s set, changes exactly one
declared variable, and is preregistered as its own immutable set (version ``BASE#rk``, fresh
anonymous labels) and evaluated in full — every sample, arm and judge — then compared with
round *k − 1*. A sixth round, a round changing no variable or two, an undeclared variable, or a
round before the previous one is reported are refused (Chinese messages); the database backs
the limit of five (a check constraint and a unique round number).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from sqlalchemy import Connection, Engine, select

from muse.core.clock import utc_now
from muse.core.errors import InvalidInput, NotFound, StaleTransition
from muse.core.ids import new_id
from muse.evaluation.contracts import EvaluationSet
from muse.evaluation.preregistration import load_set, preregister
from muse.evaluation.replay import Progress
from muse.evaluation.runner import RunResult, run_set
from muse.evaluation.sample_state import zone_engine
from muse.evaluation.states import EVAL_TERMINAL
from muse.evaluation.tables import eval_rounds, eval_runs
from muse.evaluation.variables import VARIABLES, variable_problem
from muse.store.cas import compare_and_set
from muse.store.engine import reading

MAX_ROUNDS = 5
ROUND_TRANSITIONS: dict[str, frozenset[str]] = {
    "declared": frozenset({"evaluating"}),
    "evaluating": frozenset({"reported"}),
}
ROUND_STATE_LABELS = {"declared": "已声明", "evaluating": "评测中", "reported": "已出报告"}


@dataclass(frozen=True)
class Round:
    id: str
    base_set_id: str
    number: int
    variable: str
    previous_value: int
    value: int
    set_id: str
    state: str
    revision: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "roundId": self.id,
            "baseSetId": self.base_set_id,
            "number": self.number,
            "variable": self.variable,
            "variableLabel": VARIABLES[self.variable].label,
            "previousValue": self.previous_value,
            "value": self.value,
            "setId": self.set_id,
            "state": self.state,
            "stateLabel": ROUND_STATE_LABELS[self.state],
        }


def _round(row: Any) -> Round:
    return Round(
        row.id,
        row.base_set_id,
        row.number,
        row.variable,
        row.previous_value,
        row.value,
        row.set_id,
        row.state,
        row.revision,
    )


def rounds_of(conn: Connection, base_set_id: str) -> list[Round]:
    rows = conn.execute(
        select(eval_rounds)
        .where(eval_rounds.c.base_set_id == base_set_id)
        .order_by(eval_rounds.c.number)
    ).all()
    return [_round(r) for r in rows]


def round_of_set(conn: Connection, set_id: str) -> Round | None:
    """The round whose own set is ``set_id`` (None: a base set, round 0)."""
    row = conn.execute(select(eval_rounds).where(eval_rounds.c.set_id == set_id)).first()
    return None if row is None else _round(row)


def read_round_file(path: Path) -> dict[str, int]:
    """A round file: a mapping ``variable: value`` (exactly one entry is accepted later)."""
    if not path.is_file():
        raise NotFound(f"找不到轮次文件 {path}。")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as err:
        raise InvalidInput(f"轮次文件 {path.name} 不是合法的 UTF-8 YAML：{err}") from None
    if not isinstance(data, dict) or not data:
        raise InvalidInput(f"轮次文件 {path.name} 必须是「变量: 值」的键值表。")
    return {str(k): v for k, v in data.items()}


def _all_finished(conn: Connection, set_id: str) -> bool:
    states = conn.execute(select(eval_runs.c.state).where(eval_runs.c.set_id == set_id)).all()
    return bool(states) and all(s.state in EVAL_TERMINAL for s in states)


def _one_change(changes: Mapping[str, object]) -> tuple[str, object]:
    if not changes:
        raise InvalidInput("本轮没有给出要改变的变量：每轮必须恰好改变一个已声明的变量。")
    if len(changes) > 1:
        names = "、".join(changes)
        raise InvalidInput(
            f"每轮只能改变一个变量，本轮要改 {len(changes)} 个（{names}）。",
            hint="把它们拆成先后几轮，每轮一个变量，才能知道每个变化各自的效果。",
        )
    return next(iter(changes.items()))


def declare_round(engine: Engine, ref: str, changes: Mapping[str, object]) -> Round:
    """Declare (and preregister) the next round of base set ``ref``; an unfinished round with
    exactly the same change is returned as it is (to be evaluated further)."""
    engine = zone_engine(engine)
    with reading(engine) as conn:
        base_id, base = load_set(conn, ref)
        as_round = round_of_set(conn, base_id)
        if as_round is not None:
            raise InvalidInput(
                f"评测集「{base.evaluationSetVersion}」本身是第 {as_round.number} 轮的评测集。",
                hint="新一轮请对基础评测集（第 0 轮）发起：muse eval round 基础评测集 …",
            )
        rounds = rounds_of(conn, base_id)
        base_finished = _all_finished(conn, base_id)
    name, value = _one_change(changes)
    if name not in base.variables:
        declared = "、".join(base.variables) or "（无）"
        raise InvalidInput(
            f"变量「{name}」没有在评测集「{base.evaluationSetVersion}」的 variables 中声明；"
            f"离线优化只能改预注册时声明的变量（已声明：{declared}）。",
            hint="要调的变量须在预注册前写进评测集的 variables（改过的文件是新版本）。",
        )
    problem = variable_problem(name, value)
    if problem is not None:
        raise InvalidInput(problem + "。")
    assert isinstance(value, int)
    last = rounds[-1] if rounds else None
    if last is not None and last.state != "reported":
        if (last.variable, last.value) == (name, value):
            return last
        raise InvalidInput(
            f"第 {last.number} 轮（{last.variable} = {last.value}）尚未完成评测，不能开新一轮。",
            hint=f"先以同样的变量与值继续第 {last.number} 轮：muse eval round {ref} "
            f"--variable {last.variable} --value {last.value}",
        )
    if len(rounds) >= MAX_ROUNDS:
        raise InvalidInput(
            f"离线优化最多 {MAX_ROUNDS} 轮，评测集「{base.evaluationSetVersion}」已经做完 "
            f"{len(rounds)} 轮，不能再开第 {len(rounds) + 1} 轮。",
            hint="需要继续调整时，请以新的 evaluationSetVersion 重新预注册评测集。",
        )
    if not base_finished:
        raise InvalidInput(
            "基础评测（第 0 轮）尚未完成，无法与之比较。",
            hint=f"先运行 muse eval run {ref}。",
        )
    previous = _previous_set(engine, base, last)
    before = previous.variables[name]
    if before == value:
        raise InvalidInput(
            f"变量 {name} 在上一轮已经是 {value}：本轮没有改变任何变量。",
            hint="每轮必须恰好改变一个已声明变量的值。",
        )
    number = len(rounds) + 1
    version = f"{base.evaluationSetVersion}#r{number}"
    if len(version) > 80:
        raise InvalidInput(
            f"评测集版本「{base.evaluationSetVersion}」太长，无法派生第 {number} 轮的版本号"
            "（上限 80 个字符）。"
        )
    derived = previous.model_copy(
        update={"evaluationSetVersion": version, "variables": {**previous.variables, name: value}}
    )
    registered = preregister(engine, EvaluationSet.model_validate(derived.model_dump()))
    now = utc_now()
    round_id = new_id("evround")
    with engine.begin() as conn:
        conn.execute(
            eval_rounds.insert().values(
                id=round_id,
                base_set_id=base_id,
                number=number,
                variable=name,
                previous_value=before,
                value=value,
                set_id=registered.set_id,
                state="declared",
                revision=0,
                created_at=now,
                updated_at=now,
            )
        )
        row = conn.execute(select(eval_rounds).where(eval_rounds.c.id == round_id)).one()
    return _round(row)


def _previous_set(engine: Engine, base: EvaluationSet, last: Round | None) -> EvaluationSet:
    if last is None:
        return base
    with reading(engine) as conn:
        return load_set(conn, last.set_id)[1]


def _move(engine: Engine, item: Round, new_state: str) -> Round:
    if new_state not in ROUND_TRANSITIONS.get(item.state, frozenset()):
        raise StaleTransition(f"第 {item.number} 轮不能从 {item.state} 转到 {new_state}。")
    with engine.begin() as conn:
        compare_and_set(
            conn,
            eval_rounds,
            where={"id": item.id, "state": item.state, "revision": item.revision},
            values={"state": new_state, "revision": item.revision + 1, "updated_at": utc_now()},
        )
        row = conn.execute(select(eval_rounds).where(eval_rounds.c.id == item.id)).one()
    return _round(row)


def evaluate_round(
    engine: Engine,
    item: Round,
    *,
    concurrency: int = 2,
    progress: Progress | None = None,
) -> tuple[Round, RunResult]:
    """Run the round's set in full (resumable like any set) and report it when finished."""
    engine = zone_engine(engine)
    if item.state == "declared":
        item = _move(engine, item, "evaluating")
    result = run_set(engine, item.set_id, concurrency=concurrency, progress=progress)
    with reading(engine) as conn:
        finished = _all_finished(conn, item.set_id)
    if item.state == "evaluating" and finished:
        item = _move(engine, item, "reported")
    return item, result


def set_ids_in_order(conn: Connection, base_set_id: str) -> list[tuple[int, str]]:
    """(round number, set id) of round 0 and every declared round."""
    return [(0, base_set_id)] + [(r.number, r.set_id) for r in rounds_of(conn, base_set_id)]


def base_of(conn: Connection, set_id: str) -> str:
    item = round_of_set(conn, set_id)
    return set_id if item is None else item.base_set_id
