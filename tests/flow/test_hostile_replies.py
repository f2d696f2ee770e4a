"""``muse write`` against a hostile provider (a local stub server): every bad reply ends the run
at once in an explicit state, with a receipt and a reason naming the cause, a non-zero exit
code, and no configured key anywhere in the database or the output (issue 19, defects 1/3/7/8).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from sqlalchemy import select, text
from typer.testing import CliRunner

from muse.cli.common import get_engine
from muse.cli.main import app
from muse.core.redaction import forget_secrets
from muse.flow.tables import candidates, runs
from muse.store.metadata import metadata
from tests.support.marked_book import NEXT
from tests.support.stub_server import StubServer

SECRET = "sk-hostile-KEY-4f2a9c1d77"
EXPLORE = {"reads": [], "notes": "不需要额外材料。"}


@dataclass
class Written:
    code: int
    output: str
    data: dict | None


@pytest.fixture(params=["env"])
def stub(request, db_url, book, tmp_path, monkeypatch) -> Iterator[StubServer]:
    """The stub provider; its key in ``STUB_API_KEY`` (param "env") or in the config file."""
    server = StubServer().start()
    config = tmp_path / "config.toml"
    key = 'api_key_env = "STUB_API_KEY"\n' if request.param == "env" else f'api_key = "{SECRET}"\n'
    config.write_text(
        f'[providers.stub]\nbase_url = "{server.url}"\n{key}supports_json_schema = true\n',
        encoding="utf-8",
    )
    monkeypatch.setenv("MUSE_CONFIG", str(config))
    if request.param == "env":
        monkeypatch.setenv("STUB_API_KEY", SECRET)
    else:
        monkeypatch.delenv("STUB_API_KEY", raising=False)
    monkeypatch.setenv("MUSE_DATABASE_URL", db_url)
    monkeypatch.setenv("MUSE_ALLOW_MODEL_REQUESTS", "0")
    monkeypatch.chdir(tmp_path)
    get_engine.cache_clear()
    yield server
    server.stop()
    get_engine().dispose()
    get_engine.cache_clear()
    forget_secrets()


def muse(*args: str) -> Written:
    result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    try:
        data = json.loads(result.stdout)
    except ValueError:
        data = None
    return Written(result.exit_code, result.output, data)


def write(*extra: str) -> Written:
    return muse("write", str(NEXT), "-p", "stub", "-m", "deepseek-chat", "--json", *extra)


def the_run(engine) -> dict:
    with engine.connect() as conn:
        return dict(conn.execute(select(runs)).one()._mapping)


def receipts(engine) -> list[dict]:
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT status, error FROM model_calls ORDER BY started_at"))
        return [dict(r._mapping) for r in rows]


def everything_stored(engine) -> str:
    """Every row of every table, as text: a secret must appear nowhere."""
    parts = []
    with engine.connect() as conn:
        for table in metadata.sorted_tables:
            parts.extend(str(tuple(row)) for row in conn.execute(select(table)))
    return "\n".join(parts)


def draft(*paragraphs: str) -> dict:
    return {"paragraphs": list(paragraphs), "claims": [], "newSettingDeclarations": []}


@pytest.mark.parametrize("stub", ["env", "config"], indirect=True)
def test_a_key_echoed_in_an_error_body_is_stored_and_printed_nowhere(stub, engine):
    stub.status(401, {"error": {"message": f"Incorrect API key provided: {SECRET}"}})
    written = write()
    assert written.code == 4, written.output
    assert written.data["state"] == "failed" and "密钥无效" in written.data["reason"]
    assert SECRET not in written.output and "[已隐去]" in written.output
    run = the_run(engine)
    assert run["state"] == "failed" and "[已隐去]" in run["reason"]
    assert SECRET not in everything_stored(engine)
    for command in (["runs", "--json"], ["runs"], ["run", "show", run["id"], "--json"]):
        shown = muse(*command)
        assert shown.code == 0 and "失败" in shown.output
        assert SECRET not in shown.output, command


def test_a_key_echoed_in_reply_content_never_reaches_the_candidate(stub, engine):
    stub.reply_json(EXPLORE)
    stub.reply_json(draft(f"他推开门，雨声扑面而来。门后的纸条上写着 {SECRET}。"))
    for _ in range(6):  # the detector and anything after it: refused, no retries
        stub.status(400, {"error": {"message": f"no thanks {SECRET}"}})
    written = write("--max-rewrites", "0")
    assert written.data is not None, written.output
    with engine.connect() as conn:
        bodies = [r.body for r in conn.execute(select(candidates.c.body))]
    assert bodies and all("[已隐去]" in b for b in bodies)
    assert SECRET not in everything_stored(engine) and SECRET not in written.output


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


HOSTILE = {
    # a reply body nested deeper than the JSON parser's recursion limit
    "nested_envelope": lambda s: s.raw(('{"x": ' + _nested(100_000) + "}").encode()),
    # reply content nested that deep, twice (the repair request gets the same)
    "nested_content": lambda s: s.reply('{"paragraphs": ' + _nested(100_000) + "}").reply(
        '{"paragraphs": ' + _nested(100_000) + "}"
    ),
    # a token count that fits no integer column
    "usage_overflow": lambda s: s.reply_json(EXPLORE, usage=(10**20, 10**20)),
    # an escaped lone surrogate, twice
    "lone_surrogate": lambda s: s.reply('{"reads": [], "notes": "\\ud800"}').reply(
        '{"reads": [], "notes": "\\udfff"}'
    ),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_reply_ends_the_run_failed_at_once_with_a_receipt(stub, engine, case):
    HOSTILE[case](stub)
    written = write()
    assert written.code == 4, written.output
    run = the_run(engine)
    assert run["state"] == "failed", run
    assert "失败" in run["reason"] or "出错" in run["reason"], run["reason"]
    stored = receipts(engine)
    assert stored and stored[0]["status"] != "ok" and stored[0]["error"]
    assert "Traceback" not in written.output


def test_a_nul_in_the_prose_is_refused_with_the_character_named(stub, engine):
    stub.reply_json(EXPLORE)
    stub.reply_json(draft("他推开门，\u0000雨声扑面而来。"))
    stub.reply_json(draft("他推开门，\u0000雨声扑面而来。"))
    written = write()
    assert written.code == 4, written.output
    run = the_run(engine)
    assert run["state"] == "failed" and "NUL" in run["reason"], run["reason"]
    with engine.connect() as conn:
        assert conn.execute(select(candidates)).first() is None
    repair = stub.requests[2].body["messages"][-1]["content"]
    assert "NUL" in repair and "第 1 段" in repair


@pytest.mark.parametrize(
    ("key", "problem"),
    [(SECRET + "\n", "换行"), ("sk-密钥-0123456789", "非 ASCII")],
)
def test_a_malformed_key_is_named_and_the_run_ends_failed(stub, engine, monkeypatch, key, problem):
    monkeypatch.setenv("STUB_API_KEY", key)
    written = write()
    assert written.code == 4, written.output
    assert problem in written.data["reason"] and "STUB_API_KEY" in written.data["reason"]
    assert receipts(engine)[0]["status"] == "config_error"
    assert stub.requests == []


def test_a_slow_drip_reply_is_bounded_by_the_call_deadline(stub, engine, monkeypatch):
    monkeypatch.setenv("MUSE_NODE_DEADLINES", "retrieving=2")
    body = json.dumps({"choices": [{"message": {"content": json.dumps(EXPLORE)}}]})
    stub.drip(body.encode(), every_s=0.3)  # each read well inside 2 s, the whole reply ~30 s
    started = time.monotonic()
    written = write()
    elapsed = time.monotonic() - started
    assert written.code in (4, 5), written.output
    assert "超时" in written.data["reason"], written.data["reason"]
    assert elapsed < 20, elapsed  # far below the whole reply, with room for a loaded machine
    assert receipts(engine)[0]["status"] == "timeout"
