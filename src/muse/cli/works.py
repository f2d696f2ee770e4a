"""``muse init``, ``import``, ``export``, ``works``, ``chapters``, ``chapter show``, ``work status``.

The author's own edits (``chapter edit / revert / history``) and ``rebuild`` live in
:mod:`muse.cli.editing` and are registered with these.
"""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
from rich.table import Table

from muse.cli import editing
from muse.cli.common import JsonOption, WorkOption, get_engine, work_id_for
from muse.cli.output import console, emit, print_json
from muse.core.errors import InvalidInput
from muse.store.engine import database_url, make_engine, reading
from muse.store.migrate import current_revisions, upgrade
from muse.works import authorization, catalog
from muse.works.contracts import SOURCE_KIND_LABELS, STATUS_LABELS, Purpose, SourceKind
from muse.works.export import export_book
from muse.works.importer import ImportReport, analyse, import_book

chapter_app = typer.Typer(help="单章操作。", no_args_is_help=True)
work_app = typer.Typer(help="作品设置。", no_args_is_help=True)

SOURCE_CHOICES = {
    "own": SourceKind.own,
    "public-domain": SourceKind.public_domain,
    "licensed": SourceKind.licensed,
}


def init(json_out: bool = JsonOption) -> None:
    """创建数据库并迁移到最新结构。"""
    engine = make_engine()
    upgrade(engine)
    data = {"database": _safe_url(database_url()), "revisions": sorted(current_revisions(engine))}
    emit(data, json_out, lambda d: console.print(f"数据库已就绪：{d['database']}"))


def _safe_url(url: str) -> str:
    """The URL without its password, for printing."""
    if "@" in url and "://" in url:
        scheme, rest = url.split("://", 1)
        creds, host = rest.rsplit("@", 1)
        return f"{scheme}://{creds.split(':')[0]}@{host}"
    return url


def import_(
    file: Path = typer.Argument(
        ..., exists=True, dir_okay=False, help="小说文本文件（UTF-8 或 GB18030）"
    ),
    title: str = typer.Option(..., "--title", "-t", help="书名"),
    source: str = typer.Option("own", "--source", help="文本来源：own | public-domain | licensed"),
    purpose: list[str] = typer.Option(
        None, "--purpose", help="允许用途：production / evaluation，可重复"
    ),
    dry_run: bool = typer.Option(False, "--dry-run", help="只列出识别到的章节，不写入"),
    renumber: bool = typer.Option(
        False, "--renumber", help="按出现顺序重新编号（每卷重新编号的书）"
    ),
    keep_notes: bool = typer.Option(
        False, "--keep-notes", help="保留作者的话（PS、求月票等）在正文中；默认排除"
    ),
    json_out: bool = JsonOption,
) -> None:
    """导入已有小说（拆书）：识别编码与章节，一个事务写入。"""
    if source not in SOURCE_CHOICES:
        raise InvalidInput(f"未知来源「{source}」，可选：own、public-domain、licensed。")
    purposes = [Purpose(p) for p in purpose] if purpose else None
    data = file.read_bytes()
    if dry_run:
        report = analyse(data, title, renumber=renumber, keep_notes=keep_notes)[1]
    else:
        report = _import_with_progress(
            data, title, SOURCE_CHOICES[source], purposes, (renumber, keep_notes), json_out
        )
    emit(report.to_dict(), json_out, lambda _: _render_import(report))


def _import_with_progress(data, title, source_kind, purposes, flags, quiet) -> ImportReport:
    engine = get_engine()
    renumber, keep_notes = flags
    if quiet:
        return import_book(
            engine,
            data,
            title=title,
            source_kind=source_kind,
            purposes=purposes,
            renumber=renumber,
            keep_notes=keep_notes,
        )
    with Progress(
        TextColumn("写入章节"), BarColumn(), MofNCompleteColumn(), console=console, transient=True
    ) as bar:
        task = bar.add_task("import", total=None)
        return import_book(
            engine,
            data,
            title=title,
            source_kind=source_kind,
            purposes=purposes,
            renumber=renumber,
            keep_notes=keep_notes,
            progress=lambda done, total: bar.update(task, completed=done, total=total),
        )


