"""Model-free discovery of named entities from a book's canonical text (拆书, spec 003 extractor).

An author who imports a finished manuscript should not type a card per character. Before any model
is called, discovery proposes the names a book uses, in seconds, from the text alone:

1. **Candidates** are the strings of 2–4 Han characters that the book repeats, hold together
   (cohesion) and stand free of their neighbours (left/right entropy): see ``discovery_stats``.
2. **What they name** comes from how the book uses them: a speaker is followed by 「道/曰/说/笑」,
   a role noun is preceded by 「那/这/的/老」 (「那和尚」) and a name rarely is, a place follows
   「到/往/在」, a name may begin with a surname, end in a place, sect, item or technique suffix,
   stand before a title (「唐长老」「玄德公」), or be introduced (「姓刘，名备，字玄德」「名叫林动」).
   rjieba's tagger says whether a candidate is a known word and of which part of speech: a known
   pronoun, verb or adverb is never a name.
3. **Aliases** are suggested, never decided: a courtesy name from an introduction, a given name
   inside a full name (「悟空」 in 「孙悟空」), a name with a title or prefix (「孙大圣」「齐天大圣」),
   a full name made of a stated surname and given name (「姓沙，法名悟净」), what the book's
   naming sentences say about one subject (「悟能叫做八戒」「法名悟净，臣又呼他为沙和尚」), and one
   surname with two words for one role (「沙僧」「沙和尚」). A name the book introduces twice
   (「乳名叫做红孩儿」) is proposed even when its characters read as a verb (「悟能」).
4. **Evidence**: every proposal carries its mention count, its first and last occurrence (chapter
   and code point offset) and sample sentences with their offsets, so a draft card can cite them.

Steps 1–2 are ``discovery_scoring``, step 3 is ``discovery_aliases``; this module locates the
evidence and assembles the proposals. Nothing here writes anything; ``discovery_drafts`` turns the result into machine-proposed drafts.
The lists of surnames, titles and suffixes are general Chinese (``discovery_lexicon``): nothing is
tuned to one book.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field

from muse.knowledge.discovery_aliases import alias_edges, groups
from muse.knowledge.discovery_scoring import Candidate, candidates, introductions
from muse.knowledge.discovery_stats import NGramTable

ENTITY_TYPES = ("character", "location", "faction", "item", "technique")
_SENTENCE_END = "。！？!?\n"
SAMPLES = 3
BASIS_ORDER = ("courtesy", "named", "given_name", "title", "prefixed")


@dataclass(frozen=True)
class Occurrence:
    """``text[start:end]`` of chapter ``chapter`` is the name; ``quote`` is its sentence."""

    chapter: int
    start: int
    end: int
    quote: str
    quote_start: int


@dataclass(frozen=True)
class AliasSuggestion:
    name: str
    basis: str  # courtesy | given_name | prefixed | title
    mentions: int


@dataclass(frozen=True)
class DiscoveredEntity:
    name: str
    type: str  # one of ENTITY_TYPES (a guess)
    mentions: int
    first: Occurrence
    last: Occurrence
    samples: list[Occurrence]
    aliases: list[AliasSuggestion] = field(default_factory=list)
    evidence: list[str] = field(default_factory=list)


class _Locator:
    """First and last occurrences and sample sentences of a string. The chapters are searched as
    one string (joined by a character no name holds), so one ``find`` crosses every chapter in C
    instead of one call per chapter and word; a position maps back to its chapter by bisection."""

    def __init__(self, chapters: Sequence[tuple[int, str]]) -> None:
        self.chapters = list(chapters)
        self.starts: list[int] = []
        at = 0
        for _, text in self.chapters:
            self.starts.append(at)
            at += len(text) + 1
        self.book = "\x00".join(text for _, text in self.chapters)
        self._firsts: dict[str, int] = {}  # word → its first book position (-1: absent)

    def occurrence(self, number: int, text: str, start: int, word: str) -> Occurrence:
        """The occurrence at ``start`` with its sentence (at most 80 characters either side)."""
        low, high = max(start - 80, 0), start + len(word) + 80
        left = max(max(text.rfind(ch, low, start) for ch in _SENTENCE_END) + 1, start - 80)
        ends = [i for i in (text.find(ch, start, high) for ch in _SENTENCE_END) if i >= 0]
        right = min(min(ends) + 1 if ends else len(text), high)
        while left < start and text[left].isspace():
            left += 1
        while right > start + len(word) and text[right - 1].isspace():
            right -= 1
        return Occurrence(number, start, start + len(word), text[left:right], left)

    def _chapter(self, position: int) -> int:
        """Index in ``chapters`` of the chapter holding book position ``position``."""
        return bisect_right(self.starts, position) - 1

    def _at(self, position: int, word: str) -> Occurrence:
        index = self._chapter(position)
        number, text = self.chapters[index]
        return self.occurrence(number, text, position - self.starts[index], word)

    def _first_at(self, word: str) -> int:
        if word not in self._firsts:
            self._firsts[word] = self.book.find(word)
        return self._firsts[word]

    def first(self, word: str) -> Occurrence | None:
        at = self._first_at(word)
        return self._at(at, word) if at >= 0 else None

    def last(self, word: str) -> Occurrence | None:
        at = self.book.rfind(word)
        return self._at(at, word) if at >= 0 else None

    def samples(self, words: list[str], limit: int = SAMPLES) -> list[Occurrence]:
        """The earliest occurrence of any of ``words`` in each of the first ``limit`` chapters
        holding one. Each word's next position is searched for only once it falls behind."""
        ahead = {w: self._first_at(w) for w in words}
        out: list[Occurrence] = []
        while len(out) < limit:
            hits = [(at, w) for w, at in ahead.items() if at >= 0]
            if not hits:
                break
            at, w = min(hits)
            out.append(self._at(at, w))
            index = self._chapter(at)
            if index + 1 >= len(self.starts):
                break
            following = self.starts[index + 1]
            for word, pos in ahead.items():
                if 0 <= pos < following:
                    ahead[word] = self.book.find(word, following)
        return out


