"""The agents' read-only tools over the real as-of view: frozen reads, logged in the ledger."""

import pytest

from muse.agents.errors import AsOfViolation
from muse.agents.ledger import dependency_list
from muse.agents.tools import ToolSet
from muse.context.as_of import AsOfView
from muse.context.explore.tool_reader import AsOfToolReader
from muse.context.search import index as search_index
from muse.knowledge.card_import import import_cards_yaml
from muse.planning import load_confirmed
from muse.store.engine import reading
from tests.support.marked_book import marker

from .test_card_context import CARDS


def test_tools_read_only_up_to_the_freeze_and_log_each_read(engine, marked_book):
    with engine.begin() as conn:
        import_cards_yaml(conn, marked_book, CARDS, confirm=True)
        search_index.refresh_index(conn, marked_book)  # the retrieving node does this first
    with reading(engine) as conn:
        tools = ToolSet(AsOfToolReader(AsOfView(conn, marked_book, 4), target_chapter=5))
        chapter = tools.call("read_chapter", {"number": 4}, engine=engine, run_id="run_tools")
        assert marker(4) in chapter["text"]
        with pytest.raises(AsOfViolation):
            tools.call("read_chapter", {"number": 5}, engine=engine, run_id="run_tools")
        card = tools.call("get_card", {"name": "林远"}, engine=engine, run_id="run_tools")
        assert [m["chapter"] for m in card["milestones"]] == [1, 2]  # chapter 7 is the future
        assert tools.call("get_card", {"name": "苏晴"}, engine=engine, run_id="run_tools") is None
        hits = tools.call(
            "search_prose", {"query": "林远", "limit": 5}, engine=engine, run_id="run_tools"
        )
        assert hits and all(h["chapter"] <= 4 for h in hits)
        outline = tools.call("get_outline", {}, engine=engine, run_id="run_tools")
        assert outline["target_chapter"] == 5
    reads = dependency_list(engine, "run_tools")
    assert len(reads) >= 4


def test_an_outline_the_run_already_loaded_answers_get_outline_with_the_same_content(
    engine, marked_book
):
    with reading(engine) as conn:
        _, confirmed = load_confirmed(conn, marked_book, 5)
        view = AsOfView(conn, marked_book, 4)
        loaded = AsOfToolReader(view, target_chapter=5).get_outline()
        given = AsOfToolReader(view, target_chapter=5, confirmed_outline=confirmed)
        assert given.get_outline() == loaded and loaded is not None
        # An outline of another chapter is not this target's: the reader loads its own.
        other = AsOfToolReader(view, target_chapter=4, confirmed_outline=confirmed)
        assert other.get_outline() == AsOfToolReader(view, target_chapter=4).get_outline()
