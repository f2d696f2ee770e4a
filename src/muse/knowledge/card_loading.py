"""Building a whole book of objects at once: the cycle collector paused meanwhile.

Reading stored cards (card_rows.py: plain rows, models without re-validation) and preparing the
as-of rules (state_prepared.py) each make hundreds of thousands of small objects.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def many_objects() -> Iterator[None]:
    """Pause the cycle collector while a whole book of cards is built.

    A book is hundreds of thousands of small acyclic objects; each full collection would rescan
    the growing heap, which doubles the time of a large load. Nothing here makes cycles, so
    nothing is lost; the collector resumes as it was.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
