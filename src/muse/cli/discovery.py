"""``muse cards discover``: model-free 拆书 — names proposed from the canonical text as drafts.

Mounted on ``muse cards`` by :func:`muse.cli.cards.register`. One transaction: the drafts of one
run are all stored or none; ``--dry-run`` stores nothing.
"""

from __future__ import annotations

import typer

from muse.cli.cards import JsonOpt, WorkOpt, cards_app, work_session
from muse.cli.output import console, emit, escape, print_table
from muse.knowledge import DiscoveryReport, card_type, discover_work, parse_chapter_range

STATUS_LABELS = {"new": "新草稿", "known": "已有卡片/草稿"}


@cards_app.command("discover")
def discover(
    chapters: str | None = typer.Option(None, "--chapters", help="只看这些章，如 1-100"),
    min_mentions: int = typer.Option(3, "--min-mentions", min=1, help="出现少于此数的不提议"),
    dry_run: bool = typer.Option(False, "--dry-run", help="只显示发现结果，不生成草稿"),
    show: int = typer.Option(50, "--show", min=0, help="列出前几项（--json 时全部输出）"),
    work: str | None = WorkOpt,
    as_json: bool = JsonOpt,
) -> None:
    """从正文发现人物、地点、势力、物品、功法（无需模型），生成待确认的卡片草稿。"""
    with work_session(work) as (conn, work_id):
        span = parse_chapter_range(chapters)
        report = discover_work(
            conn, work_id, chapters=span, store=not dry_run, min_mentions=min_mentions
        )
    emit(report.to_json(), as_json, lambda _: _render(report, show, dry_run))


def _render(report: DiscoveryReport, show: int, dry_run: bool) -> None:
    rows = [
        (
            escape(i.name),
            card_type(i.type).label,
            i.mentions,
            f"第{i.first_chapter}章@{i.first_offset}",
            f"第{i.last_chapter}章",
            escape("、".join(a["name"] for a in i.aliases)) or "—",
            STATUS_LABELS.get(i.status, i.status),
        )
        for i in report.items[:show]
    ]
    span = f"第 {report.chapters[0]}–{report.chapters[1]} 章" if report.chapters else "全书"
    title = f"拆书发现（{span}，{report.chapter_count} 章，共 {len(report.items)} 项）"
    print_table(title, "名称 类型(推测) 出现次数 首次出现 最后出现 可能的别名 状态", rows)
    if len(report.items) > show:
        console.print(f"（另有 {len(report.items) - show} 项未列出；--show N 或 --json 查看全部）")
    if dry_run:
        console.print("预览模式：未生成任何草稿。")
        return
    console.print(
        f"新生成 {report.count('new')} 张机器提议的草稿，{report.count('known')} 项已有卡片或草稿"
        "（未改动）。类型与别名均为推测，须作者确认：muse drafts 查看。"
    )
