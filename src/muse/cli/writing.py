"""``muse write``, ``accept``, ``runs``, ``run show``, ``candidates``, ``candidate show``."""

from __future__ import annotations

import typer
from rich.table import Table

from muse.cli.common import JsonOption, WorkOption, get_engine, work_id_for
from muse.cli.output import console, emit
from muse.flow import queries
from muse.flow.accept import accept_candidate
from muse.flow.production import RunSummary, write_chapter
from muse.flow.states import RUN_STATE_LABELS
from muse.store.engine import reading

run_app = typer.Typer(help="运行记录。", no_args_is_help=True)
candidate_app = typer.Typer(help="候选稿。", no_args_is_help=True)

NODE_LABELS = {
    "validating_context": "校验授权",
    "retrieving": "检索与冻结上下文",
    "writing": "写手生成",
    "detecting": "检测",
}
STATUS_MARKS = {
    "running": "…",
    "ok": "[green]✓[/]",
    "failed": "[red]✗[/]",
    "blocked": "[yellow]■[/]",
}


def write(
    chapter: int = typer.Argument(..., help="要写的章号（下一章）"),
    provider: str = typer.Option(..., "--provider", "-p", help="模型提供方，如 offline、deepseek"),
    model: str = typer.Option(..., "--model", "-m", help="模型 ID，必须显式指定"),
    work: str = WorkOption,
    json_out: bool = JsonOption,
) -> None:
    """按已确认细纲写下一章，产出 Shadow 候选（不会自动入正文）。"""

    def progress(node: str, status: str) -> None:
        if not json_out and status != "running":
            console.print(f"{STATUS_MARKS.get(status, status)} {NODE_LABELS.get(node, node)}")

    summary = write_chapter(
        get_engine(), work_id_for(work), chapter, provider=provider, model=model, progress=progress
    )
    emit(summary.__dict__, json_out, lambda _: _render_summary(summary, chapter))


def _render_summary(s: RunSummary, chapter: int) -> None:
    console.print(f"运行 {s.run_id}：{RUN_STATE_LABELS.get(s.state, s.state)}")
    if s.reason:
        console.print(f"原因：{s.reason}")
    for f in s.findings:
        where = f" [{f['start']}, {f['end']})" if f.get("start") is not None else ""
        console.print(f"  [{f['severity']}] {f['kind']}{where}：{f['message']}")
    if s.candidate_id:
        console.print(
            f"候选 {s.candidate_id}（{s.han_count} 汉字）。查看：muse candidate show {s.candidate_id}"
        )
    if s.state == "shadow_ready":
        console.print(f"下一步：采纳 muse accept {s.candidate_id}，或丢弃/修改（后续版本提供）。")
    elif s.state == "blocked_user_action":
        console.print(f"下一步：修改细纲或设定后重新运行 muse write {chapter}。")


def accept(
    candidate_id: str = typer.Argument(..., help="候选 ID"),
    command_id: str = typer.Option(None, "--command-id", help="幂等键；重复提交只生效一次"),
    json_out: bool = JsonOption,
) -> None:
    """采纳候选：接受前置校验通过后，一个事务写入正式正文。"""
    outcome = accept_candidate(get_engine(), candidate_id, command_id=command_id)
    emit(
        outcome.__dict__,
        json_out,
        lambda _: console.print(
            ("[green]" if outcome.accepted else "[red]")
            + outcome.message
            + "[/]"
            + ("（重复提交，未再次执行）" if outcome.repeated else "")
        ),
    )
    if not outcome.accepted:
        raise typer.Exit(1)


def list_runs(work: str = WorkOption, json_out: bool = JsonOption) -> None:
    """列出运行记录。"""
    with reading(get_engine()) as conn:
        rows = queries.list_runs(conn, work_id_for(work))
    emit(rows, json_out, _render_runs)


def _render_runs(rows: list[dict]) -> None:
    table = Table("运行", "章", "状态", "模型", "原因")
    for r in rows:
        table.add_row(
            r["id"],
            str(r["chapter"]),
            r["stateLabel"],
            f"{r['provider']}/{r['model']}",
            r["reason"] or "",
        )
    console.print(table)


@run_app.command("show")
def run_show(run_id: str, json_out: bool = JsonOption) -> None:
    """显示一次运行的每个节点、输入哈希与回执。"""
    with reading(get_engine()) as conn:
        data = queries.show_run(conn, run_id)
    emit(data, json_out, _render_run)


def _render_run(d: dict) -> None:
    console.print(
        f"运行 {d['id']} · 第 {d['chapter']} 章 · {d['stateLabel']} · {d['provider']}/{d['model']}"
    )
    for e in d["events"]:
        console.print(
            f"  {e['node']:<20} {e['status']:<10} {e['durationMs']:>6} ms  {e['detail']}",
            highlight=False,
            markup=False,
        )


def list_candidates(
    chapter: int = typer.Option(None, "--chapter", help="只看某一章"),
    work: str = WorkOption,
    json_out: bool = JsonOption,
) -> None:
    """列出候选稿。"""
    with reading(get_engine()) as conn:
        rows = queries.list_candidates(conn, work_id_for(work), chapter)
    emit(rows, json_out, _render_candidates)


def _render_candidates(rows: list[dict]) -> None:
    table = Table("候选", "章", "版本", "状态", "汉字数", "哈希")
    for r in rows:
        table.add_row(
            r["id"],
            str(r["chapter"]),
            str(r["version"]),
            r["state"],
            str(r["hanCount"]),
            r["sha256"][:12],
        )
    console.print(table)


@candidate_app.command("show")
def candidate_show(candidate_id: str, json_out: bool = JsonOption) -> None:
    """显示候选正文、状态与检测报告。"""
    with reading(get_engine()) as conn:
        data = queries.show_candidate(conn, candidate_id)
    emit(data, json_out, _render_candidate)


def _render_candidate(d: dict) -> None:
    console.print(
        f"候选 {d['id']} · 第 {d['chapter']} 章 · v{d['version']} · {d['state']} · "
        f"{d['hanCount']} 汉字 · {d['sha256'][:12]}"
    )
    report = d["report"] or {}
    mech = report.get("mechanical", {})
    console.print(
        f"机械门：{mech.get('status', '未检测')}；语义检测：{report.get('semantic', {}).get('status', '未检测')}"
    )
    for f in mech.get("findings", []):
        console.print(f"  [{f['severity']}] {f['kind']}：{f['message']}", markup=False)
    console.print(d["body"], markup=False, highlight=False)


def register(app: typer.Typer) -> None:
    app.command("write")(write)
    app.command("accept")(accept)
    app.command("candidates")(list_candidates)
    app.add_typer(run_app, name="run")
    app.add_typer(candidate_app, name="candidate")
