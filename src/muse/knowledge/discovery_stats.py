"""Corpus statistics for model-free entity discovery: n-gram counts, cohesion, boundary entropy.

The classic "new word" measures over runs of Han characters (punctuation, digits and Latin break
a run, so no n-gram spans a sentence boundary):

* **frequency**: how often the string occurs;
* **cohesion**: the smallest ``count(w)·N / (count(a)·count(b))`` over the ways to split ``w`` into
  two parts — a name is far more frequent than its halves put together by chance;
* **left / right entropy**: how varied the characters next to ``w`` are. A fragment of a longer
  word (「孙悟」 is nearly always followed by 「空」) has one neighbour; a real word has many. The
  edge of a run counts as its own, always different neighbour.

Everything is computed from one pass of counters over the text (n up to ``MAX_LEN + 1``), so the
cost is linear in the book's length, with no per-candidate scan.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

MAX_LEN = 4  # longest candidate counted by n-grams; longer names come from the tagger
_HAN_RUN = re.compile(r"[\u4e00-\u9fff]+")


@dataclass(frozen=True)
class GramStats:
    count: int
    cohesion: float
    left_entropy: float
    right_entropy: float
    right: dict[str, int]  # right neighbour character → count
    left: dict[str, int]

    @property
    def left_edge(self) -> float:
        """Share of occurrences that open a run (after punctuation): where a subject stands."""
        return 1 - sum(self.left.values()) / self.count if self.count else 0.0


class NGramTable:
    """n-gram counts (1 ≤ n ≤ MAX_LEN + 1) over the Han runs of some texts."""

    def __init__(self, texts: Iterable[str]) -> None:
        runs = [m.group() for text in texts for m in _HAN_RUN.finditer(text)]
        self.counts: list[Counter[str]] = [Counter()]
        for n in range(1, MAX_LEN + 2):
            grams = [r[i : i + n] for r in runs if len(r) >= n for i in range(len(r) - n + 1)]
            self.counts.append(Counter(grams))
        self.total = sum(self.counts[1].values())

    def count(self, gram: str) -> int:
        n = len(gram)
        return self.counts[n][gram] if 0 < n < len(self.counts) else 0

    def frequent(self, min_count: int, lengths: range = range(2, MAX_LEN + 1)) -> list[str]:
        return [g for n in lengths for g, c in self.counts[n].items() if c >= min_count]

    def cohesion(self, gram: str) -> float:
        counts = self.counts
        biggest = max(
            counts[k][gram[:k]] * counts[len(gram) - k][gram[k:]] for k in range(1, len(gram))
        )
        return counts[len(gram)][gram] * self.total / biggest if biggest else 0.0

    def stats(self, grams: Iterable[str]) -> dict[str, GramStats]:
        """Cohesion and both entropies for each of ``grams`` (one pass over the longer counters)."""
        wanted = {g for g in grams if 1 < len(g) <= MAX_LEN}
        right: dict[str, dict[str, int]] = {g: {} for g in wanted}
        left: dict[str, dict[str, int]] = {g: {} for g in wanted}
        for n in range(3, MAX_LEN + 2):
            for gram, c in self.counts[n].items():
                head, tail = gram[:-1], gram[1:]
                if head in wanted:
                    right[head][gram[-1]] = c
                if tail in wanted:
                    left[tail][gram[0]] = c
        return {
            g: GramStats(
                count=self.count(g),
                cohesion=self.cohesion(g),
                left_entropy=_entropy(left[g], self.count(g)),
                right_entropy=_entropy(right[g], self.count(g)),
                right=right[g],
                left=left[g],
            )
            for g in wanted
        }


def _entropy(neighbours: dict[str, int], total: int) -> float:
    """Shannon entropy of the neighbour distribution; each run edge is a distinct outcome."""
    if total <= 0:
        return 0.0
    edges = max(total - sum(neighbours.values()), 0)
    h = -sum(c / total * math.log(c / total) for c in neighbours.values())
    if edges:
        h += edges * (1 / total) * math.log(total)
    return h
