"""``muse discard``, ``muse candidate edit``, ``muse candidate diff`` and the candidate view.

``render_candidate`` is what ``muse candidate show`` prints: the text, version, state, the
report with each finding located in the text, the context summary, the decisions and the diff
against the previous version.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import typer

from muse.cli.common import get_engine
from muse.cli.options import JsonOption
from muse.cli.output import console, emit, escape, fail, local_time, print_prose
from muse.cli.write_display import render_gaps
from muse.core.errors import InvalidInput
from muse.flow import (
    DecisionOutcome,
    candidate_view,
    discard_candidate,
    edit_candidate,
    run_label,
    version_diff,
)
from muse.store.engine import reading

CommandIdOption = typer.Option(None, "--command-id", help="幂等键；重复提交只生效一次")
ActorOption = typer.Option(None, "--actor", help="决定人；默认是当前系统用户")


def discard(
    candidate_id: str = typer.Argument(..., help="候选 ID"),
    command_id: str = CommandIdOption,
    actor: str = ActorOption,
    json_out: bool = JsonOption,
) -> None:
    """丢弃候选：正式正文不变，候选标记为已丢弃并留在库内可查。"""
    outcome = discard_candidate(get_engine(), candidate_id, command_id=command_id, actor=actor)
    emit(outcome.__dict__, json_out, lambda _: _render_outcome(outcome))


def edit(
    candidate_id: str = typer.Argument(..., help="要修改的候选 ID（须已通过检测）"),
    file: Path = typer.Option(None, "--file", "-f", help="修改后的正文文件；省略则打开 $EDITOR"),
    expected_revision: int = typer.Option(
        None, "--expected-revision", help="修改所依据的正式正文修订版（默认：运行开始时的修订版）"
    ),
    command_id: str = CommandIdOption,
    actor: str = ActorOption,
    json_out: bool = JsonOption,
) -> None:
    """修改后合并：你的修改成为新版本候选，重新检测后才能采纳。"""
    text = _read_edit(candidate_id, file)
    outcome = edit_candidate(
        get_engine(),
        candidate_id,
        text,
        expected_revision=expected_revision,
        command_id=command_id,
        actor=actor,
    )
    emit(outcome.__dict__, json_out, lambda _: _render_outcome(outcome))
    if outcome.state != "PASSED":
        raise typer.Exit(1)


def _read_edit(candidate_id: str, file: Path | None) -> str:
    if file is not None:
        try:
            return file.read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as err:
            fail(InvalidInput(f"读不了文件 {file}：{err}", hint="正文文件须为 UTF-8 文本。"))
    with reading(get_engine()) as conn:
        body = candidate_view(conn, candidate_id)["body"]
    edited = edit_in_editor(body)
    if edited is None:
        fail(InvalidInput("编辑器里没有任何修改，已取消。"))
    return edited


def edit_in_editor(text: str) -> str | None:
    """Open ``text`` in $VISUAL / $EDITOR (default vi); the edited text, or None if unchanged."""
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    with tempfile.TemporaryDirectory(prefix="muse-edit-") as folder:
        path = Path(folder) / "candidate.txt"
        path.write_text(text, encoding="utf-8")
        try:
            done = subprocess.run([*shlex.split(editor), str(path)], check=False)
        except OSError as err:
            fail(
                InvalidInput(f"无法启动编辑器 {editor}：{err}", hint="设置 $EDITOR，或用 --file。")
            )
        if done.returncode != 0:
            fail(InvalidInput(f"编辑器 {editor} 以状态 {done.returncode} 退出，已取消。"))
        edited = path.read_text(encoding="utf-8-sig")
    return None if edited == text else edited


def diff(
    candidate_id: str = typer.Argument(..., help="候选 ID"),
    against: int = typer.Option(None, "--against", help="对比的版本号（默认：上一版）"),
    json_out: bool = JsonOption,
) -> None:
    """显示候选与同一运行中另一版本的逐句、逐字差异。"""
    with reading(get_engine()) as conn:
        data = version_diff(conn, candidate_id, against)
    emit(data, json_out, render_diff, escaped=False)


def _render_outcome(o: DecisionOutcome) -> None:
    good = o.state in ("DISCARDED", "PASSED")
    repeated = "（重复提交，未再次执行）" if o.repeated else ""
    colour = "green" if good else "red"
    console.print(f"[{colour}]{escape(o.message)}[/]{repeated}", highlight=False)
    if o.run_state:
        console.print(f"运行状态：{run_label(o.run_state)}", highlight=False)
    for f in o.findings:
        console.print(f"  [{f['severity']}] {f['kind']}：{f['message']}", markup=False)
    if o.new_candidate_id:
        console.print(f"查看：muse candidate show {o.new_candidate_id}", highlight=False)


def render_diff(d: dict[str, Any]) -> None:
    if d["identical"]:
        console.print(f"v{d['version']} 与 v{d['againstVersion']} 内容相同。")
        return
    console.print(
        f"v{d['againstVersion']} → v{d['version']}：删去 {d['deletedChars']} 字，"
        f"新增 {d['insertedChars']} 字，{len(d['changes'])} 处改动。",
        highlight=False,
    )
    styles = {"-": "red", "+": "green", "~": "yellow", "@": "cyan"}
    for line in d["unified"].splitlines():
        style = styles.get(line[:1]) if not line.startswith(("---", "+++")) else "bold"
        console.print(line, style=style, markup=False, highlight=False)


def render_candidate(d: dict[str, Any]) -> None:
    console.print(
        f"候选 {d['id']} · 第 {d['chapter']} 章 · v{d['version']} · {d['stateLabel']}（{d['state']}）"
        f" · {d['hanCount']} 汉字 · {d['sha256'][:12]} · 来源 {d['attribution']}",
        markup=False,
        highlight=False,
    )
    others = [f"v{v['version']} {v['state']}" for v in d["versions"] if v["id"] != d["id"]]
    if others:
        console.print("同一运行的其他版本：" + "，".join(others), markup=False, highlight=False)
    _render_report(d)
    _render_context(d["context"])
    for dec in d["decisions"]:
        console.print(
            f"决定：{dec['kind']} · {dec['outcome']} · {dec['actor']} · {local_time(dec['at'])}",
            markup=False,
            highlight=False,
        )
    _render_judgements(d.get("judgements") or [])
    console.rule("正文")
    print_prose(d["body"])
    if d["diff"]:
        console.rule("与上一版的差异")
        render_diff(d["diff"])


def _render_judgements(items: list[dict[str, Any]]) -> None:
    """Stored on-demand judgements: informative only, they never block or move a state."""
    if not items:
        return
    from muse.cli.evaluation import _render_judgement

    console.print(f"按需质量评审 {len(items)} 次（仅供参考，不阻断、不改变状态）：")
    for item in items:
        _render_judgement(item)


def _render_report(d: dict[str, Any]) -> None:
    report = d["report"] or {}
    mech = (report.get("mechanical") or {}).get("status", "未检测")
    sem = (report.get("semantic") or {}).get("status", "未检测")
    console.print(f"机械门：{mech}；语义检测：{sem}", markup=False, highlight=False)
    for f in d["findings"]:
        loc = f["location"]
        where = (
            f"第 {loc['line']} 行第 {loc['column'] + 1} 字 [{loc['start']}, {loc['end']})"
            if loc
            else "未定位"
        )
        console.print(f"  [{f['severity']}] {f['kind']}（{where}）：{f['message']}", markup=False)
        if loc:
            console.print(f"      「{loc['text']}」", markup=False, highlight=False)
    semantic = report.get("semantic") or {}
    render_gaps(report.get("evidenceGaps", []), semantic.get("newSettingCandidates", []))


def _render_context(c: dict[str, Any]) -> None:
    if c.get("missing"):
        console.print(f"上下文快照 {c['snapshotId']} 不存在。")
        return
    console.print(
        f"写作依据：上下文快照 {c['snapshotId']} · sha256 {c['sha256'][:12]} · 冻结点第 {c['asOf']} 章"
        f" · {len(c['sources'])} 个来源，{len(c['omitted'])} 个被排除",
        markup=False,
        highlight=False,
    )
    for s in c["sources"]:
        chapter = f"第 {s['chapter']} 章 " if s["chapter"] is not None else ""
        console.print(f"  + {s['kind']} {chapter}{s['sourceId']}：{s['reason']}", markup=False)
    for o in c["omitted"]:
        console.print(f"  - {o['kind']} {o['sourceId']}：{o['reason']}", markup=False)


def candidate_show_data(candidate_id: str) -> dict[str, Any]:
    """The data ``muse candidate show`` prints (the hook for ``cli/writing.py``)."""
    from muse.evaluation import candidate_judgements_of

    engine = get_engine()
    with reading(engine) as conn:
        view = candidate_view(conn, candidate_id)
    # the on-demand judgements stored with the candidate (muse candidate judge; spec 000 §3.1)
    view["judgements"] = candidate_judgements_of(engine, candidate_id)
    return view


def register(app: typer.Typer, candidate_app: typer.Typer) -> None:
    app.command("discard")(discard)
    candidate_app.command("edit")(edit)
    candidate_app.command("diff")(diff)
