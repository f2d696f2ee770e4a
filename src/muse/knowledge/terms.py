"""Finding card names and aliases in text: one trie-shaped regular expression per term set.

A plain alternation of thousands of names makes the regex engine try every branch at every
position; folding the terms into a trie (``孙(?:悟空|行者)``) keeps matching linear in the text.
Counting (the setting ledger) takes the longest term at each place, so 「孙悟空」 is counted as
itself, not also as 「悟空」; the as-of view asks for every term a text contains, overlapping
ones included. Compiling thousands of names takes a noticeable fraction of a second, so matchers
are shared per term set and remember the texts they have scanned.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import cached_property, lru_cache
from typing import Any


def _trie(terms: Iterable[str]) -> dict[str, Any]:
    root: dict[str, Any] = {}
    for term in terms:
        node = root
        for char in term:
            node = node.setdefault(char, {})
        node[""] = {}
    return root


def _pattern(node: dict[str, Any]) -> str:
    branches = [re.escape(char) + _pattern(child) for char, child in sorted(node.items()) if char]
    if not branches:
        return ""
    if "" in node:  # a term ends here: what follows is optional (greedy, so longest first)
        return "(?:" + "|".join(branches) + ")?"
    return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"


class TermMatcher:
    """Finds the given terms in texts. Compiled on first use; ``terms_in`` results are cached."""

    CACHE_LIMIT = 500_000

    def __init__(self, terms: Iterable[str]) -> None:
        self.terms = sorted({t for t in terms if t})
        known = set(self.terms)
        self._prefixes = {
            t: [t[:i] for i in range(len(t) - 1, 0, -1) if t[:i] in known] for t in self.terms
        }
        self._found: dict[str, frozenset[str]] = {}

    @cached_property
    def _pattern(self) -> str:
        return _pattern(_trie(self.terms))

    @cached_property
    def _leftmost(self) -> re.Pattern[str] | None:
        return re.compile(self._pattern) if self.terms else None

    @cached_property
    def _anywhere(self) -> re.Pattern[str] | None:
        # a zero-width match at every start position, capturing the longest term there; the
        # shorter terms starting there are that term's prefixes
        return re.compile(f"(?=({self._pattern}))") if self.terms else None

    def finditer(self, text: str) -> Iterator[str]:
        """Occurrences for counting: non-overlapping, leftmost, longest first."""
        if self._leftmost is None or not text:
            return iter(())
        return (m.group(0) for m in self._leftmost.finditer(text))

    def terms_in(self, text: str) -> frozenset[str]:
        """Every term that occurs anywhere in ``text``, overlapping ones included."""
        found = self._found.get(text)
        if found is None:
            found = frozenset(self._scan(text))
            if len(self._found) >= self.CACHE_LIMIT:
                self._found.clear()
            self._found[text] = found
        return found

    def _scan(self, text: str) -> Iterator[str]:
        if self._anywhere is None or not text:
            return
        for match in self._anywhere.finditer(text):
            term = match.group(1)
            yield term
            yield from self._prefixes[term]


@lru_cache(maxsize=16)
def matcher_for(terms: tuple[str, ...]) -> TermMatcher:
    """A shared matcher per term set: compiling thousands of names is the expensive part."""
    return TermMatcher(terms)
