"""Fixtures of the knowledge tests: a work holding real 西游记 excerpts, and card builders."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import Connection, Engine

from muse.knowledge.contracts import CardSpec
from muse.works.canonical import add_chapter
from muse.works.catalog import create_work
from tests.knowledge.xiyouji import CHAPTERS


@pytest.fixture
def conn(engine: Engine) -> Iterator[Connection]:
    """One transaction per test, rolled back at the end (the database is fresh anyway)."""
    with engine.connect() as connection, connection.begin() as tx:
        yield connection
        tx.rollback()


@pytest.fixture
def work(conn: Connection) -> int:
    work_id = create_work(conn, "西游记")
    for number, (title, text) in CHAPTERS.items():
        add_chapter(conn, work_id, number, title, text)
    return work_id


def text_of(chapter: int) -> str:
    return CHAPTERS[chapter][1]


def spec(name: str = "孙悟空", type: str = "character", **parts) -> CardSpec:
    """A valid card: required fields filled in unless ``fields`` says otherwise."""
    defaults = {
        "character": {
            "summary": {"value": "花果山石猴"},
            "identity": {"value": "美猴王"},
            "personality": {"value": "桀骜不驯"},
        },
        "artifact": {
            "summary": {"value": "东海镇海神针"},
            "grade": {"value": "神器"},
            "powers": {"value": ["变化大小"]},
        },
        "world": {"summary": {"value": "四大部洲"}, "setting_era": {"value": "上古"}},
        "secret": {"summary": {"value": "谜"}, "truth": {"value": "真相"}},
        "location": {"summary": {"value": "仙山"}, "region": {"value": "东胜神洲"}},
        "term": {"summary": {"value": "名词"}, "definition": {"value": "释义"}},
    }
    fields = parts.pop("fields", None)
    if fields is None:
        fields = defaults[type]
    parts["aliases"] = [{"name": a} if isinstance(a, str) else a for a in parts.get("aliases", [])]
    return CardSpec.model_validate({"type": type, "name": name, "fields": fields, **parts})
