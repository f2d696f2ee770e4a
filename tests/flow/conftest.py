"""A work ready for chapter 9: eight marked chapters and a confirmed fine outline."""

import pytest

from tests.support.marked_book import make_book


@pytest.fixture
def book(engine):
    return make_book(engine)
