"""The CLI tests' book: the marked book ready for chapter 9 (``tests/support/marked_book.py``);
the ``muse`` runner is the root conftest's."""

import pytest

from tests.support.marked_book import make_book


@pytest.fixture
def book(engine):
    return make_book(engine)
