"""Who may talk to the workbench (ARCHITECTURE.md §8a): loopback by default, a token otherwise.

Three checks run on every request, before any page or decision:

* **Host header** (DNS rebinding): a page on an attacker's domain that resolves to 127.0.0.1 sends
  its own host name; only the names the server was started for are answered.
* **Client address / access token**: started on loopback without a token, only loopback clients
  are served. Started with ``--host`` (any other interface) a token is required, and every
  request carries it — as the ``muse_token`` cookie the first ``?token=`` visit sets, or as the
  ``X-Muse-Token`` header. Tokens are compared in constant time and never rendered.
* **CSRF**: every state-changing request (anything but GET/HEAD/OPTIONS) carries the server's
  CSRF token, as the ``X-CSRF-Token`` header (htmx sends it from ``<body hx-headers>``) or the
  ``csrf_token`` form field (the middleware reads the body, checks it, and replays it to the
  route), so no route can forget the check. A cross-site page cannot read the token (same-origin
  policy), so it cannot forge a decision.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlencode

from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
TOKEN_COOKIE = "muse_token"
TOKEN_HEADER = "x-muse-token"
CSRF_HEADER = "x-csrf-token"
CSRF_FIELD = "csrf_token"


@dataclass(frozen=True)
class WebSecurity:
    """What the server was started with: the host names it answers and its secrets."""

    host: str = "127.0.0.1"
    token: str | None = None
    csrf_token: str = field(default_factory=lambda: secrets.token_urlsafe(32))

    @property
    def loopback_only(self) -> bool:
        return self.token is None

    def allowed_hosts(self) -> frozenset[str]:
        return LOOPBACK_NAMES | {self.host.strip("[]").lower()}

    def csrf_ok(self, value: str | None) -> bool:
        return value is not None and hmac.compare_digest(value, self.csrf_token)

    def token_ok(self, value: str | None) -> bool:
        return (
            self.token is not None
            and value is not None
            and hmac.compare_digest(value.encode(), self.token.encode())
        )


def host_name(header: str) -> str:
    """The host part of a Host header (``[::1]:8765`` → ``::1``, ``a.b:80`` → ``a.b``)."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:].split("]", 1)[0]
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


def is_loopback(address: str | None) -> bool:
    if address is None:
        return False
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


class SecurityMiddleware:
    """Refuses, with a Chinese message, every request that fails one of the three checks."""

    def __init__(self, app: ASGIApp, security: WebSecurity) -> None:
        self.app, self.security = app, security

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        refusal = self._refusal(request)
        if refusal is None and request.method not in SAFE_METHODS:
            body = await _read_body(receive)
            receive = _replay(body)
            if not self.security.csrf_ok(_csrf_offered(request, body)):
                refusal = _refuse(403, "缺少或错误的 CSRF 令牌：请刷新页面后重试，本次操作未执行。")
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def _refusal(self, request: Request) -> Response | None:
        sec = self.security
        if host_name(request.headers.get("host", "")) not in sec.allowed_hosts():
            return _refuse(421, "主机名不被允许：工作台只响应启动时指定的地址（防 DNS 重绑定）。")
        client = request.client.host if request.client else None
        if sec.loopback_only:
            if not is_loopback(client):
                return _refuse(
                    403, "工作台只接受本机（127.0.0.1）访问；远程访问请用 --host 与 --token 启动。"
                )
        else:
            offered = request.query_params.get("token")
            if offered is not None and sec.token_ok(offered):
                return _remember_token(request, offered)
            carried = request.headers.get(TOKEN_HEADER) or request.cookies.get(TOKEN_COOKIE)
            if not sec.token_ok(carried):
                return _refuse(
                    401, "缺少或错误的访问令牌：请打开启动时打印的完整地址（带 ?token=）。"
                )
        return None


async def _read_body(receive: Receive) -> bytes:
    chunks, more = [], True
    while more:
        message = await receive()
        chunks.append(message.get("body", b""))
        more = message.get("more_body", False)
    return b"".join(chunks)


def _replay(body: bytes) -> Receive:
    """A ``receive`` that hands the already-read body to the application once."""
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return receive


def _csrf_offered(request: Request, body: bytes) -> str | None:
    """The CSRF token the request carries: the header, else the urlencoded form field."""
    header = request.headers.get(CSRF_HEADER)
    if header is not None:
        return header
    if request.headers.get("content-type", "").startswith("application/x-www-form-urlencoded"):
        values = parse_qs(body.decode("utf-8", "replace")).get(CSRF_FIELD)
        return values[0] if values else None
    return None


def _remember_token(request: Request, token: str) -> Response:
    """The first visit with ``?token=``: keep it in an HttpOnly cookie, drop it from the URL."""
    rest = [(k, v) for k, v in request.query_params.multi_items() if k != "token"]
    target = request.url.path + (f"?{urlencode(rest)}" if rest else "")
    response = RedirectResponse(target, status_code=303)
    response.set_cookie(TOKEN_COOKIE, token, httponly=True, samesite="strict")
    return response


def _refuse(status: int, message: str) -> Response:
    return PlainTextResponse(message, status_code=status)
