"""A local stub of the OpenAI chat-completions API: real sockets, real JSON, scripted replies.

Each test scripts the responses it wants in order (``reply``, ``tool_calls``, ``status``,
``hang``, ``raw``); the server records every request it receives (path, headers, JSON body) so
tests can assert exactly what was sent. An unscripted request gets HTTP 599, which no code path
retries into success, so a test that sends more than it scripted fails loudly.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from muse.agents.providers.presets import PRESETS


@dataclass
class Step:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    drip_s: float = 0.0  # > 0: the body is sent one byte at a time, this long apart


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


class StubServer:
    def __init__(self) -> None:
        self.requests: list[Received] = []
        # Answers a request when nothing is scripted (tests of whole pipelines); None: HTTP 599.
        self.responder: Callable[[dict[str, Any]], Step] | None = None
        self._script: deque[Step] = deque()
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._server.block_on_close = False
        # ``shutdown`` waits for the serving loop's next poll: 0.5 s by default, paid by every
        # test that stops a stub (98 of them: 46 s of the suite).
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def start(self) -> StubServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    # -- scripting --------------------------------------------------------------------------------

    def reply(
        self,
        content: str | None,
        *,
        model: str = "deepseek-chat",
        finish_reason: str = "stop",
        usage: tuple[int, int] = (100, 20),
        cached: int | None = None,
        tool_calls: list[dict[str, Any]] | None = None,
    ) -> StubServer:
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if tool_calls:
            message["tool_calls"] = tool_calls
        usage_body: dict[str, Any] = {
            "prompt_tokens": usage[0],
            "completion_tokens": usage[1],
            "total_tokens": sum(usage),
        }
        if cached is not None:
            usage_body["prompt_tokens_details"] = {"cached_tokens": cached}
        body = {
            "id": f"chatcmpl-{len(self._script)}",
            "object": "chat.completion",
            "created": 1,
            "model": model,
            "usage": usage_body,
            "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        }
        return self._push(Step(200, json.dumps(body, ensure_ascii=False).encode()))

    def reply_json(self, data: dict[str, Any], **kwargs: Any) -> StubServer:
        return self.reply(json.dumps(data, ensure_ascii=False), **kwargs)

    def tool_calls(
        self, *calls: tuple[str, dict[str, Any]], model: str = "deepseek-chat"
    ) -> StubServer:
        scripted = [
            {
                "id": f"call_{i}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(args, ensure_ascii=False)},
            }
            for i, (name, args) in enumerate(calls)
        ]
        return self.reply(None, model=model, finish_reason="tool_calls", tool_calls=scripted)

    def status(
        self,
        code: int,
        body: dict[str, Any] | str | None = None,
        headers: dict[str, str] | None = None,
    ) -> StubServer:
        payload = (
            body
            if isinstance(body, str)
            else json.dumps(body or {"error": {"message": f"stub status {code}", "type": "stub"}})
        )
        return self._push(Step(code, payload.encode(), headers or {}))

    def hang(self, seconds: float) -> StubServer:
        """Answer only after ``seconds`` (longer than the client's timeout)."""
        return self._push(Step(200, b"{}", delay_s=seconds))

    def drip(self, body: bytes, every_s: float) -> StubServer:
        """Answer at once, but send the body one byte every ``every_s`` (each read is quick,
        the whole reply is not)."""
        return self._push(Step(200, body, drip_s=every_s))

    def raw(self, body: bytes, status: int = 200) -> StubServer:
        return self._push(Step(status, body))

    def _push(self, step: Step) -> StubServer:
        with self._lock:
            self._script.append(step)
        return self

    def _next(self, body: dict[str, Any] | None = None) -> Step:
        with self._lock:
            if self._script:
                return self._script.popleft()
        if self.responder is not None and body is not None:
            return self.responder(body)
        return Step(599, b'{"error": {"message": "unscripted request"}}')

    # -- HTTP -------------------------------------------------------------------------------------

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                stub.requests.append(
                    Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                )
                step = stub._next(body)
                if step.delay_s:
                    time.sleep(step.delay_s)
                try:
                    self.send_response(step.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(step.body)))
                    for key, value in step.headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    if step.drip_s:
                        for i in range(len(step.body)):
                            self.wfile.write(step.body[i : i + 1])
                            self.wfile.flush()
                            time.sleep(step.drip_s)
                    else:
                        self.wfile.write(step.body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout tests)

            def log_message(self, *args: Any) -> None:
                pass

        return Handler


# -- configuration ---------------------------------------------------------------------------------

STUB_SECRET = "sk-stub-SECRET-7c1e9a0b"  # the stub's API key: no output, file or row may hold it


def isolate_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty Muse configuration and no preset key in the environment: neither the developer's
    own config nor a real key can change a result (real requests stay disallowed)."""
    path = tmp_path / "empty-config.toml"
    monkeypatch.setenv("MUSE_CONFIG", str(path))
    for preset in PRESETS.values():
        if preset.key_env:
            monkeypatch.delenv(preset.key_env, raising=False)
    monkeypatch.setenv("MUSE_ALLOW_MODEL_REQUESTS", "0")
    return path


def configure_stub(
    server: StubServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, secret: str
) -> Path:
    """Two providers on the stub: ``stub`` (strict json_schema) and ``stub-json`` (JSON mode),
    their key ``secret`` in ``STUB_API_KEY``."""
    path = tmp_path / "config.toml"
    path.write_text(
        f"""
[providers.stub]
base_url = "{server.url}"
api_key_env = "STUB_API_KEY"
supports_json_schema = true

[providers.stub-json]
base_url = "{server.url}"
api_key_env = "STUB_API_KEY"
supports_json_schema = false
json_mode_requires_word_json = true
""",
        encoding="utf-8",
    )
    monkeypatch.setenv("MUSE_CONFIG", str(path))
    monkeypatch.setenv("STUB_API_KEY", secret)
    return path
