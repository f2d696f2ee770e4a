"""Building a whole book of objects at once: the cycle collector paused meanwhile, and a book
that is kept moved out of its reach.

Reading stored cards (speed/rows.py: plain rows, models without re-validation) and preparing the
as-of rules (speed/prepared.py) each make hundreds of thousands of small objects.

Why a kept book is frozen (``gc.freeze``). The collector finds garbage *cycles*; it does so by
scanning every container object it tracks. A 5,000-card book is some 800,000 of them, and none
can ever be part of a cycle: rows are tuples of atoms and tuples, models hold rows' values, the
prepared rules hold tuples and models, and nothing refers back to what holds it. Yet the
collector would scan them all on its first pass after the build (a quarter of a second, in the
middle of the first read) and again at every full collection for as long as the card cache
keeps them (up to seconds in a long process). Freezing moves every tracked object into the
permanent generation, which the collector never scans; refcounting still frees frozen objects
as usual, so an evicted book goes away as it would have.

The cost: what else was alive at that moment is frozen too, and such an object that *later*
becomes part of a garbage cycle is never reclaimed. To keep that small, the young generations
are collected just before the build (cheap: a few thousand objects at most); garbage already
in the oldest generation, and cycles formed later among objects alive then, are what may leak —
bounded by the heap at the time of a cache miss, and only once per new book (a change of the
cards), not per read. A process that wants them back may call ``gc.unfreeze()`` and collect.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

FREEZE_AT_LEAST = 50_000  # new objects: below this, the collector's pass is cheap anyway

_lock = threading.Lock()
_depth = 0  # open many_objects blocks, in any thread (the collector is process-wide)
_was_enabled = True
_freeze_requested = False
_after: list[Callable[[], None]] = []


@contextmanager
def many_objects() -> Iterator[None]:
    """Pause the cycle collector while a whole book of cards is built.

    A book is hundreds of thousands of small acyclic objects; each full collection would rescan
    the growing heap, which doubles the time of a large load. Nothing here makes cycles, so
    nothing is lost; the collector resumes as it was. Blocks nest: the outermost one decides.
    If a block inside asked for it (:func:`keep_built`), the outermost one freezes what was
    built when it ends (see the module's docstring), then runs what :func:`after_build` left.
    """
    global _depth, _was_enabled, _freeze_requested
    with _lock:
        if _depth == 0:
            _was_enabled, _freeze_requested = gc.isenabled(), False
        _depth += 1
        gc.disable()
    try:
        yield
    finally:
        later: list[Callable[[], None]] = []
        with _lock:
            _depth -= 1
            if _depth == 0:
                if _was_enabled and _freeze_requested and gc.get_count()[0] >= FREEZE_AT_LEAST:
                    gc.freeze()
                _freeze_requested = False
                if _was_enabled:
                    gc.enable()
                later = _after[:]
                _after.clear()
        for action in later:
            action()


def keep_built() -> None:
    """Ask the enclosing :func:`many_objects` to freeze what it built: a book loaded into the
    card cache (and what the first read derives from it), kept until the cards change.

    The young generations are collected now, before the book exists, so that the garbage they
    hold is not frozen with it.
    """
    global _freeze_requested
    with _lock:
        if not _depth or _freeze_requested:
            return
        _freeze_requested = True
    gc.collect(1)


def after_build(action: Callable[[], None]) -> None:
    """Run ``action`` when the outermost :func:`many_objects` block ends (now if none is open):
    work that may wait until the reader has its result (storing the card book)."""
    with _lock:
        if _depth:
            _after.append(action)
            return
    action()
