"""``muse accept``, ``runs``, ``run show``, ``candidates``, ``candidate show`` (``muse write``:
cli/chapter_write.py)."""

from __future__ import annotations

from typing import Any

import typer

from muse.cli.common import get_engine, work_id_for
from muse.cli.decisions import ActorOption
from muse.cli.options import JsonOption, WorkOption
from muse.cli.output import console, emit, fail, new_table
from muse.cli.write_display import render_run
from muse.core.errors import MuseError
from muse.flow import (
    accept_candidate,
    chapter_token_caches,
    show_run_detail,
)
from muse.flow import (
    list_candidates as candidates_of,
)
from muse.flow import (
    list_runs as runs_of,
)
from muse.store.engine import reading

run_app = typer.Typer(help="运行记录。", no_args_is_help=True)
candidate_app = typer.Typer(help="候选稿。", no_args_is_help=True)


def accept(
    candidate_id: str = typer.Argument(..., help="候选 ID"),
    command_id: str = typer.Option(None, "--command-id", help="幂等键；重复提交只生效一次"),
    approve_fact: list[str] = typer.Option(
        None,
        "--approve-fact",
        help="随采纳批准入台账的事实增量 ID（可重复；须是针对本候选提出的，见 muse candidate facts）",
    ),
    approve_all_facts: bool = typer.Option(
        False, "--approve-all-facts", help="批准针对本候选提出、尚待批准的全部事实增量"
    ),
    actor: str = ActorOption,
    json_out: bool = JsonOption,
) -> None:
    """采纳候选：接受前置校验通过后，一个事务写入正式正文（及你批准的事实增量）。"""
    try:
        outcome = accept_candidate(
            get_engine(),
            candidate_id,
            command_id=command_id,
            actor=actor,
            approve_facts=approve_fact or (),
            approve_all_facts=approve_all_facts,
        )
    except MuseError as err:
        fail(err)
    emit(
        outcome.__dict__,
        json_out,
        lambda _: console.print(
            ("[green]" if outcome.accepted else "[red]")
            + outcome.message
            + "[/]"
            + ("（重复提交，未再次执行）" if outcome.repeated else "")
            + (f"\n已入台账：{'、'.join(outcome.approved_facts)}" if outcome.approved_facts else "")
        ),
    )
    if not outcome.accepted:
        raise typer.Exit(1)


def list_runs(work: str = WorkOption, json_out: bool = JsonOption) -> None:
    """列出运行记录。"""
    with reading(get_engine()) as conn:
        rows = runs_of(conn, work_id_for(work))
    emit(rows, json_out, _render_runs)


def _render_runs(rows: list[dict[str, Any]]) -> None:
    table = new_table("运行", "章", "状态", "模型", "缓存命中", "原因")
    for r in rows:
        table.add_row(
            r["id"],
            str(r["chapter"]),
            r["stateLabel"],
            f"{r['provider']}/{r['model']}",
            cache_label(r["tokenCache"]),
            r["reason"] or "",
        )
    console.print(table)
    for chapter, cache in chapter_token_caches(rows).items():
        if cache["share"] is not None:
            console.print(f"第 {chapter} 章：输入缓存命中 {cache_label(cache)}", highlight=False)


def cache_label(cache: dict[str, Any]) -> str:
    """「62%（12,345/19,800）」, or 「—」 when the provider reported no cached tokens."""
    if cache["share"] is None:
        return "—"
    return f"{cache['share']:.0%}（{cache['tokensCached']:,}/{cache['tokensIn']:,}）"


@run_app.command("show")
def run_show(run_id: str, json_out: bool = JsonOption) -> None:
    """显示一次运行的每个节点（按尝试分组）、输入哈希、回执、耗时与证据缺口。"""
    with reading(get_engine()) as conn:
        data = show_run_detail(conn, run_id)
    emit(data, json_out, render_run)


def list_candidates(
    chapter: int = typer.Option(None, "--chapter", help="只看某一章"),
    work: str = WorkOption,
    json_out: bool = JsonOption,
) -> None:
    """列出候选稿。"""
    with reading(get_engine()) as conn:
        rows = candidates_of(conn, work_id_for(work), chapter)
    emit(rows, json_out, _render_candidates)


def _render_candidates(rows: list[dict[str, Any]]) -> None:
    table = new_table("候选", "章", "版本", "状态", "汉字数", "哈希")
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
    """显示候选正文、版本、状态、检测报告（引文定位）、上下文摘要与版本差异。"""
    from muse.cli.decisions import candidate_show_data, render_candidate

    emit(candidate_show_data(candidate_id), json_out, render_candidate, escaped=False)


def register(app: typer.Typer) -> None:
    app.command("accept")(accept)
    app.command("candidates")(list_candidates)
    app.add_typer(run_app, name="run")
    app.add_typer(candidate_app, name="candidate")
