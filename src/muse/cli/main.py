"""The ``muse`` command. Each noun's commands live in their own module and are registered here.

A module is imported only when one of its commands runs (:mod:`muse.cli.lazy`): ``COMMANDS``
lists every top-level command with the loader that registers it and its one-line help.
"""

from __future__ import annotations

import gc
import sys
from importlib import import_module

import typer

from muse.cli.help_panels import MuseGroup, panel_of
from muse.cli.lazy import LazyCommand, Loader, lazy_group
from muse.cli.output import print_error
from muse.core.errors import MuseError
from muse.core.redaction import RedactingStream


def _register(module: str) -> Loader:
    return lambda app: import_module(f"muse.cli.{module}").register(app)


def _writing(app: typer.Typer) -> None:
    from muse.cli import candidate_facts, writing
    from muse.cli import decisions as decisions_cli
    from muse.cli import evaluation as evaluation_cli

    writing.register(app)
    decisions_cli.register(app, writing.candidate_app)
    candidate_facts.register(writing.candidate_app)
    evaluation_cli.register(app, writing.candidate_app)


def _models(app: typer.Typer) -> None:
    from muse.cli.models import models_app

    app.add_typer(models_app, name="models")


def _config(app: typer.Typer) -> None:
    from muse.cli.config import config_app

    app.add_typer(config_app, name="config")


LOADERS: dict[str, Loader] = {
    "works": _register("works"),
    "listing": _register("listing"),
    "plan": _register("plan"),
    "write": _register("chapter_write"),
    "writing": _writing,
    "revise": _register("revise"),
    "context": _register("context"),
    "cards": _register("cards"),
    "runs": _register("runs"),
    "index": _register("index"),
    "worker": _register("worker"),
    "serve": _register("serve"),
    "models": _models,
    "config": _config,
}

# The loaders whose commands may call a model (the offline provider's generators are installed
# for these only; tests/cli/test_lazy_commands.py checks that no other loader reaches dispatch).
CALLS_MODELS = frozenset(
    {"write", "writing", "revise", "plan", "cards", "worker", "serve", "models"}
)


def _table(loader: str, *rows: tuple[str, str]) -> dict[str, LazyCommand]:
    return {name: LazyCommand(loader, help) for name, help in rows}


# In the order ``muse --help`` lists them: commands first, then groups (as Typer orders them).
COMMANDS: dict[str, LazyCommand] = {
    **_table(
        "works",
        ("init", "创建数据库并迁移到最新结构。"),
        ("import", "导入已有小说（拆书）：识别编码与章节，一个事务写入。"),
        (
            "export",
            "导出正式正文（Canonical）：标题与导入时一致，可再次导入；EPUB 带目录，卷为分节。",
        ),
        ("works", "列出作品。"),
        ("rebuild", "只凭正式正文重算全部派生数据：检索索引、出处有效性、设定台账。可重复执行。"),
    ),
    **_table("listing", ("chapters", "列出章节（章号、标题、卷、汉字数、修订版、内容哈希）。")),
    **_table("write", ("write", "按已确认细纲写下一章，产出 Shadow 候选（不会自动入正文）。")),
    **_table(
        "writing",
        ("accept", "采纳候选：接受前置校验通过后，一个事务写入正式正文（及你批准的事实增量）。"),
        ("candidates", "列出候选稿。"),
        ("discard", "丢弃候选：正式正文不变，候选标记为已丢弃并留在库内可查。"),
        ("invariants", "检查评测边界的常驻不变量；有违反时逐行列出并以退出码 1 结束。"),
    ),
    **_table(
        "revise", ("revise", "改写：以你的原话开下一轮（不入正文）；第 1–6 项与第 1 轮同序重建。")
    ),
    **_table("index", ("search", "在正式正文中检索人名、别名或文字，结果带章号与位置。")),
    **_table(
        "worker",
        ("worker", "执行排队的任务（章后抽取等）；不加 --once 时持续运行，Ctrl-C 停止。"),
    ),
    **_table(
        "serve", ("serve", "启动创作台（浏览器里的工作台）：看板、候选审阅与决策、写下一章。")
    ),
    **_table("works", ("chapter", "单章操作。"), ("work", "作品设置。")),
    **_table(
        "plan",
        (
            "plan",
            "规划五阶段（定盘 → 大纲/卷纲 → 设定拆条 → 范式与文风 → 细纲）："
            "草稿一律 Shadow，经作者确认才进入生成上下文。",
        ),
    ),
    **_table(
        "writing",
        ("run", "运行记录。"),
        ("candidate", "候选稿。"),
        ("eval", "离线评测：预注册评测集、三臂回放、双盲评审与 Gate A/B。"),
    ),
    **_table("context", ("context", "查看写手将得到的冻结上下文。")),
    **_table(
        "cards",
        ("cards", "知识卡：导入、导出、列表、设定台账。"),
        ("card", "查看一张知识卡（可按冻结点查看）。"),
        ("drafts", "待确认的卡片草稿：确认后才成为正式卡。"),
        ("conflicts", "草稿与正式卡的冲突队列。"),
        ("facts", "事实增量（待批准）与事实台账。"),
    ),
    **_table("runs", ("runs", "运行记录；muse runs sweep 清理中断遗留的运行。")),
    **_table("index", ("index", "原文检索索引：重建、更新、查看状态。")),
    **_table("worker", ("jobs", "任务队列：章后抽取、检索索引刷新。")),
    **_table(
        "models",
        ("models", "模型：提供方、模型策略、核准新模型、为作品选定各角色的模型、检查连通性。"),
    ),
    **_table("config", ("config", "配置文件：位置、内容与初始化。")),
}

app = typer.Typer(
    name="muse",
    help="Muse：长篇网文 AI 写作系统。上下文冻结可追溯，定稿权永远在作者手里。",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    cls=lazy_group(COMMANDS, LOADERS, base=MuseGroup, panel_of=panel_of),
)


@app.callback()
def _before_every_command(ctx: typer.Context) -> None:
    """Runs before any command (not for ``--help``); it also makes ``app`` a group before any
    command is loaded. Every configured key is known before anything runs, and nothing printed
    can show one (``core.secret_sources``: no configuration model, no pydantic); for a command
    that may call a model, the offline provider's generators are installed (composition root)."""
    from muse.core.secret_sources import register_known_secrets

    register_known_secrets()
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if not isinstance(stream, RedactingStream):
            setattr(sys, name, RedactingStream(stream))
    entry = COMMANDS.get(ctx.invoked_subcommand or "")
    if entry is not None and entry.loader in CALLS_MODELS:
        from muse import offline

        offline.install()
    _end_startup()


_starting = False  # main() paused the garbage collector for the start-up


def _end_startup() -> None:
    """The command is loaded: what start-up built is frozen out of later full collections and
    the collector runs again (once, whoever calls first)."""
    global _starting
    if _starting:
        _starting = False
        gc.freeze()
        gc.enable()


def main() -> None:
    """The console script. Start-up (the command's modules, tables, contracts: ~100,000
    long-lived objects, next to no garbage) runs with the garbage collector paused, and what it
    built is then frozen (``gc.freeze``): otherwise collections during start-up rescan it all,
    and a full one during a chapter write costs ~60 ms CPU for nothing."""
    global _starting
    if gc.isenabled():
        gc.disable()
        _starting = True
    try:
        app()
    except MuseError as err:
        print_error(err)
        sys.exit(1)
    finally:
        _end_startup()
