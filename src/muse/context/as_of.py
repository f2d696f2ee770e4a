"""AsOfView: the only reader whose results may reach a model (ARCHITECTURE.md principle 4).

Every method filters by chapter ≤ as_of. Asking for a later chapter is an error, not an empty
result, so a leak shows up as a failure where it is attempted.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

from sqlalchemy import Connection

from muse.context.search import (
    Hit,
    Tokenizer,
    built_tokenizer,
    chunk_total,
    search,
    search_text,
)
from muse.core.errors import ContractViolation
from muse.core.length_target import MIN_VALID_HAN, SAMPLE_SIZE
from muse.knowledge import (
    Card,
    CardState,
    LedgerEntry,
    fact_ledger_entries,
    list_conflicts,
    load_cards,
    work_state_as_of,
)
from muse.patterns import load_bound_patterns, load_confirmed_style
from muse.works import ChapterText, get_chapter_text, iter_chapter_texts, recent_chapter_lengths


class AsOfView:
    def __init__(self, conn: Connection, work_id: int, as_of: int) -> None:
        if as_of < 0:
            raise ValueError("as_of must be >= 0")
        self.conn = conn
        self.work_id = work_id
        self.as_of = as_of

    def _guard(self, number: int) -> None:
        if number > self.as_of:
            raise ContractViolation(
                f"冻结点是第 {self.as_of} 章，不能读取第 {number} 章（未来章节不得进入模型输入）。"
            )

    def chapter(self, number: int) -> ChapterText:
        self._guard(number)
        return get_chapter_text(self.conn, self.work_id, number)

    def chapters(self, numbers: list[int]) -> list[ChapterText]:
        for number in numbers:
            self._guard(number)
        return list(iter_chapter_texts(self.conn, self.work_id, numbers=numbers))

    def recent_valid_lengths(self, before: int) -> list[tuple[int, int]]:
        """(number, Han count) of the latest chapters that can count for the length rule
        (spec 000 §8.1: canonical, ≥ 500 Han, before the target), at most the 20 it samples."""
        return recent_chapter_lengths(
            self.conn,
            self.work_id,
            upto=min(before - 1, self.as_of),
            min_han=MIN_VALID_HAN,
            limit=SAMPLE_SIZE,
        )

    @cached_property
    def _confirmed_cards(self) -> list[Card]:
        return load_cards(self.conn, self.work_id)

    @cached_property
    def card_states(self) -> list[CardState]:
        """Confirmed cards that exist as of the freeze, rebuilt only from what is dated ≤ as_of."""
        # The whole work at once: one prepared book per change token, shared by every freeze
        # point (knowledge.card_state); the same states, in the same order, as card by card.
        return work_state_as_of(self.conn, self.work_id, self.as_of).visible()

    def card_versions(self) -> dict[str, tuple[str, str, str]]:
        """card id → (type, name, spec sha256) of every confirmed card.

        Content, not row ids, identifies the card index: the same cards give the same index
        version in any database.
        """
        return {c.id: (c.type, c.name, c.spec_sha256) for c in self._confirmed_cards}

    def fact_ledger(self) -> list[LedgerEntry]:
        return fact_ledger_entries(self.conn, self.work_id, as_of=self.as_of)

    def cards_in_conflict(self) -> set[str]:
        """Ids of confirmed cards with an open conflict (the conflict content never leaves)."""
        return {c.card_id for c in list_conflicts(self.conn, self.work_id)}

    def search_text(self, query: str, limit: int) -> list[Hit]:
        """Chunks up to the freeze point sharing words with ``query``."""
        return search_text(
            self.conn,
            self.work_id,
            query,
            max_chapter=self.as_of,
            limit=limit,
            total=lambda: self._chunk_total,
            tokenizer=self._tokenizer,
        )

    @cached_property
    def _tokenizer(self) -> Tokenizer | None:
        """The tokenizer the index was built with (None: no index; the search then says so)."""
        return built_tokenizer(self.conn, self.work_id)

    @cached_property
    def _chunk_total(self) -> int:
        """Indexed chunks up to the freeze point: what every text search weighs its words
        against, read once per view (a replay searches seven times), as the card states are."""
        return chunk_total(self.conn, self.work_id, max_chapter=self.as_of)

    def search_names(self, names: list[str], limit: int) -> list[Hit]:
        """Chunks up to the freeze point naming any of ``names`` (a card's name and aliases)."""
        return search(self.conn, self.work_id, names, max_chapter=self.as_of, limit=limit)

    def style(self) -> dict[str, Any] | None:
        """The confirmed style profile (stage 3), or None: never a shadow one."""
        return load_confirmed_style(self.conn, self.work_id)

    def patterns(self) -> list[dict[str, Any]]:
        """Patterns bound through the confirmed assembly (stage 3), nothing unconfirmed."""
        return load_bound_patterns(self.conn, self.work_id)

    def previous_chapters(self, before: int, count: int) -> list[int]:
        """Numbers of the ``count`` chapters right before ``before`` that exist and are ≤ as_of."""
        upto = min(before - 1, self.as_of)
        recent = recent_chapter_lengths(self.conn, self.work_id, upto=upto, limit=count)
        return sorted(n for n, _ in recent)
