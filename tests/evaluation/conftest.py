"""Two marked books (8 chapters each) and a stub model server for whole evaluation runs.

Chapters 6–8 of both books carry the oracle canary: a sample targets chapter 6 (as_of 5), so
nothing of chapters 6 onward may reach any model.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select

from muse.agents.providers.presets import PRESETS
from muse.evaluation.preregistration import parse_set, preregister
from muse.evaluation.sample_state import zone_engine
from muse.evaluation.tables import eval_runs
from muse.works.canonical import add_chapter
from muse.works.catalog import create_work
from tests.agents.stub_server import StubServer
from tests.context.conftest import chapter_text
from tests.evaluation.harness import Router, start_router

CANARY = "金丝雀ORACLE-7f3e"
BOOKS = ("青云志", "山海录")
SECRET = "sk-stub-eval-2b9d"


def book_text(n: int) -> str:
    text = chapter_text(n)
    return text + (f"\n{CANARY}第{n}章的底牌。" if n >= 6 else "")


@pytest.fixture
def books(engine) -> dict[str, int]:
    ids = {}
    with engine.begin() as conn:
        for title in BOOKS:
            work_id = create_work(conn, title, default_chapter_chars=2500)
            for n in range(1, 9):
                add_chapter(conn, work_id, n, f"第{n}章", book_text(n))
            ids[title] = work_id
    return ids


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


def register(engine, text: str, router: Router | None = None) -> str:
    """Preregister ``text``; teach ``router`` which arm and sample each anonymous label is."""
    registered = preregister(engine, parse_set(text))
    if router is not None:
        with zone_engine(engine).connect() as conn:
            for row in conn.execute(
                select(eval_runs).where(eval_runs.c.set_id == registered.set_id)
            ):
                for arm, label in row.labels.items():
                    router.label_arm[label] = arm
                    router.label_sample[label] = row.sample_key
    return registered.set_id
