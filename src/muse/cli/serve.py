"""``muse serve``: the workbench in the browser, on the current database.

Loopback only by default. Any other ``--host`` needs an access token (``--token``, or one is
generated and printed once): every request must carry it, so a workbench on a network interface
is never open to whoever can reach the port.
"""

from __future__ import annotations

import gc
import secrets
import webbrowser

import typer

from muse.cli.common import get_engine
from muse.cli.output import console, fail
from muse.core.errors import InvalidInput
from muse.web import LOOPBACK_NAMES, WebSecurity


def serve(
    port: int = typer.Option(8765, "--port", min=1, max=65535, help="端口"),
    host: str = typer.Option("127.0.0.1", "--host", help="监听地址；非本机地址须配合访问令牌"),
    token: str = typer.Option(
        None, "--token", help="访问令牌（--host 为非本机地址时必需；省略则自动生成并打印一次）"
    ),
    open_browser: bool = typer.Option(False, "--open", help="启动后打开浏览器"),
) -> None:
    """启动创作台（浏览器里的工作台）：看板、候选审阅与决策、写下一章。"""
    security = _security(host, token)
    engine = get_engine()
    from muse.web import create_app  # the web stack loads only for this command

    app = create_app(engine, security)
    shown_host = f"[{host}]" if ":" in host else host
    url = f"http://{shown_host}:{port}/"
    if security.token:
        url += f"?token={security.token}"
    console.print(f"Muse 工作台：{url}", highlight=False, soft_wrap=True)
    console.print("按 Ctrl-C 停止。", style="dim")
    if open_browser:
        webbrowser.open(url)
    import uvicorn

    from muse.flow import warm_up

    # What the first chapter written here would pay once (the write's modules, the tagger's
    # models, the contracts, the compilation of the prepared statements for this engine), paid
    # now, before the first request.
    warm_up(engine)
    # The web stack loaded after main() froze the command's start-up heap: freeze it too, with
    # what the warm-up built, so that the full collections a chapter write triggers do not
    # rescan it (~60 ms each).
    gc.freeze()
    uvicorn.run(app, host=host, port=port, log_level="warning")


def _security(host: str, token: str | None) -> WebSecurity:
    loopback = host.strip("[]").lower() in LOOPBACK_NAMES
    if token is not None and len(token) < 16:
        fail(InvalidInput("访问令牌太短：至少 16 个字符。"))
    if loopback:
        return WebSecurity(host=host, token=token)
    return WebSecurity(host=host, token=token or secrets.token_urlsafe(24))


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)
