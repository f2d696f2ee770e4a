"""``muse --help`` in panels, and Typer/Click's own usage errors in Chinese.

``PANELS`` is the one place that says which panel a top-level command is listed in: a new
command is added to its panel's tuple here (a test fails for a command that is in none).

Usage errors (a missing option, an unknown option or command, a value of the wrong type, a path
that does not exist) are raised by the parser before any Muse code runs. :class:`MuseGroup`
catches them at the top and prints one Chinese line, the usage and where to get help, on stderr
with exit code 2, never a traceback.
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any

import typer
from typer._click.exceptions import ClickException, UsageError  # Typer vendors Click
from typer.core import TyperGroup

from muse.cli.output import err_console, escape

PANELS: dict[str, tuple[str, ...]] = {
    "作品与正文": ("init", "import", "export", "works", "work", "chapters", "chapter", "search"),
    "设定": ("cards", "card", "drafts", "conflicts", "facts"),
    "规划": ("plan", "context"),
    "写作与决策": ("write", "candidates", "candidate", "accept", "discard", "revise"),
    "运行与任务": (
        "runs",
        "run",
        "jobs",
        "worker",
        "rebuild",
        "index",
        "serve",
        "eval",
        "invariants",
    ),
    "模型与配置": ("models", "config"),
}

OTHER_PANEL = "其他"


def panel_of(name: str) -> str:
    for panel, names in PANELS.items():
        if name in names:
            return panel
    return OTHER_PANEL


def assign_panels(app: typer.Typer) -> None:
    """Put every registered top-level command and group into its panel."""
    for command in app.registered_commands:
        name = command.name or (command.callback.__name__ if command.callback else "")
        command.rich_help_panel = panel_of(name.replace("_", "-"))
    for group in app.registered_groups:
        group.rich_help_panel = panel_of(group.name or "")


HELP_OPTION = "--help"

# Imported by typer.rich_utils but used only for Markdown help text and Typer's pretty
# tracebacks, neither of which Muse uses (rich markup mode; pretty exceptions off). Together
# they pull in markdown_it and pygments, about 40 % of the help module's import.
_UNUSED_BY_HELP = (("rich.markdown", "Markdown"), ("rich.traceback", "Traceback"))


class _Forwarding(type):
    """Metaclass of a stand-in: calling it or reading an attribute imports the real class."""

    _real: tuple[str, str]

    def _load(cls) -> Any:
        module, name = cls._real
        return getattr(importlib.import_module(module), name)

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        return cls._load()(*args, **kwargs)

    def __getattr__(cls, attr: str) -> Any:
        if attr.startswith("__"):
            raise AttributeError(attr)
        return getattr(cls._load(), attr)


def _stand_in(module: str, name: str) -> ModuleType:
    stand_in = ModuleType(module)
    setattr(stand_in, name, _Forwarding(name, (), {"_real": (module, name)}))
    return stand_in


def rich_utils() -> Any:  # the module typer.rich_utils (its constants are set here)
    """``typer.rich_utils``, imported without the modules it does not need for Muse's help: while
    it is imported, ``rich.markdown`` and ``rich.traceback`` are stand-ins whose class imports the
    real one on first use (so nothing changes if they are ever used), then removed again."""
    loaded = sys.modules.get("typer.rich_utils")
    if loaded is not None:
        return loaded
    stand_ins = {m: _stand_in(m, n) for m, n in _UNUSED_BY_HELP if m not in sys.modules}
    sys.modules.update(stand_ins)
    try:
        return importlib.import_module("typer.rich_utils")
    finally:
        for module, stand_in in stand_ins.items():
            if sys.modules.get(module) is stand_in:
                del sys.modules[module]


def localize_help() -> None:
    """The help screen's own words in Chinese (Typer reads these module constants).

    Typer's rich help module costs ~0.14 s to import, so it is imported (and localised) only
    when a help screen or an abort message is about to be shown (:meth:`MuseGroup.main`)."""
    help_module = rich_utils()
    help_module.ARGUMENTS_PANEL_TITLE = "参数"
    help_module.OPTIONS_PANEL_TITLE = "选项"
    help_module.COMMANDS_PANEL_TITLE = "命令"
    help_module.ERRORS_PANEL_TITLE = "错误"
    help_module.REQUIRED_LONG_STRING = "[必填]"
    help_module.DEFAULT_STRING = "[默认：{}]"
    help_module.ABORTED_TEXT = "已中止。"


_VALUE_PATTERNS: list[tuple[str, str]] = [
    (r"Input should be a valid integer", "应为整数"),
    (r"Input should be a valid number", "应为数字"),
    (r"Input should be a valid boolean", "应为 true 或 false"),
    (r"Input should be greater than or equal to (\S+)", r"不能小于 \1"),
    (r"Input should be greater than (\S+)", r"应大于 \1"),
    (r"Input should be less than or equal to (\S+)", r"不能大于 \1"),
    (r"Input should be less than (\S+)", r"应小于 \1"),
    # Click's own wording (Typer before 0.29 leaves the conversion to Click)
    (r"is not a valid (?:int|integer)\b", "应为整数"),
    (r"is not a valid (?:float|number)\b", "应为数字"),
    (r"is not a valid boolean\b", "应为 true 或 false"),
    (r"is not in the range (-?[\d.]*\d)<=x<=(-?[\d.]*\d)", r"应在 \1 到 \2 之间"),
    (r"is not in the range x>=(-?[\d.]*\d)", r"不能小于 \1"),
    (r"is not in the range x>(-?[\d.]*\d)", r"应大于 \1"),
    (r"is not in the range x<=(-?[\d.]*\d)", r"不能大于 \1"),
    (r"is not in the range x<(-?[\d.]*\d)", r"应小于 \1"),
    (r"(?:file|directory|path) (.+) does not exist\.", r"路径 \1 不存在"),
    (r"(?:file|directory|path) (.+) is a directory\.", r"\1 是目录，这里需要文件"),
    (r"(?:file|directory|path) (.+) is a file\.", r"\1 是文件，这里需要目录"),
    (r"(?:file|directory|path) (.+) is not readable\.", r"\1 无法读取（权限不足）"),
    (r"(?:file|directory|path) (.+) is not writable\.", r"\1 无法写入（权限不足）"),
    (r"(.+) is not one of (.+)\.", r"\1 不是可选值之一（可选：\2）"),
]


def _value_message(message: str) -> str:
    for pattern, chinese in _VALUE_PATTERNS:
        match = re.search(pattern, message, flags=re.IGNORECASE)
        if match:
            return match.expand(chinese)
    return message


def _hint(error: Any) -> str:
    param = getattr(error, "param", None)
    hint = getattr(error, "param_hint", None)
    if hint is None and param is not None:
        hint = param.get_error_hint(getattr(error, "ctx", None))
    if isinstance(hint, list | tuple):
        hint = " / ".join(str(h) for h in hint)
    return str(hint or "").replace("'", "")


def chinese_usage_error(error: Any) -> str:
    """One Chinese sentence for a Click usage error (its English text as the last resort)."""
    kind = type(error).__name__
    message = str(getattr(error, "message", "") or error)
    if kind == "MissingParameter":
        what = (
            "选项"
            if getattr(error, "param_type", None) == "option"
            or (error.param is not None and error.param.param_type_name == "option")
            else "参数"
        )
        return f"缺少{what} {_hint(error)}。"
    if kind == "NoSuchOption":
        text = f"没有这个选项：{error.option_name}。"
        if error.possibilities:
            text += f"你是不是想用 {'、'.join(sorted(error.possibilities))}？"
        return text
    if kind == "BadParameter":
        return f"{_hint(error)} 的值有误：{_value_message(message)}。"
    return _usage_message(message)


_USAGE_PATTERNS: list[tuple[str, str]] = [
    (r"No such command '(.+?)'\. Did you mean '(.+?)'\?", r"没有命令 \1。你是不是想用 \2？"),
    (r"No such command '(.+?)'\.", r"没有命令 \1。"),
    (r"Got unexpected extra argument(?:\(s\)|s)? \((.+)\)", r"多余的参数：\1。"),
    (r"Option '(.+?)' requires an argument\.", r"选项 \1 需要一个值。"),
    (r"Option '(.+?)' requires (\d+) arguments\.", r"选项 \1 需要 \2 个值。"),
    (r"Option '(.+?)' does not take a value\.", r"选项 \1 不接受值。"),
    (r"Value (.+?) is not a valid (.+)\.", r"\1 不是有效的 \2。"),
]


def _usage_message(message: str) -> str:
    for pattern, chinese in _USAGE_PATTERNS:
        match = re.search(pattern, message)
        if match:
            return match.expand(chinese)
    return f"命令用法有误：{message}"


def print_usage_error(error: Any) -> None:
    ctx = getattr(error, "ctx", None)
    err_console.print(f"[bold red]错误：[/]{escape(chinese_usage_error(error))}", highlight=False)
    if ctx is not None:
        usage = ctx.get_usage().replace("Usage: ", "用法：", 1)
        err_console.print(escape(usage), highlight=False)
        err_console.print(f"查看帮助：{escape(ctx.command_path)} --help", highlight=False)


class MuseGroup(TyperGroup):
    """The top-level group: panels in ``PANELS`` order; usage errors in Chinese, exit code 2."""

    def list_commands(self, ctx: Any) -> list[str]:
        order = {panel: i for i, panel in enumerate(PANELS)}
        names = super().list_commands(ctx)
        return sorted(names, key=lambda n: order.get(panel_of(n), len(order)))

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **extra: Any,
    ) -> Any:
        if HELP_OPTION in (sys.argv[1:] if args is None else args):
            localize_help()
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, windows_expand_args, **extra)
        try:
            result = super().main(
                args, prog_name, complete_var, False, windows_expand_args, **extra
            )
        except typer.Abort:
            localize_help()
            err_console.print(rich_utils().ABORTED_TEXT)
            sys.exit(1)
        except ClickException as err:
            if type(err).__name__ == "NoArgsIsHelpError":
                localize_help()
                err.show()  # the help screen of a bare group
                sys.exit(0)
            if isinstance(err, UsageError):
                print_usage_error(err)
            else:
                err_console.print(f"[bold red]错误：[/]{escape(err.format_message())}")
            sys.exit(err.exit_code)
        sys.exit(result if isinstance(result, int) else 0)
