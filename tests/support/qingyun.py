"""青云记: three chapters, confirmed cards (林远, 苏晴) and a fine outline for chapter 4 whose
events are plain state sentences the offline extractor recognises (``muse/offline/extractor.py``):
the book of the worker's post-chapter extraction tests, reused by the flow and CLI tests."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection

from muse.knowledge.cards import insert_card
from muse.knowledge.contracts import CardSpec, CardStatus
from muse.planning.fine_outlines import confirm_section, save_fine_outline
from muse.works.canonical import add_chapter
from muse.works.catalog import create_work

CHAPTERS = 3
NEXT = CHAPTERS + 1

# Sentences the offline extractor recognises (offline/extractor.py).
EVENT_ARRIVE = "林远来到青云山门"
EVENT_GAIN = "林远得到了一枚玉佩"
RESULT = "林远突破到炼气三层"
EVENT_NEWCOMER = "一个名叫石敢的少年拦住去路"  # a new card (石敢)
EVENT_IDENTITY = "林远是青云宗内门弟子"  # contradicts the confirmed 身份 (外门弟子): a conflict


def chapter_text(n: int) -> str:
    return (
        f"林远在第{n}章里行走山间，溪水潺潺流淌。" + "山风吹过松林，落叶纷纷。" * 60 + "\n"
        "“走吧。”苏晴说道。\n" + "他们继续赶路，天色渐晚。" * 20
    )


def fine_outline(chapter: int) -> dict[str, Any]:
    return {
        "target_chapter": chapter,
        "title": f"第{chapter}章",
        "hard_constraints": {
            "hard_events": [
                {"id": "H1", "text": EVENT_ARRIVE},
                {"id": "H2", "text": EVENT_GAIN},
                {"id": "H3", "text": EVENT_NEWCOMER},
                {"id": "H4", "text": EVENT_IDENTITY},
            ],
            "result_direction": {"id": "R1", "text": RESULT},
            "foreshadowing": [
                {"id": "F1", "action": "推", "thread": "玉佩", "text": "玉佩微微发热"}
            ],
            "chapter_end_hook": {"id": "K1", "text": "山门后传来一声钟响"},
            "required_entities": [{"id": "E1", "name": "林远"}, {"id": "E2", "name": "苏晴"}],
        },
    }


def character(name: str, identity: str, aliases: tuple[str, ...] = ()) -> CardSpec:
    return CardSpec.model_validate(
        {
            "type": "character",
            "name": name,
            "aliases": [{"name": a} for a in aliases],
            "fields": {
                "summary": {"value": f"{name}，本书人物"},
                "identity": {"value": identity},
                "personality": {"value": "沉稳"},
            },
        }
    )


def make_book(conn: Connection) -> int:
    work_id = create_work(conn, "青云记", default_chapter_chars=2500)
    for n in range(1, CHAPTERS + 1):
        add_chapter(conn, work_id, n, f"第{n}章", chapter_text(n))
    confirm_section(conn, save_fine_outline(conn, work_id, fine_outline(NEXT)))
    insert_card(conn, work_id, character("林远", "青云宗外门弟子", ("小林",)), CardStatus.confirmed)
    insert_card(conn, work_id, character("苏晴", "药王谷传人"), CardStatus.confirmed)
    return work_id
