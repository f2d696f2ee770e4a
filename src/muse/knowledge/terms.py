"""Finding card names and aliases in text: one trie-shaped regular expression per term set.

A plain alternation of thousands of names makes the regex engine try every branch at every
position; folding the terms into a trie (``孙(?:悟空|行者)``) keeps matching linear in the text.
At each position the longest term wins, so 「孙悟空」 is found as itself, not as 「悟空」.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator


def _trie(terms: Iterable[str]) -> dict:
    root: dict = {}
    for term in terms:
        node = root
        for char in term:
            node = node.setdefault(char, {})
        node[""] = {}
    return root


def _pattern(node: dict) -> str:
    branches = [re.escape(char) + _pattern(child) for char, child in sorted(node.items()) if char]
    if not branches:
        return ""
    if "" in node:  # a term ends here: what follows is optional (greedy, so longest first)
        return "(?:" + "|".join(branches) + ")?"
    return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"


class TermMatcher:
    """Finds the given terms in texts (non-overlapping, leftmost, longest first)."""

    def __init__(self, terms: Iterable[str]) -> None:
        self.terms = sorted({t for t in terms if t})
        self._regex = re.compile(_pattern(_trie(self.terms))) if self.terms else None

    def __bool__(self) -> bool:
        return self._regex is not None

    def finditer(self, text: str) -> Iterator[str]:
        if self._regex is None or not text:
            return iter(())
        return (m.group(0) for m in self._regex.finditer(text))

    def first(self, text: str) -> str | None:
        if self._regex is None or not text:
            return None
        found = self._regex.search(text)
        return found.group(0) if found else None
