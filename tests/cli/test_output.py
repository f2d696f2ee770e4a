"""The output helpers: user and model strings print as themselves; prose is never hard-wrapped
when it goes to a file; stored UTC times show in the local time zone."""

import time

import pytest
from rich.console import Console

from muse.cli import output

NASTY = [
    "[providers.deepseek]",
    "[bold]不是粗体[/]",
    "[/]",
    "路径 C:\\new\\[x]",
    "[red",
    "正常文字",
]


@pytest.fixture
def captured(monkeypatch):
    console = Console(width=200, force_terminal=False, color_system=None, record=True)
    monkeypatch.setattr(output, "console", console)
    return console


@pytest.mark.parametrize("value", NASTY)
def test_emit_hands_renderers_markup_safe_strings(captured, value):
    def render(d):
        captured.print(f"[bold]名称：[/]{d['name']}　{'、'.join(d['items'])}")

    output.emit({"name": value, "items": [value]}, False, render)

    assert captured.export_text() == f"名称：{value}　{value}\n"


def test_json_output_is_the_data_unchanged(capsys):
    output.emit({"name": NASTY[0]}, True, lambda d: None)
    assert '"[providers.deepseek]"' in capsys.readouterr().out


def test_prose_is_not_wrapped_when_not_a_terminal(monkeypatch, capsys):
    console = Console(width=40, force_terminal=False)
    monkeypatch.setattr(output, "console", console)
    text = "话说" + "花果山水帘洞" * 40 + "[bold]。\n第二段。"
    output.print_prose(text)
    assert capsys.readouterr().out == text + "\n"


@pytest.mark.parametrize(
    ("zone", "stored", "shown"),
    [
        ("Asia/Shanghai", "2026-12-01T09:06:26.684441Z", "2026-12-01 17:06:26"),
        ("America/New_York", "2026-12-01T09:06:26Z", "2026-12-01 04:06:26"),
        ("UTC", "2026-12-01T23:59:59+00:00", "2026-12-01 23:59:59"),
    ],
)
def test_local_time(monkeypatch, zone, stored, shown):
    monkeypatch.setenv("TZ", zone)
    time.tzset()
    try:
        assert output.local_time(stored) == shown
    finally:
        monkeypatch.undo()
        time.tzset()
    assert output.local_time(None) == "—"
