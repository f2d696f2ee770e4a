"""The offline provider's generators, for every role and task: the one place for fakes.

The provider itself (``muse.agents.providers.offline``) only holds the registry and the schema
fallback (``schema_sample``); what it answers for each (role, task) lives here:

    writer.py      writer/generate   a chapter built from the WriterContext alone
    explorer.py    writer/explore    reads derived from the fine outline
    extractor.py   extractor/extract post-chapter extraction by plain sentence patterns
    planner.py     planner/draft     the planning contracts, sized to pass the gates
    detector.py    detector/check    a valid report that checks nothing (quality's contract)
    judge.py       judge/score       seeded scores for the judge sheet (evaluation's contract)

Every generator builds its answer through the production contract the call asks for and hands
over its wire form (``wire.emit``), so the fakes cannot drift from the contracts.

Nothing in a domain imports this package. The composition roots — the CLI entry
(``muse.cli.main``), the demo and the test suite's conftest — call :func:`install` once, which
hands the provider a loader; a generator module is imported on the first offline call of its
(role, task) (``SERVES``), so a command never pays for the generators it does not call (a
``muse write`` imports no extractor, and with it no name discovery). Each generator answers
only its own output model and declines (``None``) any other, so no two generators compete for
a call; a generator a test registers with
``register_offline_generator`` comes before all of them.
"""

from __future__ import annotations

import importlib

__all__ = ["install", "load"]

MODULES = ("writer", "explorer", "extractor", "planner", "detector", "judge")
# the module whose generators answer each (role, task) (tests/agents/test_offline_install.py)
SERVES = {
    ("writer", "generate"): "writer",
    ("writer", "explore"): "explorer",
    ("extractor", "extract"): "extractor",
    ("planner", "draft"): "planner",
    ("detector", "check"): "detector",
    ("judge", "score"): "judge",
}


def load(role: str | None = None, task: str | None = None) -> None:
    """Import (and so register) the generator module of (role, task), every module when no
    module serves that key or none is given; idempotent."""
    served = SERVES.get((role, task)) if role is not None and task is not None else None
    for name in (served,) if served else MODULES:
        importlib.import_module(f"{__name__}.{name}")


def install() -> None:
    """Let the offline provider load these generators on its first call (composition roots)."""
    from muse.agents import set_builtin_loader

    set_builtin_loader(load)
