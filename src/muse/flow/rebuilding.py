"""``muse rebuild``: recompute everything derived from canonical text, from canonical text alone.

Canonical prose (``prose_blocks`` at ``chapters.current_revision``) is the only authority
(ARCHITECTURE.md §1); three things are derived from it and may drift if a process, a bug or a
hand-edited database row got them wrong:

* the prose search index — rebuilt whole (``rebuild_index``);
* the validity of every source reference of cards and facts — every span re-hashed against its
  chapter's current text, trusting no stored flag: stale ones marked, valid ones restored;
* the setting ledger's consumption matrix (setting × chapter) — not stored; recomputed here so
  the report shows what it holds now.

It lives in flow because it reaches three domains (works, context, knowledge). One transaction
per work. Running it twice gives the same derived rows and, the second time,
nothing newly stale or restored: it is idempotent.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from sqlalchemy import Connection, Engine

from muse.context import rebuild_index
from muse.knowledge import drop_book, revalidate_source_refs, setting_ledger, stale_ref_count
from muse.works import get_work_row, work_ids


@dataclass(frozen=True)
class RebuildSummary:
    work_id: int
    title: str
    chapters: int
    index_version: str
    index_chunks: int
    refs_checked: int
    refs_stale: int  # stale after the rebuild
    refs_newly_stale: int
    refs_restored: int
    refs_reanchored: int
    ledger_cards: int
    ledger_mentions: int  # name/alias occurrences over all chapters
    ledger_untouched: int  # confirmed cards no chapter mentions

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


REBUILD_STEPS = ("检索索引", "出处有效性", "设定台账")
Progress = Callable[[str, int, int], None]  # (what is being done, steps done, steps in all)


def rebuild_work(
    conn: Connection, work_id: int, step: Callable[[str], None] | None = None
) -> RebuildSummary:
    """Recompute the derived data of one work in the caller's transaction; ``step`` is told
    which of ``REBUILD_STEPS`` starts next."""
    step = step or (lambda _label: None)
    work = get_work_row(conn, work_id)
    step(REBUILD_STEPS[0])
    index = rebuild_index(conn, work_id)
    step(REBUILD_STEPS[1])
    refs = revalidate_source_refs(conn, work_id, recheck=True)
    drop_book(conn, work_id)  # the stored card book is derived too: the next read rebuilds it
    step(REBUILD_STEPS[2])
    ledger = setting_ledger(conn, work_id)
    return RebuildSummary(
        work_id=work_id,
        title=work.title,
        chapters=index.chapters,
        index_version=index.index_version,
        index_chunks=index.chunks,
        refs_checked=refs.checked,
        refs_stale=_stale_count(conn, work_id),
        refs_newly_stale=len(refs.newly_stale),
        refs_restored=refs.restored,
        refs_reanchored=refs.reanchored,
        ledger_cards=len(ledger.rows),
        ledger_mentions=sum(row.total for row in ledger.rows),
        ledger_untouched=len(ledger.untouched),
    )


def rebuild(
    engine: Engine, work_id: int | None = None, progress: Progress | None = None
) -> list[RebuildSummary]:
    """Rebuild one work, or every work (each in its own transaction). ``progress`` gets
    (label, steps done, total steps) before each step and once more when all are done."""
    if work_id is not None:
        ids = [work_id]
    else:
        with engine.connect() as conn:
            ids = work_ids(conn)
    total = len(ids) * len(REBUILD_STEPS)
    done = 0

    def step(label: str) -> None:
        nonlocal done
        if progress is not None:
            progress(label, done, total)
        done += 1

    summaries = []
    for wid in ids:
        with engine.begin() as conn:
            summaries.append(rebuild_work(conn, wid, step))
    if progress is not None:
        progress("完成", total, total)
    return summaries


def _stale_count(conn: Connection, work_id: int) -> int:
    return stale_ref_count(conn, work_id)
