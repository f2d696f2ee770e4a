"""A committed 西游记 work with a search index and a confirmed card whose references point into
chapters 1 and 2 — what an author's edit must keep consistent (``tests/support/cards.py``)."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine

from tests.support.cards import make_xiyou


@pytest.fixture
def xiyou(engine: Engine) -> int:
    return make_xiyou(engine)
