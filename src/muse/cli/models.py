"""``muse models``: which model providers exist and whether a model is reachable.

Commands only print; the knowledge of providers, keys and policies lives in ``muse.agents``.
Key values are never printed: only where a key would come from.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

import typer

from muse.agents import (
    SOURCE_LABELS,
    CheckResult,
    ProviderStatus,
    approve_model,
    check_model,
    choose_model,
    current_policies,
    load_roles,
    merge_approvals,
    provider_statuses,
    stored_approvals,
    work_choices,
)
from muse.cli.common import get_engine, ready_engine, work_id_for
from muse.cli.options import JsonOption, WorkOption
from muse.cli.output import console, emit, fail, local_time, new_table
from muse.core.errors import MuseError

models_app = typer.Typer(
    help="模型：提供方、模型策略、核准新模型、为作品选定各角色的模型、检查连通性。",
    no_args_is_help=True,
)

_KEY_SOURCE = {
    "env": "已配置（环境变量）",
    "config": "已配置（配置文件）",
    "missing": "未配置",
    "not_needed": "无需密钥",
    "error": "配置有误",
}


def _policies() -> list[dict[str, Any]]:
    """The versions in force per role: built-in ones merged with the author's approvals."""
    with ready_engine().connect() as conn:
        return current_policies(conn)


def _render_list(data: dict[str, Any]) -> None:
    table = new_table(title="模型提供方")
    for column in ("名称", "说明", "服务地址", "密钥", "结构化输出"):
        table.add_column(column)
    for p in data["providers"]:
        key = _KEY_SOURCE.get(p["key_source"], p["key_source"])
        if p["key_env"] and p["key_source"] in ("missing", "env"):
            key += f"：{p['key_env']}"
        name = p["name"] + (f"（{'、'.join(p['aliases'])}）" if p["aliases"] else "")
        table.add_row(name, p["label"], p["base_url"] or "—", key, p["output_mode"] or "—")
    console.print(table)
    for p in data["providers"]:
        if p["problem"]:
            console.print(f"[yellow]{p['name']}：{p['problem']}[/]")
    roles = new_table(title="角色模型策略（当前版本）")
    for column in ("角色", "策略", "允许的模型"):
        roles.add_column(column)
    for r in data["policies"]:
        allowed = "、".join(r["models"] + [f"{p}（通配）" for p in r["patterns"]])
        name = r["role"] + (f"（≡{'、'.join(r['aliases'])}）" if r["aliases"] else "")
        roles.add_row(f"{name} {r['displayName']}", f"{r['policy']}@{r['policyVersion']}", allowed)
    console.print(roles)
    console.print(
        "每次调用都用明确的提供方与模型：命令行 --provider/--model，或先 muse models use 为作品选定；"
        "不联网试用：--provider offline --model offline-1",
        markup=False,
    )


@models_app.command("list")
def list_models(as_json: bool = typer.Option(False, "--json", help="以 JSON 输出")) -> None:
    """列出提供方、预设、密钥是否已配置（不显示密钥本身）与各角色允许的模型。"""
    try:
        providers: list[ProviderStatus] = provider_statuses()
        data = {"providers": [asdict(p) for p in providers], "policies": _policies()}
    except MuseError as err:
        fail(err)
    emit(data, as_json, _render_list)


def _render_check(result: dict[str, Any]) -> None:
    console.print(f"提供方：{result['provider']}　请求模型：{result['model_requested']}")
    console.print(f"服务端报告的模型：{result['model_returned'] or '（空）'}")
    if result["matches"]:
        console.print("[green]模型一致。[/]")
    else:
        console.print(
            "[yellow]服务端报告的模型与请求的不一致：正式调用会因此被拒绝，"
            "除非新的策略版本登记了这个别名。[/]"
        )
    console.print(
        f"耗时 {result['latency_ms']} 毫秒，输入 {result['tokens_in']} / 输出 {result['tokens_out']} tokens"
    )
    roles = result["allowed_roles"]
    if roles:
        console.print(f"当前策略允许该模型用于：{'、'.join(roles)}")
    else:
        console.print("[yellow]当前没有任何角色的模型策略允许该模型。[/]")


@models_app.command("check")
def check(
    provider: str = typer.Option(..., "--provider", help="提供方名称，如 deepseek、qwen、offline"),
    model: str = typer.Option(..., "--model", help="模型 ID，如 deepseek-chat"),
    timeout: float = typer.Option(60.0, "--timeout", help="超时秒数"),
    as_json: bool = typer.Option(False, "--json", help="以 JSON 输出"),
) -> None:
    """向提供方发一次极小的真实请求，检查密钥、地址与模型 ID 是否正常。"""
    try:
        with ready_engine().connect() as conn:
            catalog = merge_approvals(load_roles(), stored_approvals(conn))
        result: CheckResult = check_model(provider, model, timeout_s=timeout, catalog=catalog)
    except MuseError as err:
        fail(err)
    emit(asdict(result), as_json, _render_check)


