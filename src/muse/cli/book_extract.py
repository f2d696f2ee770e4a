"""``muse cards extract``: 拆书 with a model over the imported book, batch by batch on the queue.

Mounted on ``muse cards`` by :func:`muse.cli.cards.register`. ``--dry-run`` prints the number of
calls and the token and cost estimate and stores nothing. Otherwise the batches still to do are
queued (one job per batch of chapters; other ``muse worker`` processes may take some) and run here with a
progress bar; a batch already done is never called again, so re-running resumes.
"""

from __future__ import annotations

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from muse.cli.cards import JsonOpt, WorkOpt, cards_app, work_session
from muse.cli.common import get_engine
from muse.cli.output import console, emit
from muse.knowledge import (
    BATCH_JOB,
    DEFAULT_BATCH_CHAPTERS,
    DEFAULT_BATCH_TOKENS,
    Estimate,
    enqueue_batches,
    estimate,
    parse_chapter_range,
    plan_batches,
)
from muse.worker import JobRun, Worker


@cards_app.command("extract")
def extract(
    provider: str = typer.Option(..., "--provider", "-p", help="模型提供方（必须显式指定）"),
    model: str = typer.Option(..., "--model", "-m", help="模型（必须显式指定）"),
    chapters: str | None = typer.Option(None, "--chapters", help="只抽这些章，如 1-100"),
    dry_run: bool = typer.Option(False, "--dry-run", help="只估算调用次数、token 与费用"),
    batch_chapters: int = typer.Option(
        DEFAULT_BATCH_CHAPTERS, "--batch-chapters", help="每批最多几章（一批一次模型调用）"
    ),
    batch_tokens: int = typer.Option(
        DEFAULT_BATCH_TOKENS, "--batch-tokens", help="每批输入 token 上限（超长的单章自成一批）"
    ),
    work: str | None = WorkOpt,
    as_json: bool = JsonOpt,
) -> None:
    """用抽取模型分批拆书：结果全部是草稿、草稿里程碑与待批准的事实增量，须作者确认。"""
    with work_session(work) as (conn, work_id):
        span = parse_chapter_range(chapters)
        batches = plan_batches(
            conn,
            work_id,
            span,
            provider,
            model,
            max_chapters=batch_chapters,
            token_budget=batch_tokens,
        )
        guess = estimate(conn, work_id, batches, provider, model)
        if not dry_run:
            enqueue_batches(conn, work_id, batches, provider, model)
    if dry_run:
        emit({"dryRun": True, **guess.to_json()}, as_json, lambda _: _render_estimate(guess))
        return
    runs = _run(guess.calls, quiet=as_json)
    data = {"dryRun": False, **guess.to_json(), "runs": [r.to_dict() for r in runs]}
    emit(data, as_json, lambda _: _render_runs(guess, runs))
    if any(r.outcome in ("retry", "failed", "lost") for r in runs):
        raise typer.Exit(1)


def _run(total: int, *, quiet: bool) -> list[JobRun]:
    worker = Worker(get_engine(), kinds=(BATCH_JOB,))
    if quiet or total == 0:
        return worker.run_once()
    columns = (
        TextColumn("拆书抽取"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.description}"),
    )
    with Progress(*columns, console=console.real(), transient=False) as bar:
        task = bar.add_task("", total=total)

        def advance(run: JobRun) -> None:
            pairs = (run.result or {}).get("chapters") or []
            numbers = [p[0] for p in pairs]
            where = (
                "?"
                if not numbers
                else f"{numbers[0]}"
                if len(numbers) == 1
                else f"{numbers[0]}–{numbers[-1]}"
            )
            bar.update(task, advance=1, description=f"第 {where} 章：{run.outcome}")

        return worker.run_once(on_run=advance)


def _render_estimate(guess: Estimate) -> None:
    console.print(
        f"预估：{guess.calls} 次模型调用（另有 {guess.done} 章已抽取，不会再调用），"
        f"输入约 {guess.tokens_in:,} tokens，输出约 {guess.tokens_out:,} tokens。"
    )
    if guess.cost is not None:
        console.print(f"费用估算：约 {guess.cost} {guess.currency}（按价格表估算，以账单为准）。")
    else:
        console.print(f"费用估算：未知。{guess.note or ''}")
    console.print("未调用模型，未写入任何内容。去掉 --dry-run 即开始抽取。")


def _render_runs(guess: Estimate, runs: list[JobRun]) -> None:
    for run in runs:
        console.print(f"  {run.outcome}：{run.message}", highlight=False)
    done = sum(1 for r in runs if r.outcome in ("done", "skipped"))
    failed = len(runs) - done
    console.print(
        f"完成 {done} 批，失败或待重试 {failed} 批；此前已抽取 {guess.done} 章（未重复调用模型）。"
    )
    if failed:
        console.print("失败的批次可稍后重跑本命令（已完成的不会重复调用），或用 muse jobs 查看。")
    console.print(
        "抽取结果全部是草稿：muse drafts 查看与批量确认（事实已作为里程碑记在草稿上），"
        "muse conflicts 处理矛盾，muse facts 批准事实增量。"
    )