def _mentions(group: list[str], table: NGramTable) -> int:
    total = sum(table.count(w) for w in group)
    for short in group:
        for long in group:
            if short != long and short in long:
                total -= table.count(long)
    return max(total, max(table.count(w) for w in group))


def _entity(
    group: list[str],
    found: dict[str, Candidate],
    edges: list[tuple[str, str, str]],
    table: NGramTable,
    locate: _Locator,
) -> DiscoveredEntity | None:
    name = group[0]
    firsts = [o for o in (locate.first(w) for w in group) if o is not None]
    lasts = [o for o in (locate.last(w) for w in group) if o is not None]
    if not firsts:
        return None
    first = min(firsts, key=lambda o: (o.chapter, o.start))
    last = max(lasts, key=lambda o: (o.chapter, o.start))
    kinds_of: dict[str, set[str]] = {}
    for a, b, kind in edges:
        if b in group:
            kinds_of.setdefault(b, set()).add(kind)
        if a in group and kind == "title":
            kinds_of.setdefault(a, set()).add(kind)
    # the most telling basis when several edges reach a name (「行者」: the given name of 「孙行者」
    # rather than a prefixed form), whatever order the edges were found in
    basis = {w: min(k, key=BASIS_ORDER.index) for w, k in kinds_of.items()}
    aliases = [AliasSuggestion(w, basis.get(w, "prefixed"), table.count(w)) for w in group[1:]]
    kinds = [found[w].type for w in group]
    return DiscoveredEntity(
        name=name,
        type=max(set(kinds), key=kinds.count),
        mentions=_mentions(group, table),
        first=first,
        last=last,
        samples=locate.samples(group),
        aliases=aliases,
        evidence=found[name].evidence,
    )


def discover(chapters: Sequence[tuple[int, str]]) -> list[DiscoveredEntity]:
    """Named entities proposed from ``(chapter number, canonical text)`` pairs, most mentioned
    first (ties by name). Deterministic: same texts, same result."""
    ordered = sorted(chapters)
    texts = [t for _, t in ordered]
    table = NGramTable(texts)
    intros = introductions(texts)
    found = candidates(table, intros, texts)
    edges = alias_edges(found, intros, texts)
    locate = _Locator(ordered)
    entities = [
        e
        for g in groups(found, edges, table)
        if (e := _entity(g, found, edges, table, locate)) is not None
    ]
    return sorted(entities, key=lambda e: (-e.mentions, e.name))
