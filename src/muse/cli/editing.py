"""``muse chapter edit / revert / history`` and ``muse rebuild``: the author's own hand on the text.

The services are imported inside the commands: ``muse chapters`` registers these commands too and
should not pay for the editing and rebuild machinery (issue 12, start-up).
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from muse.cli.common import get_engine, work_id_for
from muse.cli.options import JsonOption, WorkOption
from muse.cli.output import console, emit, fail, new_table
from muse.core.clock import utc_now
from muse.core.errors import ConfigError, InvalidInput, RevisionConflict
from muse.store.engine import reading
from muse.works import get_chapter_text, get_revision_text

if TYPE_CHECKING:
    from sqlalchemy import Engine

ORIGIN_LABELS = {"import": "导入", "accept": "采纳候选", "edit": "作者编辑", "revert": "回退"}

ExpectedRevisionOption = typer.Option(
    None,
    "--expected-revision",
    help="你所基于的修订版；正文在此之后被改动过则拒绝写入（默认：当前修订版）",
)


def chapter_edit(
    number: int = typer.Argument(..., help="章号"),
    file: Path = typer.Option(
        None,
        "--file",
        "-f",
        exists=True,
        dir_okay=False,
        help="新正文文件（UTF-8）；省略则打开 $EDITOR",
    ),
    expected_revision: int = ExpectedRevisionOption,
    work: str = WorkOption,
    json_out: bool = JsonOption,
) -> None:
    """作者直接修改一章正式正文：新修订版，同一事务更新检索索引、出处校验并排队章后抽取。"""
    from muse.flow import edit_chapter

    engine = get_engine()
    work_id = work_id_for(work)
    with reading(engine) as conn:
        current = get_chapter_text(conn, work_id, number)
        base = current.revision if expected_revision is None else expected_revision
        if file is None:
            original = get_revision_text(conn, work_id, number, base).text
    if file is not None:
        text, source = file.read_text(encoding="utf-8-sig"), file.name
    else:
        text, source = _open_editor(original, number), None
    try:
        outcome = edit_chapter(engine, work_id, number, text, expected_revision=base, source=source)
    except RevisionConflict as err:
        kept = file if file is not None else _keep(number, text)
        raise RevisionConflict(
            err.message,
            hint=f"你的修改已保存在 {kept}；请在最新修订版上重新修改后再提交"
            f"（muse chapter show {number} 查看最新正文）。",
        ) from None
    emit(outcome.to_dict(), json_out, _render_change)


def _open_editor(text: str, number: int) -> str:
    """The text after the author edited it in ``$VISUAL`` / ``$EDITOR``."""
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    if not editor:
        raise ConfigError(
            "没有设置编辑器。", hint="设置环境变量 EDITOR（如 export EDITOR=vim），或用 --file。"
        )
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"第{number}章.txt"
        path.write_text(text, encoding="utf-8")
        before = path.stat().st_mtime_ns
        code = subprocess.run(f'{editor} "{path}"', shell=True, check=False).returncode
        if code != 0:
            raise InvalidInput(f"编辑器异常退出（退出码 {code}），未写入。")
        if path.stat().st_mtime_ns == before:
            raise InvalidInput("编辑器里没有保存修改，未写入。")
        return path.read_text(encoding="utf-8-sig")


def _keep(number: int, text: str) -> Path:
    """Save an edit the database refused, so the author's work is never lost."""
    stamp = utc_now().strftime("%Y%m%dT%H%M%S")
    path = Path.cwd() / f"muse-第{number}章-未提交修改-{stamp}.txt"
    path.write_text(text, encoding="utf-8")
    return path


def chapter_revert(
    number: int = typer.Argument(..., help="章号"),
    to_revision: int = typer.Option(..., "--to-revision", help="要恢复的历史修订版"),
    expected_revision: int = ExpectedRevisionOption,
    work: str = WorkOption,
    json_out: bool = JsonOption,
) -> None:
    """把一章恢复为某个历史修订版的正文（写成新修订版，历史不被改写）。"""
    from muse.flow import revert_chapter

    outcome = revert_chapter(
        get_engine(),
        work_id_for(work),
        number,
        to_revision=to_revision,
        expected_revision=expected_revision,
    )
    emit(outcome.to_dict(), json_out, _render_change)


