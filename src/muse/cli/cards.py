"""``muse cards / card`` (and, via :mod:`muse.cli.card_review`, ``drafts / conflicts / facts``):
the author's view of the book's memory.

Commands only parse options, call the knowledge services in one transaction and print; every
list and show command takes ``--json``. :func:`register` mounts the five nouns on ``muse``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from sqlalchemy import Connection

from muse.cli.common import get_engine, read_yaml_text
from muse.cli.options import JsonOption, WorkOption
from muse.cli.output import console, emit, fail, print_table
from muse.core.errors import InvalidInput, MuseError, NotFound
from muse.knowledge import (
    BookTerms,
    Card,
    CardStatus,
    StateAsOf,
    alias_collisions,
    card_type,
    debut_of,
    export_cards_yaml,
    find_card,
    import_cards_yaml,
    load_cards,
    setting_ledger,
    state_as_of,
)
from muse.works import resolve_work

if TYPE_CHECKING:
    from muse.knowledge import CardField
    from muse.knowledge import ImportReport as CardImportReport

cards_app = typer.Typer(help="知识卡：导入、导出、列表、设定台账。", no_args_is_help=True)
card_app = typer.Typer(help="查看一张知识卡（可按冻结点查看）。", no_args_is_help=True)

OUTCOME_LABELS = {
    "new": "新草稿",
    "update": "更新草稿",
    "confirmed": "已确认",
    "unchanged": "无变化",
    "duplicate": "已有相同草稿",
    "conflict": "有冲突",
    "rejected": "已驳回",
}
EXCLUSION_KINDS = {
    "card": "卡片",
    "milestone": "演变",
    "field": "字段",
    "alias": "别名",
    "relation": "关系",
    "ref": "出处",
    "plan": "规划",
}

WorkOpt = WorkOption
JsonOpt = JsonOption


@contextmanager
def work_session(work: str | None) -> Iterator[tuple[Connection, int]]:
    """One transaction; any Muse error is printed in Chinese and exits 1 (nothing written)."""
    try:
        with get_engine().begin() as conn:
            yield conn, resolve_work(conn, work)
    except MuseError as err:
        fail(err)


def field_value(value: CardField) -> str:
    if value.doubt is not None:
        return f"[yellow]存疑：{value.doubt}[/]"
    return "、".join(value.value) if isinstance(value.value, list) else str(value.value)


# --- cards ---------------------------------------------------------------------------------


@cards_app.command("import")
def import_(
    file: Path = typer.Argument(..., exists=True, dir_okay=False, help="卡片 YAML 文件"),
    work: str | None = WorkOpt,
    confirm: bool = typer.Option(
        False, "--confirm", help="这是作者本人的设定文件：导入即确认（冲突仍进队列）。"
    ),
    as_json: bool = JsonOpt,
) -> None:
    """导入卡片 YAML：每张卡先成为草稿；任何一处错误都不会写入。"""
    with work_session(work) as (conn, work_id):
        report = import_cards_yaml(
            conn, work_id, read_yaml_text(file), filename=file.name, confirm=confirm
        )

    def render(r: CardImportReport) -> None:
        for o in r.outcomes:
            extra = f"，{len(o.conflicts)} 个冲突待处理" if o.conflicts else ""
            label = OUTCOME_LABELS.get(o.status, o.status)
            console.print(f"  {label}：{o.name} {o.draft_id or ''}{extra}")
        for warning in r.warnings:
            console.print(f"  [yellow]提示：[/]{warning}")
        console.print(f"已导入 {len(r.outcomes)} 张卡片（{r.filename}）。")
        if any(o.status in ("new", "update") for o in r.outcomes):
            console.print("用 muse drafts 查看草稿，muse drafts confirm ID 确认。")

    emit(report.model_dump(mode="json"), as_json, lambda _: render(report))


@cards_app.command("export")
def export(
    file: Path | None = typer.Argument(None, help="写入的文件；省略则打印"),
    work: str | None = WorkOpt,
) -> None:
    """导出全部正式卡为 YAML（可再导入）。"""
    with work_session(work) as (conn, work_id):
        text = export_cards_yaml(conn, work_id)
    if file is None:
        typer.echo(text, nl=False)
    else:
        file.write_text(text, encoding="utf-8")
        console.print(f"已导出到 {file}。")


@cards_app.command("list")
def list_(
    card_type_key: str | None = typer.Option(
        None, "--type", "-t", help="只看某类（如 character 或 人物）"
    ),
    status: CardStatus = typer.Option(CardStatus.confirmed, "--status", help="confirmed 或 draft"),
    work: str | None = WorkOpt,
    as_json: bool = JsonOpt,
) -> None:
    """列出知识卡。"""
    with work_session(work) as (conn, work_id):
        cards = load_cards(conn, work_id, statuses=[status], card_type_key=card_type_key)
        collisions = alias_collisions(conn, work_id)
    data = {
        "cards": [c.model_dump(mode="json") for c in cards],
        "alias_collisions": [c.model_dump(mode="json") for c in collisions],
    }

    def render(_: object) -> None:
        rows = [
            (
                c.id,
                card_type(c.type).label,
                c.name,
                "、".join(a.name for a in c.aliases),
                debut_of(c).chapter or "—",
                len(c.milestones),
            )
            for c in cards
        ]
        print_table(f"知识卡（{len(cards)}）", "ID 类型 名称 别名 登场 里程碑", rows)
        for collision in collisions:
            console.print(f"[yellow]别名冲突：[/]{collision.message()}")

    emit(data, as_json, render)


@cards_app.command("ledger")
def ledger(
    upto: int | None = typer.Option(None, "--upto", help="只统计到第几章"),
    work: str | None = WorkOpt,
    as_json: bool = JsonOpt,
) -> None:
    """设定台账：每张卡在哪些章出现，哪些卡从未被用到，哪些弧线没有收口。"""
    with work_session(work) as (conn, work_id):
        report = setting_ledger(conn, work_id, upto=upto)

    def render(_: object) -> None:
        rows = [
            (
                r.name,
                card_type(r.type).label,
                len(r.mentions),
                r.total,
                "、".join(str(n) for n in r.mentions) or "[yellow]从未出现[/]",
            )
            for r in report.rows
        ]
        print_table(
            f"设定台账（{len(report.chapters)} 章）", "名称 类型 出现章数 提及次数 章节", rows
        )
        for arc in report.unclosed:
            console.print(f"[yellow]未收口：[/]{arc.name}：{' '.join(arc.problems)}")

    emit(report.model_dump(mode="json"), as_json, render)


# --- card show -----------------------------------------------------------------------------


@card_app.command("show")
def show(
    name: str = typer.Argument(..., help="卡片名称、别名或 ID"),
    as_of: int | None = typer.Option(None, "--as-of", help="冻结点：只看第 N 章结束时已知的内容"),
    card_type_key: str | None = typer.Option(None, "--type", "-t", help="同名时指定类型"),
    work: str | None = WorkOpt,
    as_json: bool = JsonOpt,
) -> None:
    """查看一张卡；--as-of N 时显示第 N 章结束时的状态，以及被排除的内容和原因。"""
    if as_of is not None and as_of < 0:
        fail(InvalidInput("--as-of 不能是负数。"))
    with work_session(work) as (conn, work_id):
        try:
            card = find_card(conn, work_id, name, card_type_key=card_type_key)
        except NotFound:  # not a card yet: perhaps a draft
            card = find_card(
                conn, work_id, name, card_type_key=card_type_key, statuses=[CardStatus.draft]
            )
        state = None
        if as_of is not None:
            book = [c for c in load_cards(conn, work_id) if c.id != card.id] + [card]
            state = state_as_of(card, as_of, book=BookTerms.of(book))
    if state is not None:
        emit(state.model_dump(mode="json"), as_json, lambda _: _render_state(card, state))
    else:
        emit(card.model_dump(mode="json"), as_json, lambda _: _render_card(card))


def _render_card(card: Card) -> None:
    kind = card_type(card.type)
    console.print(f"[bold]{card.name}[/]（{kind.label}，{card.status.value}，{card.id}）")
    if card.aliases:
        console.print(
            "别名："
            + "、".join(
                a.name + (f"（第 {a.since_chapter} 章起）" if a.since_chapter else "")
                for a in card.aliases
            )
        )
    for key, value in card.fields.items():
        since = f" [dim]第 {value.since_chapter} 章起[/]" if value.since_chapter else ""
        refs = f" [dim]出处 {len(value.refs)}[/]" if value.refs else ""
        console.print(f"  {kind.label_of(key)}：{field_value(value)}{since}{refs}")
    for r in card.relations:
        console.print(
            f"  关系：{r.kind} → {r.target}"
            + (f"（第 {r.since_chapter} 章起）" if r.since_chapter else "")
        )
    for m in card.milestones:
        where = (
            f"第 {m.chapter} 章" if m.chapter else f"[red]章号不明（{m.chapter_note or '未写'}）[/]"
        )
        console.print(f"  演变：{where} {m.cycle.value} {m.step} {m.description}".rstrip())
    for s in card.growth_arc:
        console.print(
            f"  [dim]成长弧线（规划）：{s.chapter or '?'} {s.cycle.value} {s.step} {s.description}[/]"
        )
    if card.ending_direction:
        console.print(f"  [dim]结局方向（规划）：{card.ending_direction}[/]")
    if card.end_state:
        console.print(f"  [dim]全书终态（规划）：{card.end_state}[/]")


def _render_state(card: Card, result: StateAsOf) -> None:
    console.print(f"[bold]{card.name}[/]：第 {result.as_of} 章结束时的状态")
    state = result.state
    if state is None:
        console.print("  [yellow]此时尚不存在。[/]")
    else:
        kind = card_type(state.type)
        if state.aliases:
            console.print("  别名：" + "、".join(state.aliases))
        for key, value in state.fields.items():
            console.print(f"  {kind.label_of(key)}：{field_value(value)}")
        for r in state.relations:
            console.print(f"  关系：{r.kind} → {r.target}")
        for m in state.milestones:
            console.print(f"  第 {m.chapter} 章 {m.cycle.value} {m.step} {m.description}".rstrip())
        if state.step:
            console.print(f"  当前台阶：{state.step}（{state.cycle.value if state.cycle else ''}）")
    rows = [(EXCLUSION_KINDS.get(x.kind, x.kind), x.item, x.message) for x in result.excluded]
    if rows:
        print_table("被排除的内容（不会进入写作上下文）", "类别 内容 原因", rows)


def register(app: typer.Typer) -> None:
    app.add_typer(cards_app, name="cards")
    app.add_typer(card_app, name="card")
    from muse.cli import (
        book_extract,  # noqa: F401  (mounts ``cards extract`` on cards_app)
        card_review,  # it builds on this module's helpers
        discovery,  # noqa: F401  (mounts ``cards discover`` on cards_app)
    )

    card_review.register(app)
