"""The workbench (spec 001 §2, §8; ARCHITECTURE.md §8a): FastAPI + Jinja2 + htmx, server-rendered,
Chinese, no build step. It calls the services the CLI calls and holds no business rules."""

from muse.web.app import create_app
from muse.web.security import WebSecurity

__all__ = ["WebSecurity", "create_app"]
