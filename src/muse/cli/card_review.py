"""``muse drafts / conflicts / facts``: what waits for the author's decision.

Drafts become cards, conflicts are resolved (keep / replace / merge) and fact deltas enter the fact
ledger only here, by the author's hand. Every list command takes ``--json``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

from muse.cli.cards import JsonOpt, WorkOpt, work_session
from muse.cli.output import console, emit, escape, fail, print_table
from muse.core.errors import InvalidInput
from muse.knowledge import (
    FACT_TYPE_LABELS,
    RESOLUTION_LABELS,
    approve_fact_delta,
    card_type,
    confirm_all,
    confirm_draft,
    confirm_groups,
    fact_ledger_entries,
    group_drafts,
    list_conflicts,
    list_drafts,
    list_fact_deltas,
    merge_drafts,
    reject_draft,
    reject_fact_delta,
    reject_groups,
    resolve_conflict,
    select_groups,
)

if TYPE_CHECKING:
    from sqlalchemy import Connection

    from muse.knowledge import DraftGroup

drafts_app = typer.Typer(help="待确认的卡片草稿：确认后才成为正式卡。", invoke_without_command=True)
conflicts_app = typer.Typer(help="草稿与正式卡的冲突队列。", invoke_without_command=True)
facts_app = typer.Typer(help="事实增量（待批准）与事实台账。", invoke_without_command=True)


# --- drafts --------------------------------------------------------------------------------


TypeOpt = typer.Option(None, "--type", "-t", help="只看某类（如 character 或 人物）")
MinMentionsOpt = typer.Option(
    None, "--min-mentions", min=1, help="只看拆书发现出现至少这么多次的实体"
)


@drafts_app.callback()
def drafts(
    ctx: typer.Context,
    work: str | None = WorkOpt,
    show_all: bool = typer.Option(False, "--all", help="包括已处理的草稿"),
    grouped: bool = typer.Option(False, "--group", "-g", help="按实体分组，附出现次数与原文证据"),
    type_key: str | None = TypeOpt,
    min_mentions: int | None = MinMentionsOpt,
    as_json: bool = JsonOpt,
) -> None:
    """列出待确认的草稿（--group 按实体分组，可按 --type / --min-mentions 筛选）。"""
    if ctx.invoked_subcommand is not None:
        return
    if grouped or type_key or min_mentions:
        _list_groups(work, type_key, min_mentions, as_json)
        return
    with work_session(work) as (conn, work_id):
        items = list_drafts(conn, work_id, status=None if show_all else "pending")

    def render(_: object) -> None:
        rows = [
            (
                d.id,
                d.name,
                card_type(d.type).label,
                d.origin,
                "更新" if d.target_card_id else "新卡",
                d.open_conflicts,
                d.status,
            )
            for d in items
        ]
        print_table(f"草稿（{len(items)}）", "ID 名称 类型 来源 性质 冲突 状态", rows)

    emit([d.model_dump(mode="json") for d in items], as_json, render)


def _selected(
    conn: Connection, work_id: int, type_key: str | None, min_mentions: int | None
) -> list[DraftGroup]:
    return select_groups(group_drafts(conn, work_id), type_key=type_key, min_mentions=min_mentions)


def _list_groups(
    work: str | None, type_key: str | None, min_mentions: int | None, as_json: bool
) -> None:
    with work_session(work) as (conn, work_id):
        groups = _selected(conn, work_id, type_key, min_mentions)

    def render(_: object) -> None:
        rows = [
            (
                escape(g.name),
                card_type(g.type).label,
                g.mentions if g.mentions is not None else "—",
                f"第{g.first_chapter}章" if g.first_chapter else "—",
                len(g.drafts),
                g.open_conflicts,
                escape("、".join(g.aliases)) or "—",
                escape(_short(g.quotes[0]["quote"])) if g.quotes else "—",
                " ".join(d.id for d in g.drafts),
            )
            for g in groups
        ]
        title = f"草稿（按实体分组，{len(groups)} 组）"
        print_table(title, "名称 类型 出现次数 首次出现 草稿 冲突 别名 证据 草稿ID", rows)

    emit([g.to_json() for g in groups], as_json, render)


def _short(text: str, limit: int = 30) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


@drafts_app.command("confirm")
def drafts_confirm(
    ids: list[str] = typer.Argument(None, help="草稿 ID（可多个）"),
    confirm_every: bool = typer.Option(False, "--all", help="确认所有没有冲突的草稿"),
    type_key: str | None = TypeOpt,
    min_mentions: int | None = MinMentionsOpt,
    work: str | None = WorkOpt,
    as_json: bool = JsonOpt,
) -> None:
    """确认草稿：新卡成为正式卡，更新合并进正式卡；有冲突的先处理冲突。

    批量：--type character --min-mentions 20 确认这类实体中出现至少 20 次的全部草稿。"""
    selecting = bool(type_key or min_mentions)
    if sum([bool(ids), confirm_every, selecting]) != 1:
        fail(
            InvalidInput(
                "请给出草稿 ID，或用 --all 确认所有没有冲突的草稿，"
                "或用 --type / --min-mentions 批量确认（三者择一）。"
            )
        )
    with work_session(work) as (conn, work_id):
        if selecting:
            outcomes = confirm_groups(conn, _selected(conn, work_id, type_key, min_mentions))
        elif confirm_every:
            outcomes = confirm_all(conn, work_id)
        else:
            outcomes = [confirm_draft(conn, i) for i in ids]

    def render(_: object) -> None:
        for o in outcomes:
            if o.status == "conflict":
                console.print(
                    f"[yellow]未确认[/]：{o.name} 出现 {len(o.conflicts)} 个新冲突，见 muse conflicts。"
                )
            else:
                console.print(f"已确认：{o.name}（{o.card_id}）")

    emit([o.model_dump(mode="json") for o in outcomes], as_json, render)


@drafts_app.command("reject")
def drafts_reject(
    draft_id: str | None = typer.Argument(None),
    type_key: str | None = TypeOpt,
    min_mentions: int | None = MinMentionsOpt,
    note: str | None = typer.Option(None, "--note", help="理由"),
    work: str | None = WorkOpt,
    as_json: bool = JsonOpt,
) -> None:
    """驳回草稿（或用 --type / --min-mentions 批量驳回）；它们的未决冲突一并撤销。"""
    selecting = bool(type_key or min_mentions)
    if bool(draft_id) == selecting:
        fail(InvalidInput("请给出一个草稿 ID，或用 --type / --min-mentions 批量驳回（二者择一）。"))
    with work_session(work) as (conn, work_id):
        if selecting:
            outcomes = reject_groups(
                conn, _selected(conn, work_id, type_key, min_mentions), note=note
            )
        else:
            outcomes = [reject_draft(conn, draft_id or "", note=note)]

    def render(_: object) -> None:
        for o in outcomes:
            console.print(f"已驳回：{escape(o.name)}")
        if not outcomes:
            console.print("没有符合条件的草稿。")

    data = [o.model_dump(mode="json") for o in outcomes]
    emit(data if selecting else data[0], as_json, render)


@drafts_app.command("merge")
def drafts_merge(
    keep: str = typer.Argument(..., help="保留的草稿 ID"),
    other: str = typer.Argument(..., help="并入的草稿 ID：它的名称成为保留草稿的别名"),
    work: str | None = WorkOpt,
    as_json: bool = JsonOpt,
) -> None:
    """把两张草稿合并为同一实体：后者的名称与别名成为前者的别名，后者驳回（附去向）。"""
    with work_session(work) as (conn, work_id):
        outcome = merge_drafts(conn, work_id, keep, other)
    emit(
        outcome.model_dump(mode="json"),
        as_json,
        lambda _: console.print(f"已合并：草稿 {other} 并入「{escape(outcome.name)}」（{keep}）"),
    )


# --- conflicts -----------------------------------------------------------------------------


@conflicts_app.callback()
def conflicts(
    ctx: typer.Context,
    work: str | None = WorkOpt,
    show_all: bool = typer.Option(False, "--all", help="包括已处理的冲突"),
    as_json: bool = JsonOpt,
) -> None:
    """列出草稿与正式卡之间待处理的冲突。"""
    if ctx.invoked_subcommand is not None:
        return
    with work_session(work) as (conn, work_id):
        items = list_conflicts(conn, work_id, status=None if show_all else "open")

    def render(_: object) -> None:
        rows = [
            (
                c.id,
                c.card_name,
                c.subject_label,
                _side(c.confirmed_side),
                _side(c.draft_side),
                RESOLUTION_LABELS.get(c.resolution or "", c.status),
            )
            for c in items
        ]
        print_table(f"冲突（{len(items)}）", "ID 卡片 冲突项 正式卡 草稿 状态", rows)

    emit([c.model_dump(mode="json") for c in items], as_json, render)


def _side(side: dict[str, Any]) -> str:
    if "relations" in side:
        return "；".join(f"{r['kind']}→{r['target']}" for r in side["relations"])
    if "milestones" in side:
        return "；".join(f"第 {m['chapter']} 章登场" for m in side["milestones"])
    value = side.get("value")
    if value is None and side.get("doubt"):
        value = f"存疑：{side['doubt']}"
    shown = "、".join(map(str, value)) if isinstance(value, list) else str(value)
    chapters = "、".join(str(r["chapter"]) for r in side.get("refs") or [])
    return shown + (f"（出处：第 {chapters} 章）" if chapters else "")


@conflicts_app.command("resolve")
def conflicts_resolve(
    conflict_id: str = typer.Argument(...),
    keep: bool = typer.Option(False, "--keep", help="保留正式卡的内容"),
    replace: bool = typer.Option(False, "--replace", help="采用草稿的内容"),
    merge: bool = typer.Option(False, "--merge", help="两边合并"),
    value: str | None = typer.Option(None, "--value", help="合并后的文字（仅 --merge）"),
    work: str | None = WorkOpt,
    as_json: bool = JsonOpt,
) -> None:
    """处理一个冲突：--keep、--replace 或 --merge 三选一。"""
    chosen = [name for name, on in (("keep", keep), ("replace", replace), ("merge", merge)) if on]
    if len(chosen) != 1:
        fail(InvalidInput("请在 --keep、--replace、--merge 中选且只选一个。"))
    with work_session(work) as (conn, _):
        result = resolve_conflict(conn, conflict_id, chosen[0], value=value)  # type: ignore[arg-type]
    emit(
        result.model_dump(mode="json"),
        as_json,
        lambda _: console.print(
            f"已处理：{result.card_name} 的{result.subject_label}（{RESOLUTION_LABELS[chosen[0]]}）"
        ),
    )


# --- facts ---------------------------------------------------------------------------------


@facts_app.callback()
def facts(
    ctx: typer.Context,
    work: str | None = WorkOpt,
    status: str | None = typer.Option(
        "proposed", "--status", help="proposed / approved / rejected / all"
    ),
    as_of: int | None = typer.Option(None, "--as-of", help="事实台账只看到第 N 章"),
    as_json: bool = JsonOpt,
) -> None:
    """列出待批准的事实增量和事实台账。"""
    if ctx.invoked_subcommand is not None:
        return
    with work_session(work) as (conn, work_id):
        deltas = list_fact_deltas(conn, work_id, status=None if status == "all" else status)
        ledger_entries = fact_ledger_entries(conn, work_id, as_of=as_of)
    data = {
        "deltas": [d.model_dump(mode="json") for d in deltas],
        "ledger": [e.model_dump(mode="json") for e in ledger_entries],
    }

    def render(_: object) -> None:
        rows = [
            (
                d.id,
                d.chapter,
                FACT_TYPE_LABELS[d.type],
                d.subject,
                _payload(d.payload),
                d.evidence_quote,
                d.status + ("（引文已失效）" if d.evidence_stale else ""),
            )
            for d in deltas
        ]
        print_table(f"事实增量（{len(deltas)}）", "ID 章 类型 主体 内容 引文 状态", rows)
        entries = [
            (e.chapter, FACT_TYPE_LABELS[e.type], e.subject, _payload(e.payload))
            for e in ledger_entries
        ]
        print_table(f"事实台账（{len(ledger_entries)}）", "章 类型 主体 内容", entries)

    emit(data, as_json, render)


def _payload(payload: dict[str, Any]) -> str:
    return "；".join(str(v) for v in payload.values() if v)


@facts_app.command("approve")
def facts_approve(
    delta_id: str = typer.Argument(...), work: str | None = WorkOpt, as_json: bool = JsonOpt
) -> None:
    """批准一条事实增量，写入事实台账。"""
    with work_session(work) as (conn, _):
        entry = approve_fact_delta(conn, delta_id)
    emit(
        entry.model_dump(mode="json"),
        as_json,
        lambda _: console.print(f"已入账：第 {entry.chapter} 章 {entry.subject}"),
    )


@facts_app.command("reject")
def facts_reject(
    delta_id: str = typer.Argument(...),
    note: str | None = typer.Option(None, "--note"),
    work: str | None = WorkOpt,
    as_json: bool = JsonOpt,
) -> None:
    """驳回一条事实增量。"""
    with work_session(work) as (conn, _):
        delta = reject_fact_delta(conn, delta_id, note=note)
    emit(delta.model_dump(mode="json"), as_json, lambda _: console.print(f"已驳回：{delta.id}"))


def register(app: typer.Typer) -> None:
    app.add_typer(drafts_app, name="drafts")
    app.add_typer(conflicts_app, name="conflicts")
    app.add_typer(facts_app, name="facts")
