"""``muse revise CANDIDATE "改：…"``: the author's words start the next round (spec 001 §2.3)."""

from __future__ import annotations

from typing import Any

import typer

from muse.cli.common import get_engine
from muse.cli.decisions import ActorOption, CommandIdOption
from muse.cli.options import JsonOption
from muse.cli.output import console, emit
from muse.cli.write_display import LiveProgress, render_summary
from muse.flow import ReviseOutcome, revise_candidate


def revise(
    candidate_id: str = typer.Argument(..., help="要改写的候选 ID"),
    words: str = typer.Argument(..., help="你的原话，例如「改：结尾换成悬念」；原样进入第 7 项"),
    provider: str = typer.Option(None, "--provider", "-p", help="默认沿用原运行的模型提供方"),
    model: str = typer.Option(None, "--model", "-m", help="默认沿用原运行的模型"),
    max_rewrites: int = typer.Option(None, "--max-rewrites", min=0, help="自动返修上限"),
    command_id: str = CommandIdOption,
    actor: str = ActorOption,
    json_out: bool = JsonOption,
) -> None:
    """改写：以你的原话开下一轮（不入正文）；第 1–6 项与第 1 轮同序重建。"""
    live = None if json_out else LiveProgress()
    try:
        outcome = revise_candidate(
            get_engine(),
            candidate_id,
            words,
            provider=provider,
            model=model,
            command_id=command_id,
            actor=actor,
            max_rewrites=max_rewrites,
            observer=live,
        )
    finally:
        if live is not None:
            live.close()
    emit(_data(outcome), json_out, lambda _: _render(outcome))


def _data(o: ReviseOutcome) -> dict[str, Any]:
    return {
        "decisionId": o.decision_id,
        "candidateId": o.candidate_id,
        "chapter": o.chapter,
        "round": o.round_number,
        "words": o.words,
        "newRunId": o.new_run_id,
        "state": o.state,
        "repeated": o.repeated,
        "summary": o.summary.to_dict() if o.summary else None,
    }


def _render(o: ReviseOutcome) -> None:
    head = f"第 {o.chapter} 章第 {o.round_number} 轮（第 7 项：{o.words}）"
    if o.repeated:
        console.print(f"{head}：同一命令已执行过，运行 {o.new_run_id or '—'}，状态 {o.state}。")
        return
    console.print(head, markup=False, highlight=False)
    if o.summary is not None:
        render_summary(o.summary, o.chapter)


def register(app: typer.Typer) -> None:
    app.command("revise")(revise)
