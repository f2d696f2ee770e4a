"""How much of each token budget a frozen WriterContext used (the context viewer's token bars).

Each manifest source kind is charged to the budget category the assembler spends it from
(``sources.py`` / ``explore/replayed_sources.py``): full chapters of the baseline to consecutive prose,
re-read excerpts to historical evidence, cards to cards, patterns and style to patterns. The fine
outline is not budgeted (it always goes in whole) and is reported as such.
"""

from __future__ import annotations

from dataclasses import dataclass

from muse.context.contracts import WriterContext

CATEGORY_OF_KIND = {
    "chapter": "consecutive_prose",
    "prose_excerpt": "historical_evidence",
    "card": "cards",
    "pattern": "patterns",
    "style": "patterns",
}
CATEGORY_LABELS = {
    "cards": "卡片",
    "consecutive_prose": "连续原文",
    "historical_evidence": "历史证据",
    "patterns": "范式与文风",
}


@dataclass(frozen=True)
class BudgetUse:
    category: str
    label: str
    used: int
    budget: int
    sources: int

    @property
    def percent(self) -> int:
        return 0 if self.budget <= 0 else min(100, round(100 * self.used / self.budget))


def budget_usage(context: WriterContext) -> tuple[list[BudgetUse], int]:
    """Per budget category: tokens used against the budget; and the unbudgeted tokens."""
    used = dict.fromkeys(CATEGORY_LABELS, 0)
    count = dict.fromkeys(CATEGORY_LABELS, 0)
    unbudgeted = 0
    for source in context.manifest.sources:
        category = CATEGORY_OF_KIND.get(source.kind)
        if category is None:
            unbudgeted += source.tokens
            continue
        used[category] += source.tokens
        count[category] += 1
    budget = context.token_budget
    rows = [
        BudgetUse(c, label, used[c], getattr(budget, c), count[c])
        for c, label in CATEGORY_LABELS.items()
    ]
    return rows, unbudgeted
