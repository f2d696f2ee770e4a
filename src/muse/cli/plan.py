"""``muse plan import`` / ``confirm``: fine outlines as YAML the author edits (stage 4)."""

from __future__ import annotations

from pathlib import Path

import typer

from muse.cli.common import JsonOption, WorkOption, get_engine
from muse.cli.output import console, emit
from muse.core.errors import InvalidInput
from muse.planning.fine_outlines import confirm_section, save_fine_outline
from muse.planning.yaml_io import load_yaml
from muse.works.catalog import resolve_work

plan_app = typer.Typer(help="规划（细纲等）：先存为 Shadow，经作者确认才进入生成上下文。",
                       no_args_is_help=True)


@plan_app.command("import")
def plan_import(
    file: Path = typer.Argument(..., exists=True, dir_okay=False, help="细纲 YAML 文件"),
    confirm: bool = typer.Option(False, "--confirm", help="导入后立即确认"),
    work: str = WorkOption,
    json_out: bool = JsonOption,
) -> None:
    """导入一章细纲（fine_outline）为 Shadow；加 --confirm 则同时确认。"""
    data = load_yaml(file)
    try:
        with get_engine().begin() as conn:
            section_id = save_fine_outline(conn, resolve_work(conn, work), data)
            if confirm:
                confirm_section(conn, section_id)
    except InvalidInput as err:
        raise InvalidInput(f"{file}：{err.message}") from None
    state = "confirmed" if confirm else "shadow"
    emit({"id": section_id, "state": state}, json_out,
         lambda d: console.print(f"细纲已保存：{d['id']}（{'已确认' if confirm else 'Shadow，待确认'}）"))


@plan_app.command("confirm")
def plan_confirm(section_id: str, json_out: bool = JsonOption) -> None:
    """确认一条 Shadow 规划（唯一的确认通道）。"""
    with get_engine().begin() as conn:
        confirm_section(conn, section_id)
    emit({"id": section_id, "state": "confirmed"}, json_out,
         lambda d: console.print(f"已确认：{d['id']}"))


def register(app: typer.Typer) -> None:
    app.add_typer(plan_app, name="plan")
