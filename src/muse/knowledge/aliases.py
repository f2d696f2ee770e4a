"""Alias hygiene and the per-work tokenizer dictionary (ARCHITECTURE.md §7).

Names and aliases are how prose finds a card: the retrieval index keeps them whole when it
segments Chinese text, and the setting ledger counts them per chapter. The same term on two
cards makes both ambiguous, so it is reported (never silently resolved).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from sqlalchemy import Connection

from muse.core.contract import UnaliasedContract
from muse.knowledge.cards import load_cards
from muse.knowledge.contracts import CardSpec


class TermOwner(UnaliasedContract):
    card_id: str | None
    name: str
    type: str
    role: str  # name | alias


class AliasCollision(UnaliasedContract):
    """One term (a name or an alias) used by more than one card."""

    term: str
    owners: list[TermOwner]

    def message(self) -> str:
        owners = "、".join(
            f"{o.name}（{'名称' if o.role == 'name' else '别名'}）" for o in self.owners
        )
        return f"「{self.term}」同时属于多张卡片：{owners}。"


def find_collisions(cards: Sequence[CardSpec]) -> list[AliasCollision]:
    """Terms held by two or more of ``cards`` (a card's own name repeated as its alias is fine)."""
    owners: dict[str, dict[int, TermOwner]] = defaultdict(dict)
    for index, card in enumerate(cards):
        card_id = getattr(card, "id", None)
        for term, role in [(card.name, "name"), *((a.name, "alias") for a in card.aliases)]:
            owners[term].setdefault(
                index, TermOwner(card_id=card_id, name=card.name, type=card.type, role=role)
            )
    return [
        AliasCollision(term=term, owners=list(by_card.values()))
        for term, by_card in sorted(owners.items())
        if len(by_card) > 1
    ]


def alias_collisions(
    conn: Connection, work_id: int, *, extra: Sequence[CardSpec] = ()
) -> list[AliasCollision]:
    """Collisions among the work's confirmed cards, plus ``extra`` proposals when given."""
    return find_collisions([*load_cards(conn, work_id), *extra])


def tokenizer_terms(conn: Connection, work_id: int) -> list[str]:
    """Names and aliases of the work's confirmed cards: the tokenizer's user dictionary."""
    terms = {t for c in load_cards(conn, work_id) for t in (c.name, *(a.name for a in c.aliases))}
    return sorted(terms)
