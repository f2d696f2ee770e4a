"""``muse models``: which model providers exist and whether a model is reachable.

Commands only print; the knowledge of providers, keys and policies lives in ``muse.agents``.
Key values are never printed: only where a key would come from.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

import typer
from rich.table import Table

from muse.agents.contracts import load_roles
from muse.agents.probe import CheckResult, ProviderStatus, check_model, provider_statuses
from muse.cli.output import console, emit, fail
from muse.core.errors import MuseError

models_app = typer.Typer(
    help="模型提供方：列出可用提供方与模型策略，检查连通性。", no_args_is_help=True
)

_KEY_SOURCE = {
    "env": "已配置（环境变量）",
    "config": "已配置（配置文件）",
    "missing": "未配置",
    "not_needed": "无需密钥",
    "error": "配置有误",
}


def _policies() -> list[dict[str, Any]]:
    catalog = load_roles()
    rows = []
    for name, role in catalog.roles.items():
        allowance = catalog.allowance(role.modelPolicyVersion, role.modelPolicy)
        aliases = [a for a, target in catalog.aliases.items() if target == name]
        rows.append(
            {
                "role": name,
                "displayName": role.displayName,
                "aliases": aliases,
                "policy": role.modelPolicy,
                "policyVersion": role.modelPolicyVersion,
                "models": list(allowance.models),
                "patterns": list(allowance.patterns),
            }
        )
    return rows


def _render_list(data: dict[str, Any]) -> None:
    table = Table(title="模型提供方")
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
    roles = Table(title="角色模型策略（当前版本）")
    for column in ("角色", "策略", "允许的模型"):
        roles.add_column(column)
    for r in data["policies"]:
        allowed = "、".join(r["models"] + [f"{p}（通配）" for p in r["patterns"]])
        name = r["role"] + (f"（≡{'、'.join(r['aliases'])}）" if r["aliases"] else "")
        roles.add_row(f"{name} {r['displayName']}", f"{r['policy']}@{r['policyVersion']}", allowed)
    console.print(roles)
    console.print(
        "每次调用都须显式指定 --provider 与 --model；不联网试用：--provider offline --model offline-1"
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
        result: CheckResult = check_model(provider, model, timeout_s=timeout)
    except MuseError as err:
        fail(err)
    emit(asdict(result), as_json, _render_check)
