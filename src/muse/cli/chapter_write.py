"""``muse write``: the next chapter, as a shadow candidate (its own loader: the command imports
what a write needs, not the candidate commands' decision and extraction modules)."""

from __future__ import annotations

import typer

from muse.agents import recorded_choice
from muse.cli.common import chosen_model, get_engine, work_id_for
from muse.cli.options import JsonOption, ModelOption, ProviderOption, WorkOption
from muse.cli.output import emit
from muse.cli.write_display import LiveProgress, render_summary
from muse.flow import write_chapter


def write(
    chapter: int = typer.Argument(..., help="要写的章号（下一章）"),
    provider: str = ProviderOption,
    model: str = ModelOption,
    max_rewrites: int = typer.Option(
        None,
        "--max-rewrites",
        min=0,
        help="检测未通过时自动返修的最多轮数（默认取 MUSE_MAX_REWRITES，否则 2；0 表示不返修）",
    ),
    work: str = WorkOption,
    json_out: bool = JsonOption,
) -> None:
    """按已确认细纲写下一章，产出 Shadow 候选（不会自动入正文）。"""
    work_id = work_id_for(work)
    choice = chosen_model(work_id, "writer", provider, model)
    live = None if json_out else LiveProgress()
    try:
        with recorded_choice(choice):
            summary = write_chapter(
                get_engine(),
                work_id,
                chapter,
                provider=choice.provider,
                model=choice.model,
                observer=live,
                max_rewrites=max_rewrites,
            )
    finally:
        if live is not None:
            live.close()
    emit(summary.to_dict(), json_out, lambda _: render_summary(summary, chapter))
    code = write_exit_code(summary.state)
    if code:
        raise typer.Exit(code)


# ``muse write`` exit codes (docs/decisions.md): 0 only for a shadow-ready candidate.
EXIT_SHADOW_READY = 0
EXIT_ERROR = 1  # nothing was run: bad input, configuration, missing outline
EXIT_AUTHOR_DECIDES = 3  # blocked_user_action, authorization_required
EXIT_FAILED = 4  # failed (model call, forged report, internal error)
EXIT_TIMEOUT = 5  # <node>_timeout
EXIT_OTHER = 6  # any other end (authorization_stale, a run moved by someone else)


def write_exit_code(state: str) -> int:
    if state == "shadow_ready":
        return EXIT_SHADOW_READY
    if state in ("blocked_user_action", "authorization_required"):
        return EXIT_AUTHOR_DECIDES
    if state == "failed":
        return EXIT_FAILED
    if state.endswith("_timeout"):
        return EXIT_TIMEOUT
    return EXIT_OTHER


def register(app: typer.Typer) -> None:
    app.command("write")(write)
