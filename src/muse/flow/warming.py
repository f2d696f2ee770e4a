"""What writing a chapter costs a process once, paid by a resident process when it starts.

A process pays these on its first chapter and never again: loading the modules of the write,
rjieba's part-of-speech model (built on the first text that holds a word outside its dictionary,
~180 M instructions, the largest), pydantic's build of each contract on its first use (the
contracts defer it so that a command starts fast: ``muse --help`` builds none), the JSON schema
of each output contract and tool the write's model calls are given (``agents.schemas`` keeps one
per process; ~20 M instructions for the seven), rjieba's version (read from its installed
metadata, part of the search index's version), and, per engine, the compilation of each
statement the write runs (``store.prepared``: ~60 of them, ~130 M instructions).

``muse write`` is one chapter per process and pays them within the write either way. ``muse
serve`` writes many chapters in one process, so it pays them at start (:func:`warm_up`), before
its first request: the author's first chapter costs what every later one does.
``bench/chapter_cycle.py`` warms its process the same way and prints what it cost.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from pydantic import BaseModel
from sqlalchemy import Engine

import muse.flow.production  # noqa: F401  (the write's modules, loaded here, not on its first run)
from muse.agents import TOOL_SPECS, json_schema
from muse.context import ExploreDraft, WriterDraft
from muse.core.contract import Contract
from muse.core.segmentation import rjieba_version, shared_jieba
from muse.flow.zones import production_form
from muse.quality import DetectorReport
from muse.store.prepared import precompile

# what the write's model calls are given as schemas: the explorer's, the writer's and the
# detector's output contracts, and the arguments of every read-only tool the explorer is offered
_WRITE_OUTPUTS = (ExploreDraft, WriterDraft, DetectorReport)

# a word jieba's dictionary lacks (青石镇), so that tagging it loads the part-of-speech model
_UNKNOWN_WORD = "林远走进青石镇。"


@dataclass(frozen=True)
class WarmUp:
    contracts: int  # contracts built
    schemas: int  # JSON schemas made (output contracts and tool arguments)
    cpu_ms: float  # CPU the warm-up took
    statements: int = 0  # prepared statements compiled for the engine


def warm_up(engine: Engine | None = None) -> WarmUp:
    """Load the tagger and its part-of-speech model, build every contract not yet built and
    the JSON schemas of the write's model calls, read rjieba's version, and with ``engine``
    compile every prepared statement (``store.prepared``) for it, each in the form its
    execution takes (a SELECT of the production zone's tables rewritten by ``flow.zones``)."""
    started = time.process_time()
    shared_jieba().tag(_UNKNOWN_WORD, hmm=True)
    rjieba_version()
    built = 0
    for model in _contracts():
        if not model.__pydantic_complete__:
            model.model_rebuild()
            built += 1
    outputs: tuple[type[BaseModel], ...] = (
        *_WRITE_OUTPUTS,
        *(s.arguments for s in TOOL_SPECS.values()),
    )
    schemas = dict.fromkeys(outputs)
    for schema_of in schemas:
        json_schema(schema_of)
    statements = 0 if engine is None else precompile(engine, production_form)
    return WarmUp(built, len(schemas), (time.process_time() - started) * 1000, statements)


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
