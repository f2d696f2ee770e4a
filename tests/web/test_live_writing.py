"""The live view of ``write N`` reads the stored run, so it survives a restart of the workbench.

The writer is held at a gate (an event the test opens), so the run is mid-write when the first
server is thrown away; a second app on the same database — a fresh task board, nothing in
memory — shows the nodes already stored and the node in progress, then lands on the candidate
once the writer is let go. Waiting is on the gate and on polls, never on a clock.
"""

from __future__ import annotations

import threading

import pytest
from fastapi.testclient import TestClient

from muse.agents.providers.offline import register_offline_generator, unregister_offline_generator
from muse.offline import writer as offline_writer
from muse.web import WebSecurity, create_app
from tests.web.helpers import post, wait_for_task


@pytest.fixture
def gated_writer():
    reached, release = threading.Event(), threading.Event()

    def generator(task_input, output_model):
        reached.set()
        assert release.wait(120), "the test never released the writer"
        return offline_writer.write_chapter(task_input)

    register_offline_generator("writer", "generate", generator)
    yield reached, release
    release.set()
    unregister_offline_generator("writer", "generate")


def _client(app) -> TestClient:
    return TestClient(app, base_url="http://127.0.0.1:8765", client=("127.0.0.1", 50000))


def test_the_live_page_continues_after_a_restart(engine, work_id, gated_writer):
    reached, release = gated_writer
    first = create_app(engine, WebSecurity())
    r = post(
        _client(first),
        f"/works/{work_id}/write",
        first.state.security.csrf_token,
        chapter="5",
        provider="offline",
        model="offline-1",
    )
    assert r.status_code == 303
    location = r.headers["location"]
    assert reached.wait(120), "the writer was never called"

    second = _client(create_app(engine, WebSecurity()))  # "restarted": no task in memory
    path, _, query = location.partition("?")
    live = second.get(location)
    assert live.status_code == 200
    assert "正在：写作中" in live.text  # the node in progress, from the run's row
    assert '检索取证 <span class="badge ok">完成' in live.text  # a finished node, from run_events
    assert "工作台重启过" in live.text
    fragment = second.get(f"{path}/progress?{query}")
    assert fragment.status_code == 200 and "HX-Redirect" not in fragment.headers

    release.set()
    landing = wait_for_task(second, location)
    assert landing.startswith("/candidates/")
    assert second.get(landing).status_code == 200


def test_a_start_lost_before_its_run_was_stored_says_so(client, work_id):
    r = client.get(f"/works/{work_id}/writing/5?since=2026-01-01T00:00:00Z&task=task_gone")
    assert r.status_code == 200 and "服务在运行落库之前重启了" in r.text
    fragment = client.get(f"/works/{work_id}/writing/5/progress?since=2026-01-01T00:00:00Z")
    assert fragment.status_code == 286  # htmx stops polling
