"""Two marked books (8 chapters each) and a stub model server for whole evaluation runs.

Chapters 6–8 of both books carry the oracle canary: a sample targets chapter 6 (as_of 5), so
nothing of chapters 6 onward may reach any model.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from muse.agents.providers.presets import PRESETS
from tests.evaluation.harness import SECRET, Router, make_books, start_router
from tests.support.stub_server import StubServer


@pytest.fixture
def books(engine) -> dict[str, int]:
    return make_books(engine)


@pytest.fixture
def stub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[StubServer]:
    server = StubServer().start()
    path = tmp_path / "config.toml"
    path.write_text(
        f'[providers.stub]\nbase_url = "{server.url}"\napi_key_env = "STUB_API_KEY"\n'
        "supports_json_schema = true\nsupports_tools = false\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("MUSE_CONFIG", str(path))
    monkeypatch.setenv("STUB_API_KEY", SECRET)
    for preset in PRESETS.values():
        if preset.key_env:
            monkeypatch.delenv(preset.key_env, raising=False)
    yield server
    server.stop()


@pytest.fixture
def router(stub) -> Router:
    return start_router(stub)
