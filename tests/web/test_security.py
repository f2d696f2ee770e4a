"""Who may talk to the workbench: loopback only by default, a token otherwise, CSRF on every
state change, the Host header checked (DNS rebinding), secrets never rendered."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import insert, select

from muse.agents.tables import model_calls
from muse.core.clock import utc_now
from muse.flow.tables import candidates
from muse.web import WebSecurity, create_app, routes
from tests.web.helpers import post

SAFE = {"GET", "HEAD", "OPTIONS"}


def _state(engine, candidate_id):
    with engine.connect() as conn:
        return conn.execute(
            select(candidates.c.state).where(candidates.c.id == candidate_id)
        ).scalar_one()


def test_a_post_without_the_csrf_token_is_refused_and_changes_nothing(client, engine, written):
    r = client.post(f"/candidates/{written.candidate_id}/accept", data={"command_id": "x"})
    assert r.status_code == 403 and "CSRF" in r.text
    wrong = client.post(
        f"/candidates/{written.candidate_id}/accept",
        data={"command_id": "x"},
        headers={"X-CSRF-Token": "forged"},
    )
    assert wrong.status_code == 403
    wrong_field = post(client, f"/candidates/{written.candidate_id}/discard", "forged")
    assert wrong_field.status_code == 403
    assert _state(engine, written.candidate_id) == "PASSED"


def test_the_htmx_header_carries_the_token(client, csrf, engine, written):
    r = client.post(
        f"/candidates/{written.candidate_id}/discard",
        data={"command_id": "cmd_h"},
        headers={"X-CSRF-Token": csrf},
    )
    assert r.status_code == 200
    assert _state(engine, written.candidate_id) == "DISCARDED"


def test_every_state_changing_route_refuses_a_request_without_csrf(client):
    posts = [
        route.path
        for module in routes.MODULES
        for route in module.router.routes
        if set(getattr(route, "methods", None) or ()) - SAFE
    ]
    assert len(posts) >= 10, posts
    for path in posts:
        url = path.replace("{work_id}", "1").replace("{", "").replace("}", "")
        r = client.post(url, data={"x": "1"})
        assert r.status_code == 403, f"{path} accepted a POST without the CSRF token"


def test_a_non_loopback_client_is_refused(app):
    remote = TestClient(app, base_url="http://127.0.0.1:8765", client=("192.168.1.20", 40000))
    r = remote.get("/")
    assert r.status_code == 403 and "只接受本机" in r.text


@pytest.mark.parametrize("host", ["evil.example:8765", "attacker.test", "127.0.0.1.nip.io"])
def test_a_foreign_host_header_is_refused(app, host):
    rebinding = TestClient(app, base_url=f"http://{host}", client=("127.0.0.1", 40000))
    r = rebinding.get("/")
    assert r.status_code == 421 and "DNS 重绑定" in r.text


@pytest.mark.parametrize("host", ["127.0.0.1:8765", "localhost:8765", "[::1]:8765"])
def test_loopback_host_names_are_answered(app, host):
    local = TestClient(app, base_url=f"http://{host}", client=("127.0.0.1", 40000))
    assert local.get("/records").status_code == 200


def test_a_network_host_needs_the_token_on_every_request(engine):
    token = "t0ken-for-the-workbench-123"
    app = create_app(engine, WebSecurity(host="10.0.0.5", token=token))
    browser = TestClient(app, base_url="http://10.0.0.5:8765", client=("10.0.0.9", 40000))
    assert browser.get("/records").status_code == 401
    assert browser.get("/records?token=wrong").status_code == 401
    first = browser.get(f"/records?token={token}", follow_redirects=False)
    assert first.status_code == 303 and first.headers["location"] == "/records"
    assert "muse_token" in first.headers["set-cookie"] and "HttpOnly" in first.headers["set-cookie"]
    after = browser.get("/records")  # the cookie now carries the token
    assert after.status_code == 200 and token not in after.text
    other = TestClient(app, base_url="http://10.0.0.5:8765", client=("10.0.0.9", 40001))
    assert other.get("/records", headers={"X-Muse-Token": token}).status_code == 200
    assert other.get("/records", headers={"X-Muse-Token": "nope"}).status_code == 401


def test_secrets_are_never_rendered(client, engine, written):
    secret = "sk-live-0123456789abcdef"
    with engine.begin() as conn:
        conn.execute(
            insert(model_calls).values(
                id="call_secret_probe",
                run_id=written.run_id,
                role="writer",
                task="generate",
                provider="deepseek",
                base_url="https://api.example.com/v1",
                model_requested="m",
                status="ok",
                attempts=1,
                tokens_in=0,
                tokens_out=0,
                latency_ms=1,
                input_sha256="0" * 64,
                prompt_templates={},
                task_input={},
                messages=[{"role": "user", "content": "hi"}],
                raw_outputs=[],
                finished_at=utc_now(),
                request_params={
                    "temperature": 0.7,
                    "api_key": secret,
                    "headers": {"Authorization": f"Bearer {secret}"},
                },
                started_at=utc_now(),
            )
        )
    for url in (
        "/model-calls/call_secret_probe",
        f"/runs/{written.run_id}",
        "/records/model_calls",
    ):
        r = client.get(url)
        assert r.status_code == 200
        assert secret not in r.text, url
    assert "（已隐藏）" in client.get("/model-calls/call_secret_probe").text
