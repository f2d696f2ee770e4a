"""The replay lexicon: names and terms whose first appearance in the book is after the freeze point.

Computed by the harness from the whole book, later chapters (the oracle) included, and handed to
the mechanical future-leak gate only (``check_lexicons(leak_terms=…)``); it is never part of any
model input, and a verdict resting on it is never sent back to the writer as a revision line
(``arm_detection.oracle_findings``). Its terms are

* the work's card names and aliases, and
* the names and aliases that the model-free discovery of the book proposes
  (``muse.knowledge.discovery.discover``: 2–4 Han character strings the book repeats, holding
  together and standing free, used as speakers, places, items…), kept only when the book uses
  them like a name: mentioned at least :data:`MIN_MENTIONS` times and on average at least
  :data:`MIN_DENSITY` times in each chapter that has them, or introduced (「名叫…」「字…」).
  A phrase a narrator uses once here and once there (「齐声」「登山」) is not a name of the book,
  and flagging it would be a false leak.

A term first written in chapter N or later is a future name at as_of = N − 1. The discovery of a
book is computed once per process for the same chapter texts (about 16 s for 西游记's 100 回).
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence

from sqlalchemy import Connection

from muse.knowledge import DiscoveredEntity, discover, term_appearances
from muse.works import iter_chapter_texts

MIN_MENTIONS = 3
MIN_DENSITY = 2.0
_INTRODUCED = "介绍句"

_lock = threading.Lock()
_first_seen: dict[tuple[int, str], dict[str, int]] = {}


def _name_like(entity: DiscoveredEntity, chapters: Sequence[tuple[int, str]]) -> bool:
    if entity.mentions < MIN_MENTIONS:
        return False
    if any(_INTRODUCED in e for e in entity.evidence):
        return True
    holding = sum(1 for _, text in chapters if entity.name in text)
    return holding > 0 and entity.mentions / holding >= MIN_DENSITY


def discovered_terms(chapters: Sequence[tuple[int, str]]) -> set[str]:
    """The names (and suggested aliases) the discovery finds name-like in ``chapters``."""
    terms: set[str] = set()
    for entity in discover(chapters):
        if _name_like(entity, chapters):
            terms.add(entity.name)
            terms.update(a.name for a in entity.aliases if a.mentions >= MIN_MENTIONS)
    return terms


def _first_appearances(terms: set[str], chapters: Sequence[tuple[int, str]]) -> dict[str, int]:
    first: dict[str, int] = {}
    for number, text in sorted(chapters):
        for term in terms:
            if term not in first and term in text:
                first[term] = number
    return first


def _book_first_seen(work_id: int, chapters: list[tuple[int, str]]) -> dict[str, int]:
    digest = hashlib.sha256()
    for number, text in chapters:
        digest.update(f"{number}\n{text}\n".encode())
    key = (work_id, digest.hexdigest())
    with _lock:
        cached = _first_seen.get(key)
    if cached is None:
        cached = _first_appearances(discovered_terms(chapters), chapters)
        with _lock:
            _first_seen[key] = cached
    return cached


def replay_lexicon(conn: Connection, work_id: int, as_of: int) -> list[tuple[str, int]]:
    """(term, chapter of its first appearance) for every term first written after ``as_of``."""
    chapters = [(c.number, c.text) for c in iter_chapter_texts(conn, work_id)]
    cards = {a.term.strip() for a in term_appearances(conn, work_id) if a.term.strip()}
    first = dict(_book_first_seen(work_id, chapters))
    for term, number in _first_appearances(cards, chapters).items():
        first[term] = min(number, first.get(term, number))
    return sorted((t, n) for t, n in first.items() if n > as_of)