def _render_import(report: ImportReport) -> None:
    table = Table("章号", "标题", "卷", "汉字数", title=f"《{report.title}》识别到的章节")
    for c in report.chapters:
        table.add_row(str(c.number), c.title, c.volume or "", str(c.han_count))
    console.print(table)
    console.print(
        f"编码：{report.encoding}；共 {len(report.chapters)} 章、{report.han_count} 个汉字；"
        f"卷 {len(report.volumes)} 个；卷首文字 {report.front_matter_han} 字。"
    )
    for warning in report.warnings:
        console.print(f"[yellow]注意：[/]{warning}")
    for note in report.author_notes[:20]:
        console.print(f"  作者的话 第 {note.chapter} 章第 {note.line} 行：{escape(note.text)}")
    if len(report.author_notes) > 20:
        console.print(f"  ……另有 {len(report.author_notes) - 20} 处（--json 查看全部）")
    if report.duplicates:
        console.print(
            f"[red]章号重复：{'、'.join(map(str, report.duplicates))}（正式导入会被拒绝）[/]"
        )
    if report.dry_run:
        console.print("这是试运行（--dry-run），没有写入任何内容。")
    else:
        console.print(f"[green]已导入为作品 {report.work_id}。[/]")


def export(
    output: Path = typer.Argument(None, help="输出文件；省略则打印到终端"),
    fmt: str = typer.Option("txt", "--format", "-f", help="txt 或 md"),
    work: str = WorkOption,
) -> None:
    """导出正式正文（Canonical）。"""
    with reading(get_engine()) as conn:
        text = export_book(conn, work_id_for(work), fmt)
    if output is None:
        console.out(text, end="", highlight=False)
    else:
        output.write_text(text, encoding="utf-8")
        console.print(f"已导出到 {output}")


def list_works(json_out: bool = JsonOption) -> None:
    """列出作品。"""
    with reading(get_engine()) as conn:
        infos = catalog.list_works(conn)
    emit([i.model_dump(mode="json") for i in infos], json_out, _render_works)


def _render_works(rows: list[dict]) -> None:
    if not rows:
        console.print("还没有作品。用 muse import 导入，或运行 make demo。")
        return
    table = Table("ID", "书名", "来源", "用途", "状态", "章数", "汉字数")
    for r in rows:
        table.add_row(
            str(r["id"]),
            r["title"],
            SOURCE_KIND_LABELS[r["source_kind"]],
            "、".join(authorization.PURPOSE_LABELS[p] for p in r["allowed_purposes"]),
            STATUS_LABELS[r["source_status"]],
            str(r["chapter_count"]),
            str(r["han_count"]),
        )
    console.print(table)


def list_chapters(work: str = WorkOption, json_out: bool = JsonOption) -> None:
    """列出章节（章号、标题、卷、汉字数、修订版、内容哈希）。"""
    with reading(get_engine()) as conn:
        rows = catalog.list_chapters(conn, work_id_for(work))
    emit([r.model_dump(mode="json") for r in rows], json_out, _render_chapters)


def _render_chapters(rows: list[dict]) -> None:
    table = Table("章号", "标题", "卷", "汉字数", "修订版", "内容哈希")
    for r in rows:
        table.add_row(
            str(r["number"]),
            r["title"],
            r["volume"] or "",
            str(r["han_count"]),
            str(r["revision"]),
            r["content_sha256"][:12],
        )
    console.print(table)


@chapter_app.command("show")
def chapter_show(
    number: int = typer.Argument(..., help="章号"),
    work: str = WorkOption,
    revision: int = typer.Option(None, "--revision", help="查看某个历史修订版"),
    json_out: bool = JsonOption,
) -> None:
    """显示一章正式正文。"""
    with reading(get_engine()) as conn:
        work_id = work_id_for(work)
        chapter = (
            catalog.get_revision_text(conn, work_id, number, revision)
            if revision
            else catalog.get_chapter_text(conn, work_id, number)
        )
    emit(chapter.model_dump(mode="json"), json_out, _render_chapter)


def _render_chapter(c: dict) -> None:
    console.print(
        f"[bold]第{c['number']}章 {c['title']}[/]  修订版 {c['revision']} · "
        f"{c['han_count']} 汉字 · {c['content_sha256'][:12]}"
    )
    console.print(c["text"], highlight=False, markup=False)


@work_app.command("status")
def work_status(
    status: str = typer.Option(..., "--status", help="active | suspended | withdrawn"),
    work: str = WorkOption,
    json_out: bool = JsonOption,
) -> None:
    """修改作品来源状态；非 active 时所有生成都会失败关闭。"""
    engine = get_engine()
    with engine.begin() as conn:
        work_id = catalog.resolve_work(conn, work)
        authorization.set_source_status(conn, work_id, status)
        info = catalog.work_info(conn, work_id)
    emit(
        info.model_dump(mode="json"),
        json_out,
        lambda d: console.print(f"《{d['title']}》来源状态：{STATUS_LABELS[d['source_status']]}"),
    )


def register(app: typer.Typer) -> None:
    app.command("init")(init)
    app.command("import")(import_)
    app.command("export")(export)
    app.command("works")(list_works)
    app.command("chapters")(list_chapters)
    editing.register(app, chapter_app)
    app.add_typer(chapter_app, name="chapter")
    app.add_typer(work_app, name="work")


__all__ = ["register", "print_json"]
