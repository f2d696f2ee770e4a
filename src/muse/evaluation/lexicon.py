"""The replay lexicon: names whose first appearance in the book is after the freeze point.

Computed by the harness from the later chapters (the oracle) and handed to the mechanical
future-leak gate only (``check_lexicons(leak_terms=…)``); it is never part of any model input.
The candidate terms are the work's card names and aliases; a term first written in chapter
N or later is a future name at as_of = N − 1.
"""

from __future__ import annotations

from sqlalchemy import Connection

from muse.knowledge import term_appearances
from muse.works import iter_chapter_texts


def replay_lexicon(conn: Connection, work_id: int, as_of: int) -> list[tuple[str, int]]:
    terms = sorted({a.term.strip() for a in term_appearances(conn, work_id) if a.term.strip()})
    first: dict[str, int] = {}
    for chapter in iter_chapter_texts(conn, work_id):
        for term in terms:
            if term not in first and term in chapter.text:
                first[term] = chapter.number
    return sorted((t, n) for t, n in first.items() if n > as_of)
