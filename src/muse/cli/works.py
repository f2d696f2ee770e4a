"""``muse init``, ``import``, ``export``, ``works``, ``chapter show``, ``work status``.

``muse chapters`` lives in :mod:`muse.cli.listing` (it starts without SQLAlchemy).

The author's own edits (``chapter edit / revert / history``) and ``rebuild`` live in
:mod:`muse.cli.editing` and are registered with these.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from muse.cli import editing
from muse.cli.common import get_engine, work_id_for
from muse.cli.options import JsonOption, WorkOption
from muse.cli.output import console, emit, escape, fail, new_table, print_json, print_prose
from muse.core.limits import MAX_BOOK_MB, MAX_CHAPTER_CHARS, read_capped
from muse.store.engine import make_engine, reading
from muse.store.migrate import current_revisions, upgrade
from muse.store.urls import database_url
from muse.works import (
    PURPOSE_LABELS,
    SOURCE_KIND_LABELS,
    STATUS_LABELS,
    Purpose,
    SourceKind,
    get_chapter_text,
    get_revision_text,
    resolve_work,
    set_source_status,
    work_info,
)
from muse.works import (
    list_works as all_works,
)

if TYPE_CHECKING:
    from rich.progress import Progress

    from muse.works import ImportReport

chapter_app = typer.Typer(help="单章操作。", no_args_is_help=True)
work_app = typer.Typer(help="作品设置。", no_args_is_help=True)


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
    max_mb: float = typer.Option(MAX_BOOK_MB, "--max-mb", help="文件大小上限（MB）"),
    max_chapter_chars: int = typer.Option(
        MAX_CHAPTER_CHARS, "--max-chapter-chars", min=1, help="单章字符数上限"
    ),
    keep_notes: bool = typer.Option(
        False,
        "--keep-notes",
        help="保留作者的话等非正文的行（PS、本章完、求月票、网站广告等）在正文中；默认排除",
    ),
    json_out: bool = JsonOption,
) -> None:
    """导入已有小说（拆书）：识别编码与章节，一个事务写入。"""
    from muse.flow import source_kind_of

    source_kind = source_kind_of(source)
    purposes = [Purpose(p) for p in purpose] if purpose else None
    data = read_capped(file, max_mb, what="小说文件", flag="--max-mb")
    limits: dict[str, Any] = {
        "renumber": renumber,
        "max_chapter_chars": max_chapter_chars,
        "keep_notes": keep_notes,
    }
    if dry_run:
        from muse.works import analyse

        report = analyse(data, title, **limits)[1]
        emit(report.to_dict(), json_out, lambda _: _render_import(report))
        return
    report, index = _import_and_index(data, title, source_kind, purposes, limits, json_out)
    emit(
        {**report.to_dict(), "searchIndex": index},
        json_out,
        lambda _: _render_import(report, index),
    )


def _import_and_index(
    data: bytes,
    title: str,
    source_kind: SourceKind,
    purposes: list[Purpose] | None,
    limits: dict[str, Any],
    quiet: bool,
) -> tuple[ImportReport, dict[str, Any]]:
    """Import, then build the search index in the same command (:mod:`muse.flow.book_import`)."""
    if quiet:
        return _import_and_index_with(data, title, source_kind, purposes, limits, None)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        console=console.real(),
        transient=True,
    ) as bar:
        return _import_and_index_with(data, title, source_kind, purposes, limits, bar)


def _import_and_index_with(
    data: bytes,
    title: str,
    source_kind: SourceKind,
    purposes: list[Purpose] | None,
    limits: dict[str, Any],
    bar: Progress | None,
) -> tuple[ImportReport, dict[str, Any]]:
    from muse.flow import ImportLimits, import_and_index

    return import_and_index(
        get_engine(),
        data,
        title=title,
        source_kind=source_kind,
        purposes=purposes,
        limits=ImportLimits(**limits),
        import_progress=_bar_task(bar, "写入章节"),
        index_progress=_bar_task(bar, "建立检索索引"),
    )


def _bar_task(bar: Progress | None, label: str) -> Callable[[int, int], None] | None:
    if bar is None:
        return None
    task = bar.add_task(label, total=None)
    return lambda done, total: bar.update(task, completed=done, total=total)


def _render_import(report: ImportReport, index: dict[str, Any] | None = None) -> None:
    table = new_table("章号", "标题", "卷", "汉字数", title=f"《{report.title}》识别到的章节")
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
        console.print(f"  {note.kind} 第 {note.chapter} 章第 {note.line} 行：{escape(note.text)}")
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
    if index is not None and "error" in index:
        console.print(
            f"[yellow]注意：[/]检索索引未能建立（{escape(index['error'])}）；"
            "首次写作时会自动建立，也可运行 muse index rebuild。"
        )
    elif index is not None:
        console.print(f"检索索引已建立：{index['chunks']} 个片段，用时 {index['seconds']} 秒。")


def export(
    output: Path = typer.Argument(None, help="输出文件；省略则打印到终端（EPUB 必须写入文件）"),
    fmt: str = typer.Option(
        None, "--format", "-f", help="txt、md 或 epub；省略时按输出文件的扩展名，否则 txt"
    ),
    author: str = typer.Option(None, "--author", help="EPUB 元数据中的作者（默认：佚名）"),
    work: str = WorkOption,
) -> None:
    """导出正式正文（Canonical）：标题与导入时一致，可再次导入；EPUB 带目录，卷为分节。"""
    from muse.works import FORMATS, export_book, export_epub

    fmt = (fmt or _format_from(output)).lower()
    if fmt not in FORMATS:
        fail(f"不支持的导出格式「{fmt}」，可选：{'、'.join(FORMATS)}。")
    if fmt == "epub" and output is None:
        fail("EPUB 是二进制文件，请写出输出文件名，例如：muse export 西游记.epub --format epub")
    with reading(get_engine()) as conn:
        work_id = work_id_for(work)
        data = (
            export_epub(conn, work_id, author=author)
            if fmt == "epub"
            else export_book(conn, work_id, fmt).encode("utf-8")
        )
    if output is None:
        console.out(data.decode("utf-8"), end="", highlight=False)
        return
    try:
        output.write_bytes(data)
    except OSError as err:
        fail(f"无法写入 {output}：{err.strerror or err}")
    console.print(f"已导出到 {escape(str(output))}（{fmt}）", highlight=False, soft_wrap=True)


def _format_from(output: Path | None) -> str:
    from muse.works import FORMATS

    suffix = output.suffix.lower().lstrip(".") if output is not None else ""
    return suffix if suffix in FORMATS else "txt"


def list_works(json_out: bool = JsonOption) -> None:
    """列出作品。"""
    with reading(get_engine()) as conn:
        infos = all_works(conn)
    emit([i.model_dump(mode="json") for i in infos], json_out, _render_works)


def _render_works(rows: list[dict[str, Any]]) -> None:
    if not rows:
        console.print("还没有作品。用 muse import 导入，或运行 make demo。")
        return
    table = new_table("ID", "书名", "来源", "用途", "状态", "章数", "汉字数")
    for r in rows:
        table.add_row(
            str(r["id"]),
            r["title"],
            SOURCE_KIND_LABELS[r["source_kind"]],
            "、".join(PURPOSE_LABELS[p] for p in r["allowed_purposes"]),
            STATUS_LABELS[r["source_status"]],
            str(r["chapter_count"]),
            str(r["han_count"]),
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
            get_revision_text(conn, work_id, number, revision)
            if revision
            else get_chapter_text(conn, work_id, number)
        )
    emit(chapter.model_dump(mode="json"), json_out, _render_chapter, escaped=False)


def _render_chapter(c: dict[str, Any]) -> None:
    console.print(
        f"[bold]第{c['number']}章 {escape(c['title'])}[/]  修订版 {c['revision']} · "
        f"{c['han_count']} 汉字 · {c['content_sha256'][:12]}",
        highlight=False,
    )
    print_prose(c["text"])


@work_app.command("status")
def work_status(
    status: str = typer.Option(..., "--status", help="active | suspended | withdrawn"),
    work: str = WorkOption,
    json_out: bool = JsonOption,
) -> None:
    """修改作品来源状态；非 active 时所有生成都会失败关闭。"""
    engine = get_engine()
    with engine.begin() as conn:
        work_id = resolve_work(conn, work)
        set_source_status(conn, work_id, status)
        info = work_info(conn, work_id)
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
    editing.register(app, chapter_app)
    app.add_typer(chapter_app, name="chapter")
    app.add_typer(work_app, name="work")


__all__ = ["register", "print_json"]
