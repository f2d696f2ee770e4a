"""The workbench under test: the demo work (西游记 1–4, cards, a confirmed outline for 5) on the
backend under test, a candidate for chapter 5 written by the offline writer with one sentence
that the mechanical gate flags (an unknown title) so a finding can be highlighted, and a client
that talks to the app the way a local browser does (loopback address, the CSRF token)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
import yaml
from fastapi.testclient import TestClient

from muse.flow.production import write_chapter
from muse.knowledge.card_import import import_cards_yaml
from muse.planning.fine_outlines import confirm_section, save_fine_outline
from muse.web import WebSecurity, create_app
from muse.web.tasks import wait_for_tasks
from muse.works.importer import import_book
from tests.support.fakes import Scripts
from tests.support.prepared import Prepared
from tests.web.helpers import FACT_SENTENCE, FLAGGED_SENTENCE, demo_file


@pytest.fixture
def flagged_writer(scripted: Scripts) -> None:
    """The offline writer, plus one sentence the mechanical gate flags but does not block."""

    def flag(draft: dict) -> dict:
        paragraphs = draft["paragraphs"]
        return {
            **draft,
            "paragraphs": [*paragraphs[:-1], FLAGGED_SENTENCE, FACT_SENTENCE, paragraphs[-1]],
        }

    scripted("writer", "generate").edit(flag)


@pytest.fixture(scope="session")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> Prepared:
    return Prepared(tmp_path_factory.mktemp("prepared"))


@pytest.fixture
def work_id(engine, prepared) -> int:
    return prepared.get("demo-work", engine, lambda: _demo_work(engine))


def _demo_work(engine) -> int:
    report = import_book(
        engine, demo_file("xiyouji_1-4.txt"), title="西游记（前四回）", source_kind="public_domain"
    )
    assert report.work_id is not None
    with engine.begin() as conn:
        import_cards_yaml(
            conn,
            report.work_id,
            demo_file("cards.yaml").decode(),
            filename="cards.yaml",
            confirm=True,
        )
        section = save_fine_outline(
            conn, report.work_id, yaml.safe_load(demo_file("fine_outline_5.yaml"))
        )
        confirm_section(conn, section)
    return report.work_id


@dataclass(frozen=True)
class Written:
    work_id: int
    run_id: str
    candidate_id: str


@pytest.fixture
def written(engine, work_id, flagged_writer, prepared) -> Written:
    return prepared.get("demo-written", engine, lambda: _write_five(engine, work_id))


def _write_five(engine, work_id: int) -> Written:
    summary = write_chapter(engine, work_id, 5, provider="offline", model="offline-1")
    assert summary.state == "shadow_ready", summary.reason
    assert summary.candidate_id is not None
    return Written(work_id, summary.run_id, summary.candidate_id)


@pytest.fixture(autouse=True)
def _background_tasks_end(engine) -> Iterator[None]:
    """Every write a test started from a page ends before the test's database is emptied (a
    thread that stores its last event after the reset broke the next test's sequence)."""
    yield
    assert wait_for_tasks(timeout=60), "a background task outlived its test by 60 s"


@pytest.fixture
def app(engine):
    return create_app(engine, WebSecurity())


@pytest.fixture
def client(app) -> TestClient:
    return TestClient(app, base_url="http://127.0.0.1:8765", client=("127.0.0.1", 50000))


@pytest.fixture
def csrf(app) -> str:
    return app.state.security.csrf_token
