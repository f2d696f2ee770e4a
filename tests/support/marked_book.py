"""The marked book: eight chapters, each carrying a unique marker so leaks are detectable, and
a fine outline per chapter (context, flow and quality tests; the CLI and works tests reuse it).

:func:`make_book` is the work ready for chapter 9 (``NEXT``): the eight chapters and the
confirmed fine outline of chapter 9.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine

from muse.planning.fine_outlines import confirm_section, save_fine_outline
from muse.works.canonical import add_chapter
from muse.works.catalog import create_work

CHAPTERS = 8
NEXT = CHAPTERS + 1


def marker(n: int) -> str:
    return f"标记{n:03d}号"


def chapter_text(n: int) -> str:
    body = f"林远在第{n}章里行走山间，{marker(n)}藏在此处。" + "山风吹过松林，溪水潺潺流淌。" * 40
    return body + "\n“走吧。”苏晴说道。\n" + "他们继续赶路，天色渐晚。" * 10


def fine_outline(chapter: int) -> dict[str, Any]:
    return {
        "target_chapter": chapter,
        "title": f"第{chapter}章",
        "hard_constraints": {
            "hard_events": [{"id": "H1", "text": "林远与苏晴在山门前分别"}],
            "result_direction": {"id": "R1", "text": "林远独自上山"},
            "foreshadowing": [
                {"id": "F1", "action": "推", "thread": "玉佩", "text": "玉佩微微发热"}
            ],
            "chapter_end_hook": {"id": "K1", "text": "山门后传来一声钟响"},
            "required_entities": [{"id": "E1", "name": "林远"}, {"id": "E2", "name": "苏晴"}],
        },
    }


def make_book(engine: Engine) -> int:
    """The marked book ready for chapter ``NEXT`` (its fine outline confirmed)."""
    with engine.begin() as conn:
        work_id = create_work(conn, "标记之书", default_chapter_chars=2500)
        for n in range(1, CHAPTERS + 1):
            add_chapter(conn, work_id, n, f"第{n}章", chapter_text(n))
        confirm_section(conn, save_fine_outline(conn, work_id, fine_outline(NEXT)))
    return work_id
