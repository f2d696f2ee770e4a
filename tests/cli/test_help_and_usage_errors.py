"""``muse --help`` panels and Typer/Click's own usage errors in Chinese, through the real app."""

from dataclasses import dataclass

import pytest
from typer.testing import CliRunner

from muse.cli.help_panels import OTHER_PANEL, PANELS, panel_of
from muse.cli.main import app

runner = CliRunner()


def _top_level_names() -> list[str]:
    names = [c.name or c.callback.__name__ for c in app.registered_commands]
    return names + [g.name for g in app.registered_groups]


def test_every_command_is_in_a_panel_and_help_shows_the_panels_in_order(monkeypatch):
    monkeypatch.setenv("COLUMNS", "120")
    unassigned = [n for n in _top_level_names() if panel_of(n) == OTHER_PANEL]
    assert unassigned == [], f"add these to muse.cli.help_panels.PANELS: {unassigned}"

    result = runner.invoke(app, ["--help"])

    assert result.exit_code == 0
    positions = [result.stdout.index(f"─ {panel} ") for panel in PANELS]
    assert positions == sorted(positions)
    models_panel = result.stdout[positions[-1] :]
    assert "models" in models_panel and "config" in models_panel
    assert "write" not in models_panel


@dataclass(frozen=True)
class Case:
    args: tuple[str, ...]
    words: str


CASES = [
    Case(("models", "approve", "--role", "writer"), "缺少选项 --provider"),
    Case(("write", "3", "--bogus"), "没有这个选项：--bogus"),
    Case(("writ", "3"), "没有命令 writ。你是不是想用 write？"),
    Case(("write", "abc"), "chapter 的值有误：应为整数"),
    Case(("write", "3", "--max-rewrites", "-1"), "--max-rewrites 的值有误：不能小于 0"),
    Case(("import", "/nonexistent/book.txt"), "路径 '/nonexistent/book.txt' 不存在"),
    Case(("works", "extra"), "多余的参数：extra"),
    Case(("import", "/"), "'/' 是目录，这里需要文件"),
    Case(("chapter", "edit", "1", "--file", "/nonexistent"), "--file / -f 的值有误：路径"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: " ".join(c.args))
def test_usage_errors_are_chinese_exit_2_without_traceback(case, tmp_path, monkeypatch):
    monkeypatch.setenv("MUSE_DATABASE_URL", f"sqlite:///{tmp_path}/never.db")
    result = runner.invoke(app, list(case.args))

    assert result.exit_code == 2
    assert case.words in result.stderr
    assert "查看帮助：muse" in result.stderr
    for english in ("Missing option", "No such option", "Invalid value", "Traceback"):
        assert english not in result.output
    assert not (tmp_path / "never.db").exists()  # refused before any command ran


@pytest.mark.parametrize(
    ("english", "chinese"),
    [
        # Click's wording (Typer < 0.29) and pydantic's (Typer 0.29): the same Chinese
        ("'abc' is not a valid int.", "应为整数"),
        ("'abc' is not a valid integer.", "应为整数"),
        ("Input should be a valid integer, unable to parse string", "应为整数"),
        ("'x' is not a valid float.", "应为数字"),
        ("'maybe' is not a valid boolean.", "应为 true 或 false"),
        ("-1 is not in the range x>=0.", "不能小于 0"),
        ("0 is not in the range x>0.", "应大于 0"),
        ("11 is not in the range x<=10.", "不能大于 10"),
        ("10 is not in the range x<10.", "应小于 10"),
        ("0.5 is not in the range 1<=x<=10.", "应在 1 到 10 之间"),
        ("-3 is not in the range -2.5<=x<=2.5.", "应在 -2.5 到 2.5 之间"),
        ("Input should be greater than or equal to 0", "不能小于 0"),
    ],
)
def test_a_bad_value_reads_the_same_in_chinese_whichever_wording(english, chinese):
    from muse.cli.help_panels import _value_message

    assert _value_message(english) == chinese
