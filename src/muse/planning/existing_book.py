"""Planning the continuation of an imported book (spec 001 §1A on a work that already has prose).

An author who imports a 121-chapter manuscript and plans its continuation must get a 定盘 and an
outline that start from what exists: the planner's input carries a summary of the canonical book
(:func:`book_summary`: chapter and volume counts, the volumes' chapter ranges, chapter titles,
the typical chapter length, the confirmed main cards), and the gates refuse a plan the book has
already outgrown (registered in ``checks_upper.CHECKS``): a target of 120 chapters for a book of 121, fewer volumes than
the book has, or an outline whose volumes end before the last written chapter.

The summary reads the canonical chapter list as it stands (the book's own past, nothing planned).
"""

from __future__ import annotations

from collections.abc import Iterator
from statistics import median
from typing import Any

from muse.knowledge import load_cards
from muse.planning.findings import Finding, error
from muse.planning.plan_view import PlanView
from muse.planning.sections import Section
from muse.planning.stage_contracts import WorkFoundation, WorkOutline
from muse.works import list_chapters

TITLES_SHOWN = 40
CARDS_SHOWN = 30


def existing_volumes(view: PlanView) -> list[dict[str, Any]]:
    """The book's volumes in order with their first and last chapter (unnamed runs merged)."""
    volumes: list[dict[str, Any]] = []
    for c in list_chapters(view.conn, view.work_id):
        if c.volume is None:
            continue
        if volumes and volumes[-1]["name"] == c.volume:
            volumes[-1]["lastChapter"] = c.number
        else:
            volumes.append({"name": c.volume, "firstChapter": c.number, "lastChapter": c.number})
    return volumes


def book_summary(view: PlanView) -> dict[str, Any] | None:
    """What the planner must continue from; None for a work without canonical chapters."""
    chapters = list_chapters(view.conn, view.work_id)
    if not chapters:
        return None
    titles = [{"chapter": c.number, "title": c.title} for c in chapters]
    if len(titles) > TITLES_SHOWN:
        titles = titles[: TITLES_SHOWN // 2] + titles[-TITLES_SHOWN // 2 :]
    cards = load_cards(view.conn, view.work_id)
    return {
        "chapterCount": len(chapters),
        "latestChapter": chapters[-1].number,
        "volumeCount": len(existing_volumes(view)),
        "volumes": existing_volumes(view),
        "medianChapterHan": int(median(c.han_count for c in chapters)),
        "chapterTitles": titles,
        "confirmedCards": [{"name": c.name, "type": c.type} for c in cards[:CARDS_SHOWN]],
        "rule": "续写：目标章数与分卷必须容纳已有正文，规划从已有章节之后接续。",
    }


def foundation_fits_book(
    view: PlanView, f: WorkFoundation, _s: Section | None
) -> Iterator[Finding]:
    written = view.latest_chapter
    lt = f.length_target
    if written and lt.target_chapters < written:
        yield error(
            "target_below_book",
            f"目标章数 {lt.target_chapters} 少于已有正文的 {written} 章：续写的规划必须容纳已写部分",
            field="length_target.target_chapters",
        )
    volumes = len(existing_volumes(view)) if written else 0
    if volumes and lt.volume_count < volumes:
        yield error(
            "volumes_below_book",
            f"分卷数 {lt.volume_count} 少于已有正文的 {volumes} 卷",
            field="length_target.volume_count",
        )


def outline_fits_book(view: PlanView, o: WorkOutline, _s: Section | None) -> Iterator[Finding]:
    written = view.latest_chapter
    end = max((v.last_chapter for v in o.volumes), default=0)
    if written and end < written:
        yield error(
            "outline_below_book",
            f"卷纲只排到第 {end} 章，已有正文已到第 {written} 章：各卷须覆盖已写章节",
            field="volumes",
        )
