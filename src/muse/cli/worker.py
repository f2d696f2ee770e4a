"""``muse worker`` (run queued jobs) and ``muse jobs`` (list, show, retry them).

``muse worker`` polls until interrupted; ``muse worker --once`` runs every job that is due and
exits. Several workers may run at once. What extraction produced waits for the author in
``muse drafts`` / ``muse conflicts`` / ``muse facts``.
"""

from __future__ import annotations

import threading
from datetime import timedelta

import typer

from muse.cli.common import get_engine, work_id_for
from muse.cli.options import JsonOption
from muse.cli.output import console, emit, escape, print_json
from muse.store.engine import reading
from muse.store.jobs import (
    DEFAULT_BACKOFF,
    DEFAULT_LEASE,
    JobInfo,
    get_job,
    list_jobs,
    retry_failed,
)
from muse.worker import JobRun, Worker, kind_label

STATUS_LABELS = {"queued": "排队中", "running": "执行中", "done": "已完成", "failed": "已失败"}
OUTCOME_LABELS = {
    "done": "完成",
    "skipped": "跳过",
    "retry": "失败，稍后重试",
    "failed": "失败（不再重试）",
    "lost": "租约已失，结果作废",
}

jobs_app = typer.Typer(help="任务队列：章后抽取、检索索引刷新。", invoke_without_command=True)


def worker(
    once: bool = typer.Option(False, "--once", help="执行当前到期的全部任务后退出"),
    provider: str | None = typer.Option(
        None, "--provider", "-p", help="章后抽取用的提供方；默认沿用被采纳运行的提供方"
    ),
    model: str | None = typer.Option(
        None, "--model", "-m", help="章后抽取用的模型 ID；与 --provider 同时给出"
    ),
    kind: list[str] = typer.Option(None, "--kind", help="只执行这些类型的任务（可多次给出）"),
    poll: float = typer.Option(2.0, "--poll", help="队列为空时的轮询间隔（秒）"),
    lease: float = typer.Option(
        DEFAULT_LEASE.total_seconds(), "--lease", help="租约（秒）：执行中超过它视为进程已中断"
    ),
    backoff: float = typer.Option(
        DEFAULT_BACKOFF.total_seconds(), "--backoff", help="重试退避基数（秒），每次失败翻倍"
    ),
    json_out: bool = JsonOption,
) -> None:
    """执行排队的任务（章后抽取等）；不加 --once 时持续运行，Ctrl-C 停止。"""
    runner = Worker(
        get_engine(),
        lease=timedelta(seconds=lease),
        backoff=timedelta(seconds=backoff),
        kinds=tuple(kind) if kind else None,
        provider=provider,
        model=model,
    )
    if once:
        runs = runner.run_once(on_run=None if json_out else _print_run)
        if json_out:
            print_json([r.to_dict() for r in runs])
        elif not runs:
            console.print("没有到期的任务。")
        else:
            console.print(f"共执行 {len(runs)} 个任务。")
        return
    stop = threading.Event()
    if not json_out:
        console.print(f"工作进程 {runner.worker_id} 已启动，等待任务（Ctrl-C 停止）。")
    try:
        runner.run_forever(
            stop,
            poll_seconds=poll,
            on_run=(lambda r: print_json(r.to_dict())) if json_out else _print_run,
        )
    except KeyboardInterrupt:
        if not json_out:
            console.print("已停止。")


def _print_run(run: JobRun) -> None:
    label = OUTCOME_LABELS.get(run.outcome, run.outcome)
    head = f"{kind_label(run.kind)} {run.job_id}（第 {run.attempt}/{run.max_attempts} 次）：{label}"
    console.print(escape(head), highlight=False)
    console.print(f"  {run.message}", markup=False, highlight=False)


def _status_text(job: JobInfo) -> str:
    return "已跳过" if job.skipped else STATUS_LABELS.get(job.status, job.status)


def _row(job: JobInfo) -> str:
    head = (
        f"{job.id}  {kind_label(job.kind)}  {_status_text(job)}  "
        f"尝试 {job.attempts}/{job.max_attempts}"
    )
    payload = job.payload
    if "chapter" in payload:
        head += f"  第 {payload['chapter']} 章（修订版 {payload.get('revision', '?')}）"
    return head


def _note(job: JobInfo) -> str | None:
    if job.status == "failed" or (job.status == "queued" and job.last_error):
        return f"错误：{job.last_error}"
    result = job.result or {}
    return result.get("reason") or result.get("summary")


@jobs_app.callback()
def jobs(
    ctx: typer.Context,
    status: str | None = typer.Option(
        None, "--status", "-s", help="queued / running / done / failed"
    ),
    kind: str | None = typer.Option(None, "--kind", help="任务类型，如 extract_chapter"),
    work: str | None = typer.Option(None, "--work", "-w", help="只看这部作品的任务"),
    limit: int = typer.Option(100, "--limit", help="最多列出多少条"),
    json_out: bool = JsonOption,
) -> None:
    """列出任务（新的在前）。"""
    if ctx.invoked_subcommand is not None:
        return
    work_id = work_id_for(work) if work else None
    with reading(get_engine()) as conn:
        items = list_jobs(conn, status=status, kind=kind, work_id=work_id, limit=limit)

    def render(_: object) -> None:
        if not items:
            console.print("没有任务。")
            return
        for job in items:
            console.print(_row(job), markup=False, highlight=False)
            note = _note(job)
            if note:
                console.print(f"  {note}", markup=False, highlight=False)

    emit([j.to_dict() for j in items], json_out, render)


@jobs_app.command("show")
def jobs_show(
    job_id: str = typer.Argument(..., help="任务 ID"), json_out: bool = JsonOption
) -> None:
    """查看一个任务的参数、结果或错误。"""
    with reading(get_engine()) as conn:
        job = get_job(conn, job_id)

    def render(_: object) -> None:
        console.print(_row(job), markup=False, highlight=False)
        note = _note(job)
        if note:
            console.print(f"  {note}", markup=False, highlight=False)
        for item in (job.result or {}).get("rejected", []):
            console.print(
                f"  驳回 {item['kind']}「{item['name']}」：{item['reason']}",
                markup=False,
                highlight=False,
            )

    emit(job.to_dict(), json_out, render)


@jobs_app.command("retry")
def jobs_retry(
    job_id: str = typer.Argument(..., help="失败任务的 ID"), json_out: bool = JsonOption
) -> None:
    """把失败的任务重新排队（尝试次数清零）。"""
    with get_engine().begin() as conn:
        job = retry_failed(conn, job_id)
    emit(
        job.to_dict(),
        json_out,
        lambda _: console.print(f"任务 {job.id} 已重新排队，运行 muse worker 执行。"),
    )


def register(app: typer.Typer) -> None:
    app.command("worker")(worker)
    app.add_typer(jobs_app, name="jobs")
