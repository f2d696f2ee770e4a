"""The live views of ``write N``, 改：… and 修改后合并 read the stored run (and the edit's
decision), so they survive a restart of the workbench; a run whose server died says 已中断.

The writer is held at a gate (an event the test opens), so the run is mid-write when the first
server is thrown away; a second app on the same database — a fresh task board, nothing in
memory — shows the nodes already stored and the node in progress, then lands on the candidate
once the writer is let go. Waiting is on the gate and on polls, never on a clock.
"""

from __future__ import annotations

import html
import threading

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, update

from muse.flow import newest_candidate_of_run
from muse.flow.tables import runs
from muse.store.engine import reading
from muse.web import WebSecurity, create_app
from tests.support.processes import dead_owner
from tests.web.helpers import command_id, finish_task, post, wait_for_task


@pytest.fixture
def gated_writer(scripted):
    """The offline writer's draft, held until the test releases it."""
    reached, release = threading.Event(), threading.Event()

    def hold(draft):
        reached.set()
        assert release.wait(120), "the test never released the writer"
        return draft

    scripted("writer", "generate").edit(hold)
    yield reached, release
    release.set()


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


@pytest.fixture
def gate(scripted):
    """Hold one (role, task) of the offline model until the test lets it go: ``gate(role, task)``
    returns (reached, release). Installed after the fixtures that wrote chapter 5."""
    events = []

    def install(role: str, task: str) -> tuple[threading.Event, threading.Event]:
        reached, release = threading.Event(), threading.Event()
        events.append(release)

        def hold(data):
            reached.set()
            assert release.wait(120), "the test never released the model"
            return data

        scripted(role, task).edit(hold)
        return reached, release

    yield install
    for release in events:
        release.set()


def test_a_revise_watched_live_continues_after_a_restart(engine, written, gate):
    reached, release = gate("writer", "generate")
    first = create_app(engine, WebSecurity())
    client = _client(first)
    page = client.get(f"/candidates/{written.candidate_id}").text
    r = post(
        client,
        f"/candidates/{written.candidate_id}/revise",
        first.state.security.csrf_token,
        words="改：结尾换成悬念",
        command_id=command_id(page, "revise"),
    )
    assert r.status_code == 303
    location = r.headers["location"]
    assert reached.wait(120), "the writer was never called"

    second = _client(create_app(engine, WebSecurity()))  # "restarted": no task in memory
    live = second.get(location)
    assert live.status_code == 200 and "改写第 5 章" in live.text
    assert "正在：写作中" in live.text and "工作台重启过" in live.text

    release.set()
    landing = wait_for_task(second, location)
    assert landing.startswith("/candidates/") and landing != f"/candidates/{written.candidate_id}"
    assert 'id="item-7">改：结尾换成悬念<' in second.get(landing).text


def test_an_edit_rechecked_live_continues_after_a_restart(engine, written, gate):
    reached, release = gate("detector", "check")
    first = create_app(engine, WebSecurity())
    client = _client(first)
    edited = client.get(f"/candidates/{written.candidate_id}/edit").text
    text = html.unescape(edited.split('id="editor">')[1].split("</textarea>")[0])
    r = post(
        client,
        f"/candidates/{written.candidate_id}/edit",
        first.state.security.csrf_token,
        body=text + "\n他长叹一声，收了心神。",
        expected_revision="0",
        command_id=command_id(edited, "edit"),
    )
    assert r.status_code == 303
    location = r.headers["location"]
    assert location.startswith(f"/candidates/{written.candidate_id}/editing?")
    assert reached.wait(120), "the re-check never called the detector"

    second = _client(create_app(engine, WebSecurity()))  # "restarted": no task in memory
    live = second.get(location)
    assert live.status_code == 200
    assert "正在：检测中" in live.text  # the run's node, from its row
    assert "作者修改" in live.text or "已编辑待复检" in live.text  # the edit's stored event
    assert "修改后合并 · 第 5 章 v1" in live.text
    path, _, query = location.partition("?")
    fragment = second.get(f"{path}/progress?{query}")
    assert fragment.status_code == 200 and "HX-Redirect" not in fragment.headers

    release.set()
    landing, last = finish_task(second, location)
    with reading(engine) as conn:
        newest = newest_candidate_of_run(conn, written.run_id)
    assert landing == f"/candidates/{newest}" != f"/candidates/{written.candidate_id}"
    assert "复检通过" in last


def test_a_run_whose_server_died_is_shown_interrupted_and_the_button_sweeps_it(
    engine, work_id, gated_writer
):
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
    location = r.headers["location"]
    assert reached.wait(120), "the writer was never called"
    with engine.begin() as conn:  # the server that ran it died (its thread is held, never ends)
        run_id = conn.execute(select(runs.c.id)).scalar_one()
        conn.execute(update(runs).where(runs.c.id == run_id).values(owner=dead_owner()))

    second_app = create_app(engine, WebSecurity())
    second = _client(second_app)
    path, _, query = location.partition("?")
    fragment = second.get(f"{path}/progress?{query}")
    assert fragment.status_code == 286  # htmx stops polling: nobody will finish it
    assert "已中断" in fragment.text and 'id="sweep-button"' in fragment.text
    assert "已中断" in second.get(f"/runs/{run_id}").text

    swept = post(second, f"/runs/{run_id}/sweep", second_app.state.security.csrf_token)
    assert swept.status_code == 200 and run_id in swept.text and "运行它的进程已结束" in swept.text
    with reading(engine) as conn:
        assert conn.execute(select(runs.c.state)).scalar_one() == "writing_timeout"
    after = second.get(f"/runs/{run_id}").text
    assert "已中断</b>" not in after and "运行它的进程已结束" in after
    release.set()  # the held writer's late result is discarded (the run has ended)
