"""The workbench under test: the demo work (西游记 1–4, cards, a confirmed outline for 5) on the
backend under test, a candidate for chapter 5 written by the offline writer with one sentence
that the mechanical gate flags (an unknown title) so a finding can be highlighted, and a client
that talks to the app the way a local browser does (loopback address, the CSRF token)."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources

import pytest
import yaml
from fastapi.testclient import TestClient

from muse.agents.providers.offline import register_offline_generator, unregister_offline_generator
from muse.flow.production import write_chapter
from muse.knowledge.card_import import import_cards_yaml
from muse.offline import writer as offline_writer
from muse.planning.fine_outlines import confirm_section, save_fine_outline
from muse.web import WebSecurity, create_app
from muse.works.importer import import_book

FLAGGED = "《太虚真经》"  # a title nowhere in the context: an unknown_entity finding (medium)
FLAGGED_SENTENCE = f"石壁上隐隐现出{FLAGGED}四个古字，转瞬又不见了。"
FACT_SENTENCE = "孙悟空得到了一枚金丹。"  # a plain state sentence the offline extractor proposes


def _demo(name: str) -> bytes:
    return resources.files("muse.demo").joinpath(name).read_bytes()


@pytest.fixture
def flagged_writer():
    """The offline writer, plus one sentence the mechanical gate flags but does not block."""

    def generator(task_input, output_model):
        draft = offline_writer.write_chapter(task_input)
        if draft is None:
            return None
        paragraphs = draft["paragraphs"]
        return {
            **draft,
            "paragraphs": [*paragraphs[:-1], FLAGGED_SENTENCE, FACT_SENTENCE, paragraphs[-1]],
        }

    register_offline_generator("writer", "generate", generator)
    yield
    unregister_offline_generator("writer", "generate")


@pytest.fixture
def work_id(engine) -> int:
    report = import_book(
        engine, _demo("xiyouji_1-4.txt"), title="西游记（前四回）", source_kind="public_domain"
    )
    assert report.work_id is not None
    with engine.begin() as conn:
        import_cards_yaml(
            conn, report.work_id, _demo("cards.yaml").decode(), filename="cards.yaml", confirm=True
        )
        section = save_fine_outline(
            conn, report.work_id, yaml.safe_load(_demo("fine_outline_5.yaml"))
        )
        confirm_section(conn, section)
    return report.work_id


@dataclass(frozen=True)
class Written:
    work_id: int
    run_id: str
    candidate_id: str


@pytest.fixture
def written(engine, work_id, flagged_writer) -> Written:
    summary = write_chapter(engine, work_id, 5, provider="offline", model="offline-1")
    assert summary.state == "shadow_ready", summary.reason
    assert summary.candidate_id is not None
    return Written(work_id, summary.run_id, summary.candidate_id)


@pytest.fixture
def app(engine):
    return create_app(engine, WebSecurity())


@pytest.fixture
def client(app) -> TestClient:
    return TestClient(app, base_url="http://127.0.0.1:8765", client=("127.0.0.1", 50000))


@pytest.fixture
def csrf(app) -> str:
    return app.state.security.csrf_token
