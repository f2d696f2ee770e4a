"""``muse serve``: loopback by default; any other host gets an access token; a short one is refused."""

from __future__ import annotations

import pytest
import typer

from muse.cli.serve import _security


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1"])
def test_loopback_needs_no_token(host):
    security = _security(host, None)
    assert security.token is None and security.loopback_only


def test_another_host_always_gets_a_token():
    security = _security("0.0.0.0", None)
    assert security.token is not None and len(security.token) >= 24
    assert not security.loopback_only
    assert _security("0.0.0.0", "a-long-enough-token-123").token == "a-long-enough-token-123"


def test_a_short_token_is_refused(capsys):
    with pytest.raises(typer.Exit) as exit_:
        _security("0.0.0.0", "short")
    assert exit_.value.exit_code == 1
    assert "访问令牌太短" in capsys.readouterr().err


def test_serve_is_a_registered_command():
    from typer.testing import CliRunner

    from muse.cli.main import app

    result = CliRunner().invoke(app, ["serve", "--help"])
    assert result.exit_code == 0 and "--token" in result.output


def test_serve_freezes_what_the_web_stack_built_before_it_serves(monkeypatch, db_url):
    import gc

    import uvicorn
    from typer.testing import CliRunner

    from muse.cli.main import app

    frozen: list[int] = []
    monkeypatch.setenv("MUSE_DATABASE_URL", db_url)
    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: frozen.append(gc.get_freeze_count()))
    gc.unfreeze()
    try:
        result = CliRunner().invoke(app, ["serve"])
    finally:
        gc.unfreeze()
    assert result.exit_code == 0, result.output
    assert frozen and frozen[0] > 0


def test_serve_warms_up_before_it_serves(monkeypatch, db_url):
    """The write's one-time costs are paid at start: by the first request, the tagger is loaded,
    every contract is built and the served engine has every prepared statement compiled (the
    first chapter written costs what the later ones do)."""
    import uvicorn
    from typer.testing import CliRunner

    from muse.cli.main import app
    from muse.flow.warming import _contracts
    from muse.store.prepared import registered

    seen: list[list[str]] = []
    compiled: list[int] = []

    def run(web_app, **_):
        seen.append([m.__name__ for m in _contracts() if not m.__pydantic_complete__])
        compiled.append(len(web_app.state.engine._compiled_cache))

    monkeypatch.setenv("MUSE_DATABASE_URL", db_url)
    monkeypatch.setattr(uvicorn, "run", run)
    result = CliRunner().invoke(app, ["serve"])
    assert result.exit_code == 0, result.output
    assert seen == [[]]
    assert compiled[0] >= len(registered()) > 30
