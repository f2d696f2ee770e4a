"""``muse eval preregister|run|round|report``, ``muse invariants``, ``muse candidate judge``.

The offline evaluation chain (spec 000 §10) for the author: preregister a set, run it (an
estimate and a confirmation first), read the report; check the standing invariants of the
evaluation boundary (spec 001 §7); ask one judge about a production candidate on demand.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from muse.cli.common import get_engine
from muse.cli.options import JsonOption
from muse.cli.output import console, emit, err_console, fail, new_table, print_json
from muse.core.errors import MuseError

if TYPE_CHECKING:
    from muse.evaluation import Estimate

eval_app = typer.Typer(
    help="离线评测：预注册评测集、三臂回放、双盲评审与 Gate A/B。", no_args_is_help=True
)

SetArgument = typer.Argument(..., help="评测集 ID、evaluationSetVersion，或预注册过的 YAML 文件")


def _set_ref(ref: str) -> str:
    """A YAML path stands for the set it registered (same version); ids and versions pass."""
    path = Path(ref)
    if ref.endswith((".yaml", ".yml")) and path.is_file():
        from muse.evaluation import read_set_file

        return read_set_file(path).evaluationSetVersion
    return ref


@eval_app.command("preregister")
def preregister_command(
    path: Path = typer.Argument(..., help="评测集 YAML 文件"), json_out: bool = JsonOption
) -> None:
    """预注册评测集：校验样本、模型与预算后存档；预注册后不可修改（改动须换新版本号）。"""
    from muse.evaluation import preregister, read_set_file

    registered = preregister(get_engine(), read_set_file(path))

    def render(_: Any) -> None:
        head = "已预注册" if registered.created else "该评测集已预注册过（内容相同），未重复登记"
        console.print(f"{head}：{registered.version}（{registered.set_id}）", markup=False)
        console.print(f"  样本 {registered.samples} 个；内容哈希 {registered.sha256[:16]}…")
        if registered.dry_run:
            console.print("  评委使用离线模型：这是演练（dry run），Gate 只能得出「证据不足」。")

    emit(registered.to_dict(), json_out, render)


def _render_estimate(est: Estimate) -> None:
    console.print(
        f"待运行样本 {est.samples} 个；预计模型调用 {est.calls} 次（最多 {est.max_calls} 次）。"
    )
    table = new_table("模型", "调用", "输入 token", "输出 token", "估算费用")
    for name, u in est.by_provider.items():
        cost = f"{u['cost']} {u['currency']}" if u.get("cost") is not None else u.get("note", "—")
        table.add_row(name, str(u["calls"]), str(u["inputTokens"]), str(u["outputTokens"]), cost)
    console.print(table)


@eval_app.command("run")
def run_command(
    ref: str = SetArgument,
    concurrency: int = typer.Option(2, "--concurrency", "-k", help="同时运行的样本数（1–16）"),
    yes: bool = typer.Option(False, "--yes", "-y", help="不再确认，直接运行（脚本用）"),
    json_out: bool = JsonOption,
) -> None:
    """运行评测集：先给出调用与费用估算并确认；中断后再次运行会从中断处继续，不重复已存的调用。"""
    from muse.evaluation import estimate, run_set

    engine = get_engine()
    ref = _set_ref(ref)
    est = estimate(engine, ref)
    if not json_out:
        _render_estimate(est)
    if est.samples and not yes:
        if not sys.stdin.isatty():
            fail("需要确认后才会调用模型：请在终端中运行，或加 --yes。")
        if not typer.confirm("开始运行？", default=False):
            fail("已取消，没有调用任何模型。")

    def progress(sample: str, step: str, status: str) -> None:
        if not json_out:
            err_console.print(f"  [{sample}] {step} {status}", markup=False, highlight=False)

    result = run_set(engine, ref, concurrency=concurrency, progress=progress)
    if json_out:
        print_json({"estimate": est.to_dict(), **result.to_dict()})
        return
    from muse.evaluation import EVAL_STATE_LABELS

    for sample, state in sorted(result.states.items()):
        console.print(f"{sample}：{EVAL_STATE_LABELS.get(state, state)}", markup=False)
    console.print("用 muse eval report 查看报告。")


@eval_app.command("round")
def round_command(
    ref: str = SetArgument,
    variable: list[str] = typer.Option(
        [], "--variable", help="本轮改变的变量（须在评测集 variables 中声明；每轮恰好一个）"
    ),
    value: list[int] = typer.Option([], "--value", help="该变量本轮的值（整数）"),
    round_file: Path | None = typer.Option(
        None, "--file", help="轮次文件（YAML：「变量: 值」，恰好一项）"
    ),
    concurrency: int = typer.Option(2, "--concurrency", "-k", help="同时运行的样本数（1–16）"),
    yes: bool = typer.Option(False, "--yes", "-y", help="不再确认，直接运行（脚本用）"),
    json_out: bool = JsonOption,
) -> None:
    """离线优化的一轮（最多 5 轮）：在上一轮的基础上只改一个已声明变量，完整评测后与上一轮比较。"""
    from muse.evaluation import (
        build_report,
        declare_round,
        estimate,
        evaluate_round,
        read_round_file,
    )

    if round_file is not None and (variable or value):
        fail("请只用 --variable/--value 或 --file 其中一种方式给出本轮的变量。")
    if len(variable) != len(value):
        fail("--variable 与 --value 必须成对给出。")
    if len(variable) > 1:
        fail(f"每轮只能改变一个变量，本轮给了 {len(variable)} 组 --variable/--value。")
    changes: dict[str, object] = (
        dict(read_round_file(round_file)) if round_file else dict(zip(variable, value, strict=True))
    )
    engine = get_engine()
    try:
        item = declare_round(engine, _set_ref(ref), changes)
    except MuseError as err:
        fail(err)
    est = estimate(engine, item.set_id)
    if not json_out:
        console.print(
            f"第 {item.number} 轮：{item.variable} {item.previous_value} → {item.value}",
            markup=False,
        )
        _render_estimate(est)
    if est.samples and not yes:
        if not sys.stdin.isatty():
            fail("需要确认后才会调用模型：请在终端中运行，或加 --yes。")
        if not typer.confirm("开始本轮评测？", default=False):
            fail("已取消，没有调用任何模型；本轮已声明，可再次运行同一命令继续。")

    def progress(sample: str, step: str, status: str) -> None:
        if not json_out:
            err_console.print(f"  [{sample}] {step} {status}", markup=False, highlight=False)

    item, result = evaluate_round(engine, item, concurrency=concurrency, progress=progress)
    rounds = build_report(engine, item.set_id)["rounds"]
    payload = {"round": item.to_dict(), "run": result.to_dict(), "rounds": rounds}
    emit(payload, json_out, lambda _: _render_rounds(rounds))


def _render_rounds(rounds: list[dict[str, Any]]) -> None:
    from muse.evaluation import DIMENSIONS

    console.print("\n离线优化轮次（每轮只改一个变量，与上一轮比较）：")
    for r in rounds:
        if r["number"] == 0:
            head = f"第 0 轮（基础评测集 {r['evaluationSetVersion']}）"
        else:
            head = (
                f"第 {r['number']} 轮：改变 {r['variableLabel']}（{r['variable']}）"
                f" {r['previousValue']} → {r['value']}"
            )
        state = "" if r["finished"] else "【未完成】"
        console.print(
            f"{state}{head}；Gate A {r['gateA']}，Gate B {r['gateB']}；调用 {r['calls']} 次",
            markup=False,
        )
        change = r["changeFromPrevious"] or {}
        parts = []
        for d, mean in r["meanCminusA"].items():
            text = f"{DIMENSIONS[d]} {mean if mean is not None else '—'}"
            if change.get(d):
                text += f"（较上一轮 {change[d]}）"
            parts.append(text)
        console.print("  C−A 均值：" + "；".join(parts), markup=False)


def _scores_line(final: dict[str, Any] | None, dims: dict[str, str]) -> str:
    if not final:
        return "—"
    return "  ".join(f"{dims[d]} {final[d]}" for d in dims)


def _render_report(report: dict[str, Any]) -> None:
    dims = report["dimensions"]
    console.print(f"评测集 {report['evaluationSetVersion']}（{report['setId']}）", markup=False)
    if report.get("round"):
        r = report["round"]
        console.print(
            f"离线优化第 {r['number']} 轮：{r['variableLabel']}（{r['variable']}）"
            f" {r['previousValue']} → {r['value']}",
            markup=False,
        )
    if report["dryRun"]:
        console.print("【演练】评委为离线模型：分数不代表质量，Gate 只能为「证据不足」。")
    for s in report["samples"]:
        scene = report["sceneClasses"].get(s["sceneClass"], s["sceneClass"])
        console.print(
            f"\n样本 {s['sampleId']}：《{s['work']}》第 {s['targetChapter']} 章（冻结于第 "
            f"{s['asOf']} 章），{scene}；{s['stateLabel']}",
            markup=False,
        )
        if s["reason"]:
            console.print(f"  {s['reason']}", markup=False)
        for arm, data in s["arms"].items():
            check = data["check"] or {}
            console.print(
                f"  {arm} 臂：{_scores_line(data['final'], dims)}；检测 {check.get('outcome', '—')}",
                markup=False,
            )
        if s["deltas"]:
            for key in ("C-A", "C-B"):
                console.print(f"  {key}：{_scores_line(s['deltas'][key], dims)}", markup=False)
    console.print("\n增量分布（有效样本）：")
    table = new_table("维度", "C−A 均值", "C−A 正/零/负", "C−B 均值", "C−B 正/零/负")
    for d, name in dims.items():
        ca, cb = report["deltas"]["C-A"][d], report["deltas"]["C-B"][d]
        table.add_row(
            name,
            ca["mean"] if ca else "—",
            f"{ca['positive']}/{ca['zero']}/{ca['negative']}" if ca else "—",
            cb["mean"] if cb else "—",
            f"{cb['positive']}/{cb['zero']}/{cb['negative']}" if cb else "—",
        )
    console.print(table)
    if report["invalid"]:
        console.print("无效或未完成的样本：")
        for item in report["invalid"]:
            console.print(
                f"  {item['sampleId']}（{item['state']}）：{item['reason'] or '—'}", markup=False
            )
    for gate in ("gateA", "gateB"):
        g = report[gate]
        name = "Gate A 链路可运行" if gate == "gateA" else "Gate B 正文层正式通过"
        console.print(f"{name}：{g['verdict']}（{g['rule']}）— {g['reason']}", markup=False)
    if report.get("rounds"):
        _render_rounds(report["rounds"])
    totals = report["totals"]
    console.print(
        f"调用 {totals['calls']} 次，输入 {totals['inputTokens']} token，输出 {totals['outputTokens']} token。"
    )
    for u in report["usage"]:
        cost = f"{u['cost']} {u['currency']}" if u["cost"] is not None else "无价格"
        console.print(
            f"  {u['provider']}/{u['model']} {u['role']}：{u['calls']} 次，{cost}", markup=False
        )


@eval_app.command("report")
def report_command(ref: str = SetArgument, json_out: bool = JsonOption) -> None:
    """评测报告：逐样本/臂/维度分数，C−A 与 C−B 增量及分布，无效样本原因，Gate A/B 结论与费用。"""
    from muse.evaluation import build_report

    emit(build_report(get_engine(), _set_ref(ref)), json_out, _render_report)


def invariants_command(json_out: bool = JsonOption) -> None:
    """检查评测边界的常驻不变量；有违反时逐行列出并以退出码 1 结束。"""
    from muse.evaluation import check_invariants

    violations = [v.to_dict() for v in check_invariants(get_engine())]

    def render(_: Any) -> None:
        if not violations:
            console.print("常驻不变量全部成立：评测数据没有进入生产。")
            return
        for v in violations:
            console.print(
                f"违反：{v['label']} — {v['table']} {v['row_id']}：{v['detail']}", markup=False
            )

    emit({"ok": not violations, "violations": violations}, json_out, render)
    if violations:
        raise typer.Exit(1)


def candidate_judge_command(
    candidate_id: str,
    provider: str = typer.Option(..., "--provider", help="评委的提供方（必须显式指定）"),
    model: str = typer.Option(..., "--model", help="评委模型（judge-fixed 白名单）"),
    json_out: bool = JsonOption,
) -> None:
    """按需请一位评委给生产候选打分（逐维分数与引文）；不阻断、不改变任何状态。"""
    from muse.evaluation import judge_candidate

    result = judge_candidate(get_engine(), candidate_id, provider=provider, model=model)
    emit(result, json_out, _render_judgement)


def _render_judgement(result: dict[str, Any]) -> None:
    from muse.evaluation import DIMENSIONS

    console.print(f"评审 {result['id']}（{result['provider']}/{result['model']}）", markup=False)
    for key, name in DIMENSIONS.items():
        item = result["sheet"][key]
        console.print(f"  {name}：{item['score']} — {item['reason']}", markup=False)
        for q in item["located"]:
            where = f"[{q['start']}, {q['end']})" if q["found"] else "（正文中找不到）"
            console.print(f"    「{q['quote']}」{where}", markup=False)


def candidate_judgements_command(candidate_id: str, json_out: bool = JsonOption) -> None:
    """列出候选已存的按需评审。"""
    from muse.evaluation import candidate_judgements_of

    items = candidate_judgements_of(get_engine(), candidate_id)

    def render(_: Any) -> None:
        if not items:
            console.print("该候选还没有按需评审（muse candidate judge 发起）。")
        for item in items:
            _render_judgement(item)

    emit(items, json_out, render)


def register(app: typer.Typer, candidate_app: typer.Typer) -> None:
    app.add_typer(eval_app, name="eval")
    app.command("invariants")(invariants_command)
    candidate_app.command("judge")(candidate_judge_command)
    candidate_app.command("judgements")(candidate_judgements_command)
