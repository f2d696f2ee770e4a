"""Node deadlines, timeouts, late results and the crash sweep (spec 000 §9)."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
import typer
from sqlalchemy import select
from typer.testing import CliRunner

from muse.cli import runs as runs_cli
from muse.cli.common import get_engine
from muse.core.clock import as_utc, utc_now
from muse.core.errors import ConfigError, InvalidInput, StaleTransition
from muse.core.process import owner_alive, process_owner
from muse.flow.deadlines import (
    DEFAULT_DEADLINES_S,
    DeadlinePolicy,
    expire,
    guard_result,
    remaining_s,
    start_node,
)
from muse.flow.states import WORKING_NODES
from muse.flow.sweeping import sweep, sweep_on_startup
from muse.flow.tables import candidates, run_events, runs
from muse.flow.transitions import move_candidate, move_run
from tests.support.processes import dead_owner

from .test_state_machine import (
    insert_candidate,
    insert_run,
    new_work,
    raw_update,
    row,
    run_in_state,
)


def _events(engine, run_id: str) -> list[tuple[str, str, dict]]:
    with engine.connect() as conn:
        rows = conn.execute(
            select(run_events.c.node, run_events.c.status, run_events.c.detail)
            .where(run_events.c.run_id == run_id)
            .order_by(run_events.c.id)
        ).all()
    return [tuple(r) for r in rows]


def _started(engine, node: str = "writing", seconds: float = 60):
    run_id = run_in_state(engine, new_work(engine), node)
    with engine.begin() as conn:
        deadline = start_node(conn, run_id, node, seconds)
    return run_id, deadline


# -- policy -----------------------------------------------------------------------------------------


def test_every_working_node_has_a_default_deadline():
    assert set(DEFAULT_DEADLINES_S) == set(WORKING_NODES)
    assert DeadlinePolicy.from_env({}).for_node("writing") == DEFAULT_DEADLINES_S["writing"]


def test_deadlines_are_configurable_and_bad_values_refused():
    policy = DeadlinePolicy.from_env({"MUSE_NODE_DEADLINES": "writing=30, detecting=45.5"})
    assert (policy.for_node("writing"), policy.for_node("detecting")) == (30, 45.5)
    for bad in ("writing=0", "writing=abc", "nowhere=10"):
        with pytest.raises(ConfigError, match="MUSE_NODE_DEADLINES"):
            DeadlinePolicy.from_env({"MUSE_NODE_DEADLINES": bad})


def test_start_node_uses_the_policy_by_default(engine, monkeypatch):
    monkeypatch.setenv("MUSE_NODE_DEADLINES", "retrieving=7")
    run_id = run_in_state(engine, new_work(engine), "retrieving")
    before = utc_now()
    with engine.begin() as conn:
        deadline = start_node(conn, run_id, "retrieving")
    assert timedelta(seconds=6) < deadline - before < timedelta(seconds=8)
    got = row(engine, runs, run_id)
    assert (as_utc(got["deadline_at"]), got["deadline_node"]) == (deadline, "retrieving")
    assert _events(engine, run_id)[-1][:2] == ("retrieving", "started")
    assert 0 < remaining_s(deadline) <= 7


def test_start_node_refuses_a_node_the_run_is_not_in(engine):
    run_id = run_in_state(engine, new_work(engine), "writing")
    with pytest.raises(StaleTransition), engine.begin() as conn:
        start_node(conn, run_id, "detecting", 10)
    with pytest.raises(InvalidInput), engine.begin() as conn:
        start_node(conn, run_id, "shadow_ready", 10)


# -- expiry -----------------------------------------------------------------------------------------


def test_expire_leaves_runs_before_their_deadline(engine):
    run_id, deadline = _started(engine)
    assert expire(engine, deadline - timedelta(seconds=1)) == []
    assert row(engine, runs, run_id)["state"] == "writing"


def test_expire_times_out_a_run_past_its_deadline(engine):
    run_id, deadline = _started(engine)
    [done] = expire(engine, deadline + timedelta(seconds=1))
    assert (done.run_id, done.node, done.state, done.kind) == (
        run_id,
        "writing",
        "writing_timeout",
        "timeout",
    )
    got = row(engine, runs, run_id)
    assert got["state"] == "writing_timeout" and "超过截止时间" in got["reason"]
    assert got["deadline_at"] is None
    assert _events(engine, run_id)[-1][:2] == ("writing", "timeout")
    assert expire(engine, deadline + timedelta(hours=1)) == []  # terminal: nothing more to do


def test_expire_rejects_the_runs_unfinished_candidates(engine):
    work_id = new_work(engine)
    run_id = run_in_state(engine, work_id, "detecting")
    with engine.begin() as conn:
        checking = insert_candidate(conn, run_id, work_id)
        move_candidate(conn, checking, "CHECKING")
        draft = insert_candidate(conn, run_id, work_id, version=2)
        deadline = start_node(conn, run_id, "detecting", 5)
    [done] = expire(engine, deadline + timedelta(seconds=1))
    assert set(done.rejected_candidates) == {checking, draft}
    assert {row(engine, candidates, c)["state"] for c in (checking, draft)} == {"REJECTED"}


def test_a_deadline_of_an_earlier_node_does_not_time_out_the_next(engine):
    run_id, deadline = _started(engine, "writing")
    with engine.begin() as conn:  # as if a move had left the old deadline behind
        move_run(conn, run_id, "detecting", deadline_at=deadline, deadline_node="writing")
    assert expire(engine, deadline + timedelta(seconds=1)) == []
    assert row(engine, runs, run_id)["state"] == "detecting"


# -- late results -----------------------------------------------------------------------------------


def test_a_result_in_time_is_used(engine):
    run_id, deadline = _started(engine)
    with engine.begin() as conn:
        assert guard_result(conn, run_id, 1, "writing", now=deadline - timedelta(seconds=1))
        move_run(conn, run_id, "detecting")
    assert row(engine, runs, run_id)["state"] == "detecting"


def test_a_late_result_after_a_timeout_is_ignored(engine):
    run_id, deadline = _started(engine)
    expire(engine, deadline + timedelta(seconds=1))
    with engine.begin() as conn:
        assert not guard_result(conn, run_id, 1, "writing")
    node, status, detail = _events(engine, run_id)[-1]
    assert (node, status, detail["event"]) == ("writing", "late_discarded", "late_result_discarded")
    assert detail["runState"] == "writing_timeout"
    assert row(engine, runs, run_id)["state"] == "writing_timeout"
    with pytest.raises(StaleTransition), engine.begin() as conn:  # and the state cannot be revived
        move_run(conn, run_id, "detecting")


def test_a_result_after_the_deadline_times_the_run_out_even_before_a_sweep(engine):
    run_id, deadline = _started(engine)
    with engine.begin() as conn:
        assert not guard_result(conn, run_id, 1, "writing", now=deadline + timedelta(seconds=1))
    assert row(engine, runs, run_id)["state"] == "writing_timeout"
    assert [s for _, s, _ in _events(engine, run_id)][-2:] == ["timeout", "late_discarded"]


def test_a_result_of_an_older_attempt_is_discarded(engine):
    run_id = run_in_state(engine, new_work(engine), "detecting")
    with engine.begin() as conn:
        move_run(conn, run_id, "rewriting", attempt=2)
        move_run(conn, run_id, "detecting")
    with engine.begin() as conn:
        assert not guard_result(conn, run_id, 1, "detecting")
        assert guard_result(conn, run_id, 2, "detecting")
    detail = _events(engine, run_id)[-1][2]
    assert (detail["resultAttempt"], detail["runAttempt"]) == (1, 2)


# -- the crash sweep --------------------------------------------------------------------------------


def _age(engine, run_id: str, hours: float) -> None:
    raw_update(engine, runs, run_id, updated_at=utc_now() - timedelta(hours=hours))


def test_sweep_ends_a_run_a_crash_left_behind(engine):
    work_id = new_work(engine)
    crashed = run_in_state(engine, work_id, "retrieving")
    _age(engine, crashed, 3)
    fresh = run_in_state(engine, work_id, "writing")
    waiting = run_in_state(engine, work_id, "shadow_ready")  # the author's turn: never swept
    _age(engine, waiting, 300)
    report = sweep(engine, stale_after=3600)
    assert [(t.run_id, t.state, t.kind) for t in report.swept] == [
        (crashed, "retrieving_timeout", "swept")
    ]
    assert report.timed_out == []
    assert "没有任何进展" in row(engine, runs, crashed)["reason"]
    assert row(engine, runs, fresh)["state"] == "writing"
    assert row(engine, runs, waiting)["state"] == "shadow_ready"
    assert sweep(engine, stale_after=3600).moved == []  # idempotent


def test_sweep_respects_a_running_deadline_and_expires_a_passed_one(engine):
    running, _ = _started(engine, "writing", 3600)
    _age(engine, running, 5)  # old, but its node has a deadline in the future
    passed, _ = _started(engine, "detecting", 1)
    report = sweep(engine, now=utc_now() + timedelta(seconds=5), stale_after=3600)
    assert [t.run_id for t in report.timed_out] == [passed]
    assert report.swept == []
    assert row(engine, runs, running)["state"] == "writing"
    assert row(engine, runs, passed)["state"] == "detecting_timeout"


def test_sweep_on_startup_reports_instead_of_raising(engine, monkeypatch):
    run_id = run_in_state(engine, new_work(engine), "writing")
    _age(engine, run_id, 24)
    report = sweep_on_startup(engine)
    assert report.error is None and [t.run_id for t in report.swept] == [run_id]
    monkeypatch.setenv("MUSE_SWEEP_STALE_AFTER_S", "soon")
    assert "清理遗留运行失败" in sweep_on_startup(engine).error


def test_runs_sweep_command(db_url, engine, monkeypatch, tmp_path):
    run_id = run_in_state(engine, new_work(engine), "writing")
    _age(engine, run_id, 24)
    app = typer.Typer()
    runs_cli.register(app)
    monkeypatch.setenv("MUSE_DATABASE_URL", db_url)
    monkeypatch.chdir(tmp_path)
    get_engine.cache_clear()
    try:
        runner = CliRunner()
        result = runner.invoke(app, ["runs", "sweep", "--json"], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        data = json.loads(result.stdout)
        assert [t["runId"] for t in data["swept"]] == [run_id]
        assert data["swept"][0]["state"] == "writing_timeout"
        again = runner.invoke(app, ["runs", "sweep"], catch_exceptions=False)
        assert "没有需要清理的运行" in again.stdout
        listing = runner.invoke(app, ["runs", "--json"], catch_exceptions=False)
        assert [r["state"] for r in json.loads(listing.stdout)] == ["writing_timeout"]
    finally:
        get_engine().dispose()
        get_engine.cache_clear()


def test_the_startup_probe_says_no_only_when_no_run_is_in_a_working_node(
    db_url, engine, monkeypatch
):
    """Both probes: the engine's and the plain read path's (``muse chapters``), which must agree."""
    from muse.flow.sweep_probe import sweep_may_move, sweep_may_move_plain
    from muse.store.plain import open_reader

    def may_move() -> bool:
        with open_reader(db_url) as reader:
            plain = sweep_may_move_plain(reader)
        assert plain is sweep_may_move(engine)
        return plain

    monkeypatch.delenv("MUSE_SWEEP_STALE_AFTER_S", raising=False)
    work_id = new_work(engine)
    run_in_state(engine, work_id, "shadow_ready")  # the author's turn: nothing to sweep
    assert may_move() is False
    with engine.begin() as conn:  # an evaluation run: the probe sees it too (so only says yes)
        evaluation = insert_run(conn, work_id, run_type="evaluation")
    assert may_move() is True
    raw_update(engine, runs, evaluation, state="failed", revision=1)
    assert may_move() is False
    for node in WORKING_NODES:
        run_id = run_in_state(engine, work_id, node)
        assert may_move() is True, node
        revision = row(engine, runs, run_id)["revision"] + 1
        raw_update(engine, runs, run_id, state=f"{node}_timeout", revision=revision)
    monkeypatch.setenv("MUSE_SWEEP_STALE_AFTER_S", "soon")  # the sweep must get to validate it
    assert may_move() is True


@pytest.mark.parametrize("command", ["works", "chapters"])  # chapters: the plain path hands over
def test_the_cli_startup_still_sweeps_a_crashed_run(db_url, engine, monkeypatch, tmp_path, command):
    from muse.cli.main import app

    crashed = run_in_state(engine, new_work(engine), "writing")
    _age(engine, crashed, 24)
    monkeypatch.setenv("MUSE_DATABASE_URL", db_url)
    monkeypatch.chdir(tmp_path)
    get_engine.cache_clear()
    try:
        result = CliRunner().invoke(app, [command, "--json"], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        assert "1 个中断的运行已标记为超时" in result.stderr
        assert row(engine, runs, crashed)["state"] == "writing_timeout"
    finally:
        get_engine().dispose()
        get_engine.cache_clear()


# -- runs whose owner process died (已中断) -----------------------------------------------------------


def test_a_moved_run_records_the_process_that_moved_it(engine):
    run_id, _ = _started(engine, "writing")
    assert row(engine, runs, run_id)["owner"] == process_owner()
    assert owner_alive(process_owner()) is True


def test_sweep_ends_at_once_a_run_whose_owner_process_died(engine):
    work_id = new_work(engine)
    orphan = run_in_state(engine, work_id, "writing")
    raw_update(engine, runs, orphan, owner=dead_owner())  # fresh: no deadline passed, not stale
    alive = run_in_state(engine, work_id, "detecting")
    raw_update(engine, runs, alive, owner=process_owner())
    elsewhere = run_in_state(engine, work_id, "retrieving")
    raw_update(engine, runs, elsewhere, owner="another-host|boot|1|1")  # unknown: left alone
    assert owner_alive("another-host|boot|1|1") is None
    report = sweep(engine, stale_after=3600)
    assert [(t.run_id, t.state, t.kind) for t in report.orphaned] == [
        (orphan, "writing_timeout", "orphaned")
    ]
    assert report.swept == [] and report.timed_out == []
    assert "运行它的进程已结束" in row(engine, runs, orphan)["reason"]
    assert row(engine, runs, alive)["state"] == "detecting"
    assert row(engine, runs, elsewhere)["state"] == "retrieving"
    assert ("writing", "orphaned") in [(n, s) for n, s, _ in _events(engine, orphan)]
    assert sweep(engine, stale_after=3600).moved == []  # idempotent


def test_muse_serve_sweeps_the_runs_of_a_dead_server_at_start(
    db_url, engine, monkeypatch, tmp_path
):
    import uvicorn

    from muse.cli.main import app

    orphan = run_in_state(engine, new_work(engine), "writing")
    raw_update(engine, runs, orphan, owner=dead_owner())
    served = []
    monkeypatch.setattr(uvicorn, "run", lambda web_app, **kw: served.append(kw))
    monkeypatch.setenv("MUSE_DATABASE_URL", db_url)
    monkeypatch.chdir(tmp_path)
    get_engine.cache_clear()
    monkeypatch.setattr("muse.cli.common._swept", False)
    try:
        result = CliRunner().invoke(app, ["serve", "--port", "8799"], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        assert served and served[0]["port"] == 8799
        assert "1 个中断的运行已标记为超时" in result.stderr
        assert row(engine, runs, orphan)["state"] == "writing_timeout"
    finally:
        get_engine().dispose()
        get_engine.cache_clear()
