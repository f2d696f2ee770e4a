"""Rendering pages: one Jinja2 environment, the Chinese labels, and the error page.

Templates get the request, the CSRF token (for forms and htmx headers) and a few filters. Nothing
here decides anything; labels come from the domains that own them.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from muse.core.errors import (
    AuthorizationError,
    ContractViolation,
    InvalidInput,
    MuseError,
    NotFound,
    StaleTransition,
)
from muse.flow import CANDIDATE_STATE_LABELS, RUN_STATE_LABELS, STEP_LABELS

_TEMPLATES = Jinja2Templates(directory=str(resources.files("muse.web") / "templates"))
_SECRET_WORDS = ("api_key", "apikey", "secret", "password", "token", "authorization")


def _short(value: Any, n: int = 12) -> str:
    return "" if value is None else str(value)[:n]


def _pretty(value: Any) -> str:
    return json.dumps(redact(value), ensure_ascii=False, indent=2, default=str)


def redact(value: Any) -> Any:
    """Principle: secrets never reach the page. Any mapping key that names a secret is hidden."""
    if isinstance(value, dict):
        return {
            k: ("（已隐藏）" if is_secret_name(str(k)) else redact(v)) for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [redact(v) for v in value]
    return value


def is_secret_name(name: str) -> bool:
    lowered = name.lower().replace("-", "_")
    return (
        any(word in lowered for word in _SECRET_WORDS)
        and not lowered.endswith(("tokens", "tokens_in", "tokens_out", "tokens_cached"))
        and lowered not in {"token_budget", "tokenbudget", "tokens"}
    )


def _run_label(state: str | None) -> str:
    if state is None:
        return ""
    return RUN_STATE_LABELS.get(state, STEP_LABELS.get(state, state))


env = _TEMPLATES.env
env.filters["short"] = _short
env.filters["pretty"] = _pretty
env.filters["run_label"] = _run_label
env.filters["cand_label"] = lambda s: CANDIDATE_STATE_LABELS.get(s, s)
env.globals["RUN_STATE_LABELS"] = RUN_STATE_LABELS


def page(request: Request, template: str, status_code: int = 200, **context: Any) -> HTMLResponse:
    security = request.app.state.security
    context.setdefault("title", "Muse 工作台")
    return _TEMPLATES.TemplateResponse(
        request, template, {"csrf_token": security.csrf_token, **context}, status_code=status_code
    )


def error_status(err: MuseError) -> int:
    if isinstance(err, NotFound):
        return 404
    if isinstance(err, StaleTransition):
        return 409
    if isinstance(err, InvalidInput | ContractViolation | AuthorizationError):
        return 400
    return 500


def error_page(request: Request, err: MuseError) -> HTMLResponse:
    return page(
        request,
        "error.html",
        status_code=error_status(err),
        title="出错了",
        message=err.message,
        hint=err.hint,
    )
