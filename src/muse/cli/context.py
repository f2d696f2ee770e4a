"""``muse context build``: what the writer would get — each source, why, its tokens, what was
omitted and why (a context viewer in the terminal), or the whole WriterContext as JSON."""

from __future__ import annotations

import typer

from muse.cli.common import get_engine
from muse.cli.options import JsonOption, WorkOption
from muse.cli.output import console, emit, new_table
from muse.context import WriterContext, freeze_context
from muse.core.errors import InvalidInput
from muse.core.ids import new_id
from muse.planning import load_confirmed
from muse.works import latest_chapter_number, resolve_work, take_snapshot

context_app = typer.Typer(help="查看写手将得到的冻结上下文。", no_args_is_help=True)

STATE_LABELS = {
    "supported": "证据充分",
    "declared_new": "细纲新设",
    "card_gap": "缺卡",
    "style_gap": "缺表现样本",
    "unsupported": "无证据（阻断）",
    "conflict": "冲突（阻断）",
}


@context_app.command("build")
def build(
    chapter: int = typer.Option(..., "--chapter", "-c", help="目标章号"),
    as_of: int = typer.Option(None, "--as-of", help="冻结点（默认：目标章之前的最新正式章）"),
    work: str = WorkOption,
    json_out: bool = JsonOption,
) -> None:
    """构建（不保存）第 N 章的 WriterContext 并展示来源、理由、预算与排除项。"""
    with get_engine().begin() as conn:
        work_id = resolve_work(conn, work)
        latest = latest_chapter_number(conn, work_id) or 0
        freeze = min(latest, chapter - 1) if as_of is None else as_of
        if freeze >= chapter:
            raise InvalidInput(f"冻结点（第 {freeze} 章）必须早于目标章（第 {chapter} 章）。")
        section_id, outline = load_confirmed(conn, work_id, chapter)
        auth = take_snapshot(conn, work_id, "production")
        frozen = freeze_context(
            conn,
            work_id=work_id,
            outline=outline,
            outline_section_id=section_id,
            run_id=new_id("run"),
            attempt=1,
            as_of=freeze,
            authorization=auth,
            store=False,
        )
    emit(frozen.context.wire(), json_out, lambda _: _render(frozen.context))


def _render(ctx: WriterContext) -> None:
    console.print(
        f"[bold]第 {ctx.target_chapter} 章 · 冻结点第 {ctx.as_of} 章[/] · "
        f"planId {ctx.manifest.plan_id[:12]} · manifestId {ctx.manifest.manifest_id[:12]} · "
        f"sha256 {ctx.context_snapshot.sha256[:12]}"
    )
    table = new_table("类型", "来源", "版本", "范围", "tokens", "理由", title="读取的来源")
    for s in ctx.manifest.sources:
        span = f"第{s.chapter}章 [{s.start}, {s.end})" if s.chapter else "—"
        table.add_row(s.kind, s.source_id, s.source_version, span, str(s.tokens), s.reason)
    console.print(table)
    budget = ctx.token_budget
    console.print(
        f"预算：卡片 {budget.cards} · 连续原文 {budget.consecutive_prose} · "
        f"历史证据 {budget.historical_evidence} · 范式 {budget.patterns}（tokens，估算见文档）"
    )
    if ctx.omitted_sources:
        omitted = new_table("类型", "来源", "原因", title="未纳入的来源")
        for o in ctx.omitted_sources:
            omitted.add_row(o.kind, o.source_id, o.reason)
        console.print(omitted)
    cover = new_table("细纲要素", "类别", "覆盖", "说明", title="证据覆盖")
    for row in ctx.evidence_coverage:
        cover.add_row(row.element_id, row.element_kind, STATE_LABELS[row.state], row.note)
    console.print(cover)
    length = ctx.output_contract.length_target
    console.print(
        f"篇幅：目标 {length['targetChars']} 汉字（{length['source']}），"
        f"生成区间 {ctx.output_contract.generation_band}，接受区间 {ctx.output_contract.acceptance_band}"
    )


def register(app: typer.Typer) -> None:
    app.add_typer(context_app, name="context")
