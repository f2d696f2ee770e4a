"""``muse runs`` (list runs) and ``muse runs sweep`` (end runs a crash left behind).

``runs`` is a group whose bare form still lists the runs, so ``muse runs [--work W] [--json]``
keeps working next to ``muse runs sweep [--json]``.
"""

from __future__ import annotations

import typer

from muse.cli.common import ready_engine
from muse.cli.options import JsonOption, WorkOption
from muse.cli.output import console, emit
from muse.flow import RUN_STATE_LABELS, SweepReport, sweep

runs_app = typer.Typer(help="运行记录；muse runs sweep 清理中断遗留的运行。")


@runs_app.callback(invoke_without_command=True)
def runs(ctx: typer.Context, work: str = WorkOption, json_out: bool = JsonOption) -> None:
    """列出运行记录。"""
    if ctx.invoked_subcommand is None:
        from muse.cli.writing import list_runs

        list_runs(work=work, json_out=json_out)


@runs_app.command("sweep")
def sweep_command(json_out: bool = JsonOption) -> None:
    """把进程中断后停在工作节点的运行（进程已结束、已超过截止时间或长期无进展），结束在对应的超时状态。"""
    report = sweep(ready_engine())  # the explicit sweep reports what it moves itself
    emit(report.to_dict(), json_out, lambda _: _render(report))


def _render(report: SweepReport) -> None:
    if not report.moved:
        console.print("没有需要清理的运行。")
        return
    for item in report.moved:
        label = RUN_STATE_LABELS.get(item.state, item.state)
        console.print(f"运行 {item.run_id}：{label}", highlight=False)
        console.print(f"  {item.reason}", markup=False, highlight=False)
        if item.rejected_candidates:
            console.print(f"  未完成的候选已标记为 REJECTED：{'、'.join(item.rejected_candidates)}")
    console.print(f"共结束 {len(report.moved)} 个运行。")


def register(app: typer.Typer) -> None:
    app.add_typer(runs_app, name="runs")
