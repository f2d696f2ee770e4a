"""Fixtures of the agents tests (the stub server and its config: tests/conftest.py), fast retries.

Every test here runs with an isolated configuration (``MUSE_CONFIG`` → a file in tmp) and with
the presets' key variables removed, so neither the developer's own config nor real keys can
change a result. Real model requests stay disallowed (tests/conftest.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from muse.agents.dispatching import dispatch
from tests.agents.payloads import FAST, WRITER_INPUT
from tests.agents.strict_draft import StrictDraft


@pytest.fixture(autouse=True)
def _isolated(isolated_env: Path) -> Path:
    """Every agents test runs with the isolated configuration (tests/conftest.py)."""
    return isolated_env


@pytest.fixture
def call(engine, stub_config):
    """``dispatch`` with the writer/generate defaults used by most stub tests."""

    def run(**overrides):
        arguments = dict(
            role="writer",
            task="generate",
            provider="stub",
            model="deepseek-chat",
            task_input=WRITER_INPUT,
            output_model=StrictDraft,
            retry=FAST,
            timeout_s=10,
        )
        arguments.update(overrides)
        return dispatch(engine, **arguments)

    return run
