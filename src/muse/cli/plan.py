"""``muse plan …``: the five pre-writing stages (spec 001 §1A), their drafts, gates and files.

show / check read; draft calls the planner (drafts are always Shadow); edit / import / export move
YAML files the author edits; confirm is the only way a draft becomes confirmed; discard drops a
draft; ledger signs off stage 2; patterns manages pattern cards. Business rules live in
``muse.planning`` and ``muse.patterns``; this module only parses options and prints.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
import yaml

from muse.agents import recorded_choice
from muse.cli.common import chosen_model, get_engine, read_yaml_text, work_id_for
from muse.cli.options import JsonOption, ModelOption, ProviderOption, WorkOption
from muse.cli.output import console, emit
from muse.core.errors import InvalidInput
from muse.core.yaml_safe import safe_load
from muse.patterns import install_builtin_patterns, list_patterns, parse_pattern_files, save_pattern
from muse.planning import (
    Finding,
    build_signoff,
    check_plan,
    compare_sections,
    confirm_and_record,
    discard_section,
    draft_stage,
    export_text,
    import_file,
    plan_status,
    resume_batch,
    save_stage_section,
    stage_of,
    start_outline_batch,
)

if TYPE_CHECKING:
    from sqlalchemy import Connection

    from muse.planning import CheckReport, Saved

plan_app = typer.Typer(
    help="规划五阶段（定盘 → 大纲/卷纲 → 设定拆条 → 范式与文风 → 细纲）："
    "草稿一律 Shadow，经作者确认才进入生成上下文。",
    no_args_is_help=True,
)
patterns_app = typer.Typer(
    help="范式卡：公共范式（不属于任何作品）与本作品的私有范式。", no_args_is_help=True
)
plan_app.add_typer(patterns_app, name="patterns")

StageArg = typer.Argument(..., help="阶段：0–4，或 定盘 / 大纲 / 设定 / 范式 / 细纲")
ChapterOpt = typer.Option(None, "--chapter", "-c", help="细纲的章号")


def _reader() -> Connection:
    """A read-only connection (SQLite: a deferred transaction that takes no write lock)."""
    return get_engine().connect().execution_options(sqlite_begin="DEFERRED")


def _findings(findings: list[Finding], ok: str) -> None:
    if not findings:
        console.print(f"[green]{ok}[/]")
    for f in findings:
        color = "red" if f.severity == "error" else "yellow"
        console.print(f"  [{color}]{f.line()}[/]", highlight=False)


def _saved(saved: Saved, what: str) -> dict[str, Any]:
    return {
        "id": saved.section_id,
        "stage": saved.stage,
        "state": "shadow",
        "findings": [f.wire() for f in saved.findings],
        "what": what,
    }


def _render_saved(d: dict[str, Any]) -> None:
    errors = sum(1 for f in d["findings"] if f["severity"] == "error")
    console.print(
        f"{d['what']}已保存为 Shadow：{d['id']}"
        + (
            f"（{errors} 个阻断问题，确认前须解决）"
            if errors
            else "（可确认：muse plan confirm ID）"
        )
    )
    _findings([Finding(**f) for f in d["findings"]], "检查通过，没有问题。")


@plan_app.command("show")
def plan_show(
    stage: str = typer.Argument(None, help="只看某一阶段（0–4）"),
    work: str = WorkOption,
    json_out: bool = JsonOption,
) -> None:
    """五个阶段的状态，以及卡住下一步的原因。"""
    work_id = work_id_for(work)
    with _reader() as conn:
        data = plan_status(
            conn, work_id, stage=stage_of(stage).number if stage is not None else None
        )
    emit(data, json_out, _render_status)


def _render_status(d: dict[str, Any]) -> None:
    console.print(f"作品 {d['workId']}：{'规划模式' if d['mode'] == 'planning' else '自由模式'}")
    marks = {"confirmed": "[green]已确认[/]", "shadow": "[yellow]有草稿[/]", "empty": "[dim]空[/]"}
    for s in d["stages"]:
        console.print(f"[bold]阶段 {s['stage']} · {s['name']}[/]  {marks[s['state']]}")
        if s.get("confirmed"):
            console.print(f"    已确认：{s['confirmed']['id']}")
        for sh in s.get("shadows", []):
            variant = f" 变体{sh['variantIndex']}" if sh["variantIndex"] else ""
            console.print(
                f"    草稿{variant}：{sh['id']}  阻断 {sh['errors']} · 提示 {sh['warnings']}"
            )
            for line in sh["firstErrors"]:
                console.print(f"      [red]{line}[/]", highlight=False)
        if "cards" in s:
            console.print(
                f"    已确认卡片 {s['cards']['confirmed']} 张，待处理草稿 {s['cards']['pendingDrafts']} 份"
            )
        if s["stage"] == 4:
            console.print(
                f"    已确认细纲 {s['confirmedCount']} 章：{s['confirmedChapters'] or '无'}；"
                f"草稿：{s['shadowChapters'] or '无'}"
            )
            for b in s["batches"]:
                console.print(
                    f"    批次 {b['id']}：{b['state']} {b['done']}/{b['total']}"
                    + (f"，{b['lastError']}" if b["lastError"] else "")
                )
        for line in s["blockers"]:
            console.print(f"    [red]卡住：{line}[/]", highlight=False)
        for line in s.get("needsReview", []):
            console.print(f"    [yellow]需复核：{line}[/]", highlight=False)
    console.print(d["next"])


def _chapters(text: str) -> tuple[int, int]:
    first, _, last = text.partition("-")
    try:
        return int(first), int(last or first)
    except ValueError:
        raise InvalidInput(f"章节范围「{text}」应写成 A-B，例如 1-100。") from None


@plan_app.command("draft")
def plan_draft(
    stage: str = StageArg,
    provider: str = ProviderOption,
    model: str = ModelOption,
    variants: int = typer.Option(1, "--variants", "-k", help="生成几个变体以便比较（1–5）"),
    chapter: int = ChapterOpt,
    chapters: str = typer.Option(None, "--chapters", help="细纲分批起草的章节范围，如 1-100"),
    note: str = typer.Option(None, "--note", help="给规划员的补充要求"),
    work: str = WorkOption,
    json_out: bool = JsonOption,
) -> None:
    """规划员依据已确认的上层规划起草一个阶段（草稿一律 Shadow）。"""
    work_id = work_id_for(work)
    choice = chosen_model(work_id, "planner", provider, model)
    provider, model = choice.provider, choice.model
    with recorded_choice(choice):
        if chapters is not None:
            first, last = _chapters(chapters)
            report = start_outline_batch(
                get_engine(), work_id, first, last, provider=provider, model=model, note=note
            )
            emit(report.wire(), json_out, _render_batch)
            if report.state != "completed":
                raise typer.Exit(1)
            return
        drafted = draft_stage(
            get_engine(),
            work_id,
            stage,
            provider=provider,
            model=model,
            variants=variants,
            chapter=chapter,
            note=note,
        )
    emit([d.wire() for d in drafted], json_out, _render_drafts)


def _render_drafts(rows: list[dict[str, Any]]) -> None:
    for d in rows:
        if d["sectionId"] is None:
            console.print(
                f"变体 {d['variant']}：卡片草稿 {len(d['cardDrafts'])} 份（回执 {d['receiptId']}），"
                "请逐张审阅确认，再运行 muse plan ledger --save"
            )
            continue
        console.print(
            f"变体 {d['variant']}：{d['sectionId']}（回执 {d['receiptId']}，模型 {d['modelReturned']}）"
        )
        _findings([Finding(**f) for f in d["findings"]], "检查通过。")


def _render_batch(b: dict[str, Any]) -> None:
    console.print(
        f"批次 {b['id']}：{b['state']}，完成 {b['done']}/{b['total']}（第 {b['chapters'][0]}–"
        f"{b['chapters'][1]} 章）"
    )
    if b["lastError"]:
        console.print(
            f"[red]{b['lastError']}[/]\n续跑（从未完成的一项开始）：muse plan resume {b['id']}"
        )


@plan_app.command("resume")
def plan_resume(batch_id: str, json_out: bool = JsonOption) -> None:
    """续跑失败的细纲批次：从第一项未完成的开始，已完成的不重做。"""
    report = resume_batch(get_engine(), batch_id)
    emit(report.wire(), json_out, _render_batch)
    if report.state != "completed":
        raise typer.Exit(1)


@plan_app.command("export")
def plan_export(
    stage: str = StageArg,
    chapter: int = ChapterOpt,
    section_id: str = typer.Option(None, "--id", help="导出指定的规划条目"),
    out: Path = typer.Option(None, "--out", "-o", help="写入文件（默认打印）"),
    work: str = WorkOption,
) -> None:
    """导出为 YAML（带中文字段说明），供作者在自己的编辑器里修改后 import。"""
    work_id = work_id_for(work)
    with _reader() as conn:
        text = export_text(conn, work_id, stage, chapter=chapter, section_id=section_id)
    if out is None:
        sys.stdout.write(text)
    else:
        out.write_text(text, encoding="utf-8")
        console.print(f"已写入 {out}")


@plan_app.command("import")
def plan_import(
    file: Path = typer.Argument(..., exists=True, dir_okay=False, help="规划 YAML 文件"),
    stage: str = typer.Option(None, "--stage", help="阶段（默认从文件内容判断）"),
    confirm: bool = typer.Option(False, "--confirm", help="导入后立即确认"),
    work: str = WorkOption,
    json_out: bool = JsonOption,
) -> None:
    """导入一份规划（任一阶段，含逐章细纲）为 Shadow；加 --confirm 则随即确认。"""
    work_id = work_id_for(work)
    with get_engine().begin() as conn:
        saved = import_file(conn, work_id, file, stage=stage)
    data = _saved(saved, f"{stage_of(saved.stage).label}")
    if confirm:
        confirm_and_record(get_engine(), saved.section_id)
        data["state"] = "confirmed"
    emit(
        data,
        json_out,
        lambda d: console.print(f"已保存并确认：{d['id']}") if confirm else _render_saved(d),
    )


@plan_app.command("edit")
def plan_edit(
    stage: str = StageArg,
    chapter: int = ChapterOpt,
    section_id: str = typer.Option(None, "--id", help="从指定的规划条目开始改"),
    work: str = WorkOption,
) -> None:
    """在 $EDITOR 中编辑一个阶段；保存退出后作为新的 Shadow 导入（出错可重新编辑）。"""
    work_id = work_id_for(work)
    with _reader() as conn:
        text = export_text(conn, work_id, stage, chapter=chapter, section_id=section_id)
    path = Path(tempfile.mkdtemp(prefix="muse-plan-")) / f"{stage_of(stage).key}.yaml"
    path.write_text(text, encoding="utf-8")
    before = hashlib.sha256(text.encode()).hexdigest()
    while True:
        _open_editor(path)
        if hashlib.sha256(path.read_bytes()).hexdigest() == before:
            console.print("没有修改，未保存。")
            return
        try:
            with get_engine().begin() as conn:
                saved = import_file(conn, work_id, path, stage=stage, origin="edit")
        except InvalidInput as err:
            console.print(f"[red]{err}[/]", highlight=False)
            if not sys.stdin.isatty() or not typer.confirm("重新编辑？", default=True):
                raise InvalidInput(
                    f"未保存；修改保留在 {path}，改好后可 muse plan import。"
                ) from None
            continue
        _render_saved(_saved(saved, stage_of(saved.stage).label))
        return


def _open_editor(path: Path) -> None:
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    try:
        subprocess.run([*shlex.split(editor), str(path)], check=False)
    except FileNotFoundError:
        raise InvalidInput(
            f"找不到编辑器「{editor}」。",
            hint=f"设置环境变量 EDITOR，或改用 muse plan export / import；文件在 {path}",
        ) from None


@plan_app.command("confirm")
def plan_confirm(section_id: str, json_out: bool = JsonOption) -> None:
    """确认一条 Shadow 规划（唯一的确认通道；未通过门禁的会被退回并说明原因）。"""
    warnings = confirm_and_record(get_engine(), section_id)
    data = {"id": section_id, "state": "confirmed", "findings": [f.wire() for f in warnings]}
    emit(data, json_out, lambda d: _render_confirmed(d, warnings))


def _render_confirmed(d: dict[str, Any], warnings: list[Finding]) -> None:
    console.print(f"已确认：{d['id']}")
    _findings(warnings, "")


@plan_app.command("compare")
def plan_compare(
    section_ids: list[str] = typer.Argument(..., help="两条或更多规划条目 ID"),
    json_out: bool = JsonOption,
) -> None:
    """并排比较同一阶段的几份草稿（例如同一次起草的变体），只列出不同的字段。"""
    with _reader() as conn:
        data = compare_sections(conn, section_ids)
    emit(data, json_out, _render_compare)


def _render_compare(d: dict[str, Any]) -> None:
    ids = [s["id"] for s in d["sections"]]
    console.print(f"阶段 {d['stage']}：{' / '.join(ids)}，{len(d['differences'])} 处不同")
    for row in d["differences"]:
        console.print(f"[bold]{row['label']}[/]（{row['field']}）")
        for section_id, value in zip(ids, row["values"], strict=True):
            console.print(f"  {section_id}：{value}", highlight=False)


@plan_app.command("discard")
def plan_discard(section_id: str, json_out: bool = JsonOption) -> None:
    """丢弃一条 Shadow 草稿（例如没选中的变体）；记录保留。"""
    with get_engine().begin() as conn:
        discard_section(conn, section_id)
    emit(
        {"id": section_id, "state": "discarded"},
        json_out,
        lambda d: console.print(f"已丢弃：{d['id']}"),
    )


@plan_app.command("check")
def plan_check(
    stage: str = typer.Argument(None, help="只查某一阶段（0–4）"),
    work: str = WorkOption,
    json_out: bool = JsonOption,
) -> None:
    """重跑全部门禁与伏笔台账；有阻断问题时退出码为 1。"""
    work_id = work_id_for(work)
    with _reader() as conn:
        report = check_plan(
            conn, work_id, stage=stage_of(stage).number if stage is not None else None
        )
    emit(report.wire(), json_out, lambda d: _render_check(report))
    if report.blocking:
        raise typer.Exit(1)


def _render_check(report: CheckReport) -> None:
    console.print(
        f"检查了 {len(report.checked)} 份规划（{'规划模式' if report.mode == 'planning' else '自由模式'}）"
    )
    _findings(report.findings, "全部门禁通过。")
    if report.ledger:
        console.print("[bold]伏笔台账[/]")
    for t in report.ledger:
        plan = t.plan or {}
        console.print(
            f"  {t.thread}：{t.status}  计划 埋{plan.get('plant', '-')} 收{plan.get('payoff', '-')}"
            f"；实际 埋{t.planted or '-'} 推{list(t.advanced) or '-'} 收{t.paid or '-'}"
        )


@plan_app.command("ledger")
def plan_ledger(
    save: bool = typer.Option(False, "--save", help="把当前已确认卡片存为阶段 2 台账（Shadow）"),
    note: str = typer.Option("", "--note", help="台账备注"),
    work: str = WorkOption,
    json_out: bool = JsonOption,
) -> None:
    """设定台账（阶段 2）：列出已确认卡片；--save 存为待确认的签收。"""
    work_id = work_id_for(work)
    if not save:
        with _reader() as conn:
            payload = build_signoff(conn, work_id, note)
        emit(payload, json_out, _print_yaml)
        return
    with get_engine().begin() as conn:
        saved = save_stage_section(
            conn, work_id, 2, build_signoff(conn, work_id, note), origin="ledger"
        )
    emit(_saved(saved, "设定台账"), json_out, _render_saved)


@patterns_app.command("list")
def patterns_list(
    all_versions: bool = typer.Option(False, "--all-versions", help="列出所有版本"),
    work: str = WorkOption,
    json_out: bool = JsonOption,
) -> None:
    """可用的范式卡：公共范式与本作品的私有范式。"""
    work_id = work_id_for(work) if work else None
    with _reader() as conn:
        rows = [p.brief() for p in list_patterns(conn, work_id, all_versions=all_versions)]
    emit(rows, json_out, _render_patterns)


def _render_patterns(rows: list[dict[str, Any]]) -> None:
    if not rows:
        console.print("还没有范式卡：muse plan patterns builtin 安装自带的公共范式。")
    for p in rows:
        kind = "公共" if p["public"] else "私有"
        console.print(f"{kind} {p['key']} v{p['version']}  {p['name']}（{p['category']}）")


def _print_yaml(data: dict[str, Any]) -> None:
    sys.stdout.write(yaml.safe_dump(data, allow_unicode=True, sort_keys=False))


@patterns_app.command("import")
def patterns_import(
    file: Path = typer.Argument(..., exists=True, dir_okay=False, help="范式卡 YAML"),
    public: bool = typer.Option(False, "--public", help="存为公共范式（不属于任何作品）"),
    work: str = WorkOption,
    json_out: bool = JsonOption,
) -> None:
    """导入范式卡（文件顶层为 patterns 列表）；内容变化即存为新版本。"""
    try:
        data = safe_load(read_yaml_text(file)) or {}
    except yaml.YAMLError as err:
        raise InvalidInput(f"{file}：不是合法的 YAML：{getattr(err, 'problem', err)}") from None
    cards = parse_pattern_files(data.get("patterns") or [], str(file))
    owner = None if public else work_id_for(work)
    with get_engine().begin() as conn:
        rows = [
            {**r.brief(), "created": created}
            for r, created in (save_pattern(conn, c, work_id=owner) for c in cards)
        ]
    emit(rows, json_out, _render_pattern_rows)


@patterns_app.command("builtin")
def patterns_builtin(json_out: bool = JsonOption) -> None:
    """安装 Muse 自带的公共范式卡（已安装且未变化的跳过）。"""
    with get_engine().begin() as conn:
        rows = [{**r.brief(), "created": created} for r, created in install_builtin_patterns(conn)]
    emit(rows, json_out, _render_pattern_rows)


def _render_pattern_rows(rows: list[dict[str, Any]]) -> None:
    for p in rows:
        console.print(
            f"{'新增' if p['created'] else '未变'} {p['key']} v{p['version']}  {p['name']}"
        )


def register(app: typer.Typer) -> None:
    app.add_typer(plan_app, name="plan")
