"""The setting ledger (spec 001 §1A stage 2, gates 2 and 3).

Gate 3, 全书设定台账: a setting × chapter consumption matrix — in which canonical chapters each
confirmed card appears, by its name or any alias, and how often — with the cards no chapter has
touched yet.

Gate 2, 设定全书闭环: every card of a type that carries an arc (``arc: true`` in
card_types.yaml: characters, factions, artifacts, secrets, foreshadowing …) must plan a closed
arc, 登场 → … → 结局, counting both what happened (演变历程) and what is planned (成长弧线). A card
without a 登场, without a 结局, or whose 结局 is dated before its 登场 does not close.
"""

from __future__ import annotations

from collections import Counter, defaultdict

from sqlalchemy import Connection

from muse.core.contract import UnaliasedContract
from muse.knowledge.card_types import card_type
from muse.knowledge.cards import load_cards
from muse.knowledge.contracts import Card, Cycle
from muse.knowledge.terms import TermMatcher
from muse.works import iter_chapter_texts


class LedgerRow(UnaliasedContract):
    card_id: str
    name: str
    type: str
    mentions: dict[int, int]  # chapter → occurrences of the name and aliases

    @property
    def total(self) -> int:
        return sum(self.mentions.values())


class ArcReport(UnaliasedContract):
    card_id: str
    name: str
    type: str
    problems: list[str]


class SettingLedger(UnaliasedContract):
    work_id: int
    upto: int | None
    chapters: list[int]
    rows: list[LedgerRow]
    untouched: list[str]  # card ids that no chapter mentions
    unclosed: list[ArcReport]


def arc_problems(card: Card) -> list[str]:
    """Why the card's arc does not close (empty when it does, or when its type has no arc)."""
    if not card_type(card.type).arc:
        return []
    steps = [(m.chapter, m.cycle) for m in card.milestones] + [
        (s.chapter, s.cycle) for s in card.growth_arc
    ]
    debuts = [ch for ch, cycle in steps if cycle is Cycle.debut]
    endings = [ch for ch, cycle in steps if cycle is Cycle.ending]
    problems = []
    if not debuts:
        problems.append("缺少「登场」：演变历程和成长弧线里都没有。")
    if not endings:
        problems.append("缺少「结局」：成长弧线没有收口。")
    dated_debut = [ch for ch in debuts if ch is not None]
    dated_end = [ch for ch in endings if ch is not None]
    if dated_debut and dated_end and max(dated_end) < min(dated_debut):
        problems.append(
            f"「结局」（第 {max(dated_end)} 章）早于「登场」（第 {min(dated_debut)} 章）。"
        )
    return problems


def setting_ledger(conn: Connection, work_id: int, *, upto: int | None = None) -> SettingLedger:
    """Which confirmed cards each canonical chapter (≤ ``upto``) mentions, and the open arcs."""
    cards = load_cards(conn, work_id)
    owners: dict[str, list[int]] = defaultdict(list)
    for index, card in enumerate(cards):
        for term in {card.name, *(a.name for a in card.aliases)}:
            owners[term].append(index)
    matcher = TermMatcher(owners)
    counts: list[Counter[int]] = [Counter() for _ in cards]
    chapters = []
    for chapter in iter_chapter_texts(conn, work_id, upto=upto):
        chapters.append(chapter.number)
        for term in matcher.finditer(chapter.text):
            for index in owners[term]:
                counts[index][chapter.number] += 1
    rows = [
        LedgerRow(card_id=c.id, name=c.name, type=c.type, mentions=dict(sorted(n.items())))
        for c, n in zip(cards, counts, strict=True)
    ]
    unclosed = [
        ArcReport(card_id=c.id, name=c.name, type=c.type, problems=p)
        for c in cards
        if (p := arc_problems(c))
    ]
    return SettingLedger(
        work_id=work_id,
        upto=upto,
        chapters=chapters,
        rows=rows,
        untouched=[r.card_id for r in rows if not r.mentions],
        unclosed=unclosed,
    )
