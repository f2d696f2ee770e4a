"""Card builders and the committed 西游记 work (real excerpts, ``tests/knowledge/xiyouji.py``):
the knowledge tests' cards, and the work an author's edit must keep consistent (works, flow).

:func:`make_xiyou` commits the work with a search index and a confirmed card whose references
point into chapters 1 and 2.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, select

from muse.context.search import rebuild_index
from muse.knowledge.cards import insert_card
from muse.knowledge.contracts import CardSpec, CardStatus
from muse.knowledge.source_refs import ChapterTexts, locate_quote
from muse.knowledge.tables import source_refs
from muse.store.tables import jobs
from muse.works.canonical import add_chapter
from muse.works.catalog import create_work
from tests.knowledge.xiyouji import CHAPTERS


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


def make_xiyou(engine: Engine) -> int:
    with engine.begin() as conn:
        work_id = create_work(conn, "西游记")
        for number, (title, text) in CHAPTERS.items():
            add_chapter(conn, work_id, number, title, text)
        texts = ChapterTexts(conn, work_id)
        refs = [locate_quote(texts, 1, "石猴"), locate_quote(texts, 2, "菩提")]
        insert_card(conn, work_id, spec(refs=refs), CardStatus.confirmed)
        rebuild_index(conn, work_id)
    return work_id


def ref_state(engine: Engine, work_id: int) -> dict[tuple[int, str], tuple[bool, int]]:
    """(chapter, quote) → (stale, chapter revision) of every reference of the work."""
    with engine.connect() as conn:
        rows = conn.execute(select(source_refs).where(source_refs.c.work_id == work_id))
        return {(r.chapter, r.quote): (bool(r.stale), r.chapter_revision) for r in rows}


def extract_jobs(engine: Engine) -> list[dict[str, Any]]:
    with engine.connect() as conn:
        rows = conn.execute(
            select(jobs.c.payload)
            .where(jobs.c.kind == "extract_chapter")
            .order_by(jobs.c.created_at)
        )
        return [dict(r.payload) for r in rows]