def _render_policy(rows: list[dict[str, Any]]) -> None:
    for r in rows:
        source = "内置"
        if r["approval"]:
            a = r["approval"]
            added = "、".join(f"{x['provider']}:{x['model']}" for x in a["added"])
            source = (
                f"作者核准：{a['approvedBy']}，{local_time(a['approvedAt'])}，"
                f"基于 {a['baseVersion']}，新增 {added}"
            )
        console.print(
            f"[bold]{r['role']} {r['displayName']}[/]　{r['policy']}@{r['policyVersion']}（{source}）"
        )
        allowed = "、".join(r["models"] + [f"{p}（通配）" for p in r["patterns"]])
        console.print(f"  允许：{allowed}")


@models_app.command("policy")
def policy(as_json: bool = JsonOption) -> None:
    """显示各角色现行的模型策略版本：内置的，或你用 muse models approve 核准的。"""
    try:
        rows = _policies()
    except MuseError as err:
        fail(err)
    emit(rows, as_json, _render_policy)


@models_app.command("approve")
def approve(
    role: str = typer.Option(
        ..., "--role", help="角色：writer、planner、extractor、detector、judge"
    ),
    provider: str = typer.Option(..., "--provider", help="模型所在的提供方，如 ollama、my-vllm"),
    model: list[str] = typer.Option(
        ..., "--model", help="完整的模型 ID，如 qwen2.5:7b（可重复；不接受通配符）"
    ),
    as_json: bool = JsonOption,
) -> None:
    """核准新模型：为角色记录一个新的、不可更改的模型策略版本（谁、何时、哪些模型 ID）。"""
    try:
        approval = approve_model(get_engine(), role=role, provider=provider, models=model)
    except MuseError as err:
        fail(err)
    emit(approval.to_dict(), as_json, _render_approval)


def _render_approval(a: dict[str, Any]) -> None:
    added = "、".join(f"{x['provider']}:{x['model']}" for x in a["added"])
    console.print(
        f"已为角色 {a['role']} 记录新的模型策略版本 {a['policy']}@{a['version']}"
        f"（基于 {a['baseVersion']}）：新增 {added}。",
        highlight=False,
    )
    console.print(
        f"核准人 {a['approvedBy']}，时间 {local_time(a['approvedAt'])}；"
        "此前冻结的任务仍按原版本执行。",
        highlight=False,
    )


@models_app.command("use")
def use(
    role: str = typer.Argument(None, help="角色：writer、planner、extractor、detector、judge"),
    choice: str = typer.Argument(None, help="提供方:模型ID，如 deepseek:deepseek-chat"),
    work: str = WorkOption,
    as_json: bool = JsonOption,
) -> None:
    """为作品选定某个角色的模型（写作、改写、规划起草不再需要 --provider/--model）；不带参数时列出现有选择。"""
    try:
        work_id = work_id_for(work)
        if role is not None and choice is None:
            fail("请同时写出角色和模型，例如：muse models use writer deepseek:deepseek-chat")
        if role is not None:
            chosen = choose_model(get_engine(), work_id, role, choice)
            emit(chosen.to_dict(), as_json, _render_chosen)
            return
        with get_engine().connect() as conn:
            rows = [c.to_dict() for c in work_choices(conn, work_id).values()]
    except MuseError as err:
        fail(err)
    emit(rows, as_json, _render_choices)


def _render_chosen(c: dict[str, Any]) -> None:
    console.print(
        f"已为角色 {c['role']} 选定模型 {c['provider']}:{c['model']}；"
        "命令行的 --provider/--model 仍然优先。",
        highlight=False,
    )


def _render_choices(rows: list[dict[str, Any]]) -> None:
    if not rows:
        console.print(
            "这部作品还没有选定任何模型。例如：muse models use writer deepseek:deepseek-chat"
        )
        return
    table = new_table("角色", "模型", "选定人", "时间")
    for c in rows:
        table.add_row(
            c["role"],
            f"{c['provider']}:{c['model']}",
            c["chosen_by"] or "",
            local_time(c["chosen_at"]),
        )
    console.print(table)
    console.print(f"（{SOURCE_LABELS['flag']}仍然优先。）")
