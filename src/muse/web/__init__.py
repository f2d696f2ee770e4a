"""The workbench (spec 001 §2, §8; ARCHITECTURE.md §8a): FastAPI + Jinja2 + htmx, server-rendered,
Chinese, no build step. It calls the services the CLI calls and holds no business rules."""

from __future__ import annotations

from typing import TYPE_CHECKING

from muse.core.faces import lazy_face

if TYPE_CHECKING:
    from muse.web.app import create_app
    from muse.web.security import LOOPBACK_NAMES, WebSecurity

__all__ = ["LOOPBACK_NAMES", "WebSecurity", "create_app"]

_FACE: dict[str, tuple[str, ...]] = {
    "app": ("create_app",),
    "security": ("LOOPBACK_NAMES", "WebSecurity"),
}

__getattr__, __dir__ = lazy_face(globals(), _FACE)
