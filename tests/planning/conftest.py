"""The planning tests' fixtures: a work and a :class:`~tests.support.plans.Planner` that confirms
the baseline plan of ``tests/support/plans.py`` stage by stage."""

from __future__ import annotations

import pytest

from muse.works.catalog import create_work
from tests.support.plans import Planner


@pytest.fixture
def work_id(engine):
    with engine.begin() as conn:
        return create_work(conn, "书")


@pytest.fixture
def planner(engine, work_id) -> Planner:
    return Planner(engine, work_id)