def _render_change(d: dict[str, Any]) -> None:
    what = (
        f"已恢复为修订版 {d['reverted_to']} 的正文" if d["origin"] == "revert" else "已写入作者修改"
    )
    console.print(
        f"[green]第 {d['chapter']} 章{what}：修订版 {d['previous_revision']} → {d['revision']}[/]"
        f" · {d['han_count']} 汉字 · {d['content_sha256'][:12]}"
    )
    if d["index_chunks"] is None:
        console.print("检索索引：本作品尚未建索引（muse index rebuild 可建立）。")
    else:
        console.print(f"检索索引：本章已重新切分为 {d['index_chunks']} 块。")
    console.print(
        f"出处校验：检查 {d['refs_checked']} 条，新失效 {len(d['stale_refs'])} 条，"
        f"恢复 {d['refs_restored']} 条，顺延到新修订版 {d['refs_reanchored']} 条。"
    )
    for ref in d["stale_refs"]:
        console.print(f"  [yellow]失效[/] {ref['owner_kind']} {ref['owner_id']}：{ref['reason']}")
    console.print(f"章后抽取已排队（任务 {d['job_id']}）。")


def chapter_history_cmd(
    number: int = typer.Argument(..., help="章号"),
    work: str = WorkOption,
    json_out: bool = JsonOption,
) -> None:
    """列出一章的全部修订版（来源、时间、汉字数、哈希）。"""
    from muse.works import chapter_history

    with reading(get_engine()) as conn:
        rows = chapter_history(conn, work_id_for(work), number)
    emit([r.to_dict() for r in rows], json_out, lambda data: _render_history(number, data))


def _render_history(number: int, rows: list[dict[str, Any]]) -> None:
    table = new_table(
        "修订版", "来源", "时间（UTC）", "汉字数", "内容哈希", "", title=f"第 {number} 章修订历史"
    )
    for r in rows:
        origin = ORIGIN_LABELS.get(r["origin"], r["origin"])
        if r["attribution"].get("revertedTo"):
            origin += f"→{r['attribution']['revertedTo']}"
        table.add_row(
            str(r["revision"]),
            origin,
            (r["created_at"] or "")[:19].replace("T", " "),
            str(r["han_count"]),
            r["content_sha256"][:12],
            "当前" if r["current"] else "",
        )
    console.print(table)


def rebuild_cmd(work: str = WorkOption, json_out: bool = JsonOption) -> None:
    """只凭正式正文重算全部派生数据：检索索引、出处有效性、设定台账。可重复执行。"""
    from muse.flow import rebuild

    engine = get_engine()
    work_id = work_id_for(work) if work is not None else None
    if json_out:
        summaries = rebuild(engine, work_id)
    else:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        with Progress(
            TextColumn("重建 {task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console.real(),
            transient=True,
        ) as bar:
            task = bar.add_task("", total=None)
            summaries = rebuild(
                engine,
                work_id,
                lambda label, done, total: bar.update(
                    task, description=label, completed=done, total=total
                ),
            )
    emit([s.to_dict() for s in summaries], json_out, _render_rebuild)
    _check_invariants(engine)


def _check_invariants(engine: Engine) -> None:
    """Spec 001 §7: a rebuild also checks the standing invariants of the evaluation boundary."""
    from muse.evaluation import check_invariants

    violations = check_invariants(engine)
    if violations:
        names = "；".join(f"{v.table} {v.row_id}（{v.detail}）" for v in violations)
        fail(f"常驻不变量被违反：{names}。用 muse invariants 查看详情。")


def _render_rebuild(rows: list[dict[str, Any]]) -> None:
    if not rows:
        console.print("还没有作品，无需重建。")
    for r in rows:
        console.print(f"[bold]《{r['title']}》[/]（作品 {r['work_id']}）已重建：")
        console.print(
            f"  检索索引：{r['chapters']} 章，{r['index_chunks']} 块（{r['index_version']}）"
        )
        console.print(
            f"  出处：共 {r['refs_checked']} 条，失效 {r['refs_stale']} 条"
            f"（本次新失效 {r['refs_newly_stale']}，恢复 {r['refs_restored']}，"
            f"顺延 {r['refs_reanchored']}）"
        )
        console.print(
            f"  设定台账：{r['ledger_cards']} 张卡，共出现 {r['ledger_mentions']} 次，"
            f"{r['ledger_untouched']} 张卡尚未在正文中出现"
        )


def register(app: typer.Typer, chapter_app: typer.Typer) -> None:
    chapter_app.command("edit")(chapter_edit)
    chapter_app.command("revert")(chapter_revert)
    chapter_app.command("history")(chapter_history_cmd)
    app.command("rebuild")(rebuild_cmd)
