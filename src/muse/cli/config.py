"""``muse config``: where the author's configuration file is, and what it says.

The file is edited by hand; ``init`` writes a commented template once. ``show`` prints the
provider entries with keys masked: a key value is never printed.
"""

from __future__ import annotations

import typer

from muse.agents import CONFIG_ENV, CONFIG_TEMPLATE, config_path, load_config
from muse.cli.output import console, emit, fail
from muse.core.errors import MuseError

config_app = typer.Typer(help="配置文件：位置、内容与初始化。", no_args_is_help=True)


@config_app.command("path")
def path() -> None:
    """打印配置文件的位置（可用环境变量 MUSE_CONFIG 改到别处）。"""
    location = config_path()
    console.print(str(location), highlight=False, soft_wrap=True)
    if not location.exists():
        console.print(
            f"（文件尚不存在；可运行 muse config init 生成模板。设置 {CONFIG_ENV} 可改用别的位置。）"
        )


@config_app.command("init")
def init() -> None:
    """在配置文件位置生成带注释的模板；已存在时不覆盖。"""
    location = config_path()
    if location.exists():
        fail(f"配置文件已存在，未覆盖：{location}")
    location.parent.mkdir(parents=True, exist_ok=True)
    location.write_text(CONFIG_TEMPLATE, encoding="utf-8")
    console.print(f"已生成配置文件模板：{location}", highlight=False)


def _render_show(data: dict) -> None:
    console.print(
        f"配置文件：{data['path']}{'' if data['exists'] else '（不存在）'}", highlight=False
    )
    if not data["providers"]:
        console.print("没有提供方配置。")
    for name, entry in data["providers"].items():
        console.print(f"[bold]\\[providers.{name}][/]", highlight=False)  # a literal [ … ]
        for key, value in entry.items():
            console.print(f"  {key} = {value}", highlight=False)


@config_app.command("show")
def show(as_json: bool = typer.Option(False, "--json", help="以 JSON 输出")) -> None:
    """显示配置文件中的提供方设置（密钥只显示“已设置”）。"""
    location = config_path()
    try:
        config = load_config(location)
    except MuseError as err:
        fail(err)
    providers = {}
    for name, entry in config.providers.items():
        values = entry.model_dump(exclude_none=True, exclude={"api_key"})
        if entry.api_key is not None:
            values["api_key"] = "（已设置）"
        providers[name] = values
    emit(
        {"path": str(location), "exists": location.exists(), "providers": providers},
        as_json,
        _render_show,
    )
