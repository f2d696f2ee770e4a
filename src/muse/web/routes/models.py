"""Models per role (``muse models use``): the choice in force for each role of the work, the
models each role's policy allows, the providers and whether their key is configured (never the
key itself), and choosing a model for a role (:func:`muse.agents.model_choice.choose_model`,
refused unless the role's policy allows it)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from muse.agents import choose_model, current_policies, provider_statuses, work_choices
from muse.core.errors import MuseError
from muse.web.deps import engine_of, read, work_nav
from muse.web.forms import Form, read_form
from muse.web.render import page

router = APIRouter()

KEY_SOURCES = {
    "env": "已配置（环境变量）",
    "config": "已配置（配置文件）",
    "missing": "未配置",
    "not_needed": "无需密钥",
    "error": "配置有误",
}


@router.get("/works/{work_id}/models", response_class=HTMLResponse)
def models_page(request: Request, work_id: int, chosen: str | None = None) -> Response:
    with read(request) as conn:
        info = work_nav(conn, work_id)
        choices = work_choices(conn, work_id)
        policies = current_policies(conn)
    return page(
        request,
        "models.html",
        title="模型",
        work=info,
        choices=choices,
        policies=policies,
        providers=_providers(),
        key_sources=KEY_SOURCES,
        chosen=chosen,
    )


@router.post("/works/{work_id}/models", response_class=HTMLResponse)
def use_model(request: Request, work_id: int, form: Form = Depends(read_form)) -> Response:
    try:
        role = form.required("role", "角色")
        provider = form.required("provider", "提供方")
        model = form.required("model", "模型 ID")
        choice = choose_model(engine_of(request), work_id, role, f"{provider}:{model}")
    except MuseError as err:
        return page(
            request,
            "queue_outcome.html",
            status_code=400,
            title="没有选定模型",
            ok=False,
            lines=[err.message, *([err.hint] if err.hint else []), "没有任何改动。"],
            work_id=work_id,
            back="models",
        )
    return RedirectResponse(f"/works/{work_id}/models?chosen={choice.role}", status_code=303)


def _providers() -> list[dict[str, Any]]:
    """The providers without anything secret (a broken config file is shown, not raised)."""
    try:
        statuses = provider_statuses()
    except MuseError as err:
        return [{"name": "—", "label": err.message, "key_source": "error", "base_url": None}]
    return [
        {"name": p.name, "label": p.label, "key_source": p.key_source, "base_url": p.base_url}
        for p in statuses
    ]
