"""The workbench application: ``create_app(engine)`` wires the pages, the checks and the assets.

One page module per noun (``muse.web.routes``); each calls the services the CLI calls and renders
a template. Every Muse error becomes a Chinese error page with a meaningful status (404 missing,
409 stale, 400 refused); an unexpected error becomes a 500 page without a traceback.
"""

from __future__ import annotations

import logging
from importlib import resources

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles
from sqlalchemy import Engine

from muse.core.errors import MuseError
from muse.web import routes
from muse.web.render import error_page, page
from muse.web.security import SecurityMiddleware, WebSecurity
from muse.web.tasks import TaskBoard

log = logging.getLogger(__name__)


def create_app(engine: Engine, security: WebSecurity | None = None) -> FastAPI:
    app = FastAPI(title="Muse 工作台", docs_url=None, redoc_url=None, openapi_url=None)
    app.state.engine = engine
    app.state.security = security or WebSecurity()
    app.state.tasks = TaskBoard()
    app.mount(
        "/static", StaticFiles(directory=str(resources.files("muse.web") / "static")), "static"
    )
    for module in routes.MODULES:
        app.include_router(module.router)
    app.add_exception_handler(MuseError, _muse_error)
    app.add_exception_handler(Exception, _unexpected)
    app.add_exception_handler(404, _not_found)
    app.add_middleware(SecurityMiddleware, security=app.state.security)
    return app


async def _muse_error(request: Request, err: Exception) -> HTMLResponse:
    assert isinstance(err, MuseError)
    return error_page(request, err)


async def _unexpected(request: Request, err: Exception) -> HTMLResponse:
    log.exception("workbench page failed: %s", request.url.path)
    return page(
        request,
        "error.html",
        status_code=500,
        title="出错了",
        message="页面出错了，没有改动任何数据。",
        hint=f"{type(err).__name__}（详情见服务端日志）",
    )


async def _not_found(request: Request, err: Exception) -> HTMLResponse:
    return page(
        request, "error.html", status_code=404, title="没有这个页面", message="没有这个页面。"
    )
