"""What writing a chapter costs a process once, paid by a resident process when it starts.

A process pays three things on its first chapter and never again: loading the modules of the
write, rjieba's part-of-speech model (built on the first text that holds a word outside its
dictionary, ~180 M instructions, the largest), and pydantic's build of each contract on its first
use (the contracts defer it so that a command starts fast: ``muse --help`` builds none).

``muse write`` is one chapter per process and pays them within the write either way. ``muse
serve`` writes many chapters in one process, so it pays them at start (:func:`warm_up`), before
its first request: the author's first chapter costs what every later one does.
``bench/chapter_cycle.py`` warms its process the same way and prints what it cost.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import muse.flow.production  # noqa: F401  (the write's modules, loaded here, not on its first run)
from muse.core.contract import Contract
from muse.core.segmentation import shared_jieba

# a word jieba's dictionary lacks (青石镇), so that tagging it loads the part-of-speech model
_UNKNOWN_WORD = "林远走进青石镇。"


@dataclass(frozen=True)
class WarmUp:
    contracts: int  # contracts built
    cpu_ms: float  # CPU the warm-up took


def warm_up() -> WarmUp:
    """Load the tagger and its part-of-speech model, and build every contract not yet built."""
    started = time.process_time()
    shared_jieba().tag(_UNKNOWN_WORD, hmm=True)
    built = 0
    for model in _contracts():
        if not model.__pydantic_complete__:
            model.model_rebuild()
            built += 1
    return WarmUp(built, (time.process_time() - started) * 1000)


def _contracts() -> list[type[Contract]]:
    """Every subclass of :class:`Contract` defined by the modules loaded so far."""
    found: list[type[Contract]] = []
    pending = [Contract]
    while pending:
        for sub in pending.pop().__subclasses__():
            if sub not in found:
                found.append(sub)
                pending.append(sub)
    return found
