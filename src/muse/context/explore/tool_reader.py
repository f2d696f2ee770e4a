"""The read-only tools' reader, backed by the real AsOfView (replaces agents' minimal reader).

The explore phases of the writer, detector, extractor and planner read through these tools; every
read therefore passes the same as-of rule as the frozen context: chapters after the freeze point
are refused, cards are their stateAsOf, and style and patterns are only the confirmed ones.
"""

from __future__ import annotations

from typing import Any

from muse.agents import AsOfViolation
from muse.context.as_of import AsOfView
from muse.context.card_hits import find_state
from muse.core.errors import ContractViolation, InvalidInput, NotFound
from muse.planning import FineOutline, load_confirmed

MAX_SEARCH_LIMIT = 50


class AsOfToolReader:
    """Implements ``muse.agents.asof_reader.AsOfReader`` over an :class:`AsOfView`."""

    def __init__(
        self,
        view: AsOfView,
        target_chapter: int | None = None,
        confirmed_outline: FineOutline | None = None,
    ) -> None:
        """``confirmed_outline``: the target chapter's outline as the caller's run already
        loaded it with ``load_confirmed`` (its gates passed); ``get_outline`` then answers with
        it instead of loading and gating the whole plan again."""
        self.view = view
        self.as_of = view.as_of
        self.target_chapter = target_chapter
        self.confirmed_outline = confirmed_outline

    def read_chapter(self, number: int) -> dict[str, Any] | None:
        try:
            chapter = self.view.chapter(number)
        except ContractViolation as err:
            raise AsOfViolation(str(err), hint="探索与回放只能读冻结点及之前的正式正文。") from None
        except NotFound:
            return None
        return {
            "number": chapter.number,
            "title": chapter.title,
            "revision": chapter.revision,
            "text": chapter.text,
            "contentSha256": chapter.content_sha256,
        }

    def search_prose(self, query: str, limit: int = 10) -> list[dict[str, Any]]:
        if not query.strip():
            raise InvalidInput("检索词不能为空。")
        hits = self.view.search_text(query, max(1, min(limit, MAX_SEARCH_LIMIT)))
        return [
            {
                "chapter": h.chapter,
                "revision": h.revision,
                "start": h.start,
                "end": h.end,
                "sha256": h.sha256,
                "snippet": h.text,
            }
            for h in hits
        ]

    def get_card(self, name: str) -> dict[str, Any] | None:
        state = find_state(self.view.card_states, name)
        return None if state is None else state.model_dump(mode="json")

    def get_outline(self) -> dict[str, Any] | None:
        if self.target_chapter is None:
            return None
        known = self.confirmed_outline
        if known is not None and known.target_chapter == self.target_chapter:
            return known.model_dump(mode="json")
        try:
            _, outline = load_confirmed(self.view.conn, self.view.work_id, self.target_chapter)
        except NotFound:
            return None
        return outline.model_dump(mode="json")

    def get_style(self) -> dict[str, Any] | None:
        return self.view.style()

    def get_patterns(self) -> list[dict[str, Any]]:
        return self.view.patterns()
