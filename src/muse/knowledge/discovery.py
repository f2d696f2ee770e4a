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
   inside a full name (「悟空」 in 「孙悟空」), a name with a title or prefix (「孙大圣」「齐天大圣」).
4. **Evidence**: every proposal carries its mention count, its first and last occurrence (chapter
   and code point offset) and sample sentences with their offsets, so a draft card can cite them.

Nothing here writes anything; ``discovery_drafts`` turns the result into machine-proposed drafts.
The lists of surnames, titles and suffixes are general Chinese (``discovery_lexicon``): nothing is
tuned to one book.
"""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

import rjieba

from muse.knowledge.discovery_lexicon import (
    BAD_END,
    BAD_INSIDE,
    BAD_START,
    COMPOUND_SURNAMES,
    DIRECTIONS,
    INTRO_MARKERS,
    ITEM_SUFFIX,
    MODIFIER_PREV,
    NAME_NEXT,
    NAME_PREV,
    NOUN_TAGS,
    OPEN_NEIGHBOURS,
    ORG_SUFFIX,
    PLACE_PREV,
    PLACE_SUFFIX,
    PRONOUN_PREV,
    PROPER_TAGS,
    ROLE_NOUNS,
    SPEAKER_NEXT,
    TECH_SUFFIX,
    TITLES,
    has_surname,
)
from muse.knowledge.discovery_stats import MAX_LEN, GramStats, NGramTable

ENTITY_TYPES = ("character", "location", "faction", "item", "technique")
_COURTESY = re.compile(
    r"姓([\u4e00-\u9fff]{1,2})[，,]?(?:双)?名([\u4e00-\u9fff]{1,2})[，,]?(?:表)?字([\u4e00-\u9fff]{2})"
)
_INTRO = re.compile("(?:" + "|".join(INTRO_MARKERS) + r")([\u4e00-\u9fff]{2,3})")
_SENTENCE_END = "。！？!?\n"
SAMPLES = 3
PERSON_TAGS = frozenset({"nr", "nrfg", "nrt"})
FAMILY_MARKS = frozenset("老家氏")  # after a surname: a household or an elder, not one name
BOUNDARY_FLOOR = 1.5  # nats; 「高叫」 (nearly always 「高叫道」) stays below it
FREQUENT, FREQUENT_COHESION = 50, 0.3  # a string seen this often needs less cohesion
# a first character with one of these tags opens a phrase, not a name (unless it is a surname)
FUNCTION_TAGS = frozenset({"m", "q", "p", "c", "u", "uj", "ul", "ud", "r", "d", "v", "vg", "f"})

_LOCK = threading.Lock()
_jieba: rjieba.Jieba | None = None


def _tagger() -> rjieba.Jieba:
    """A private jieba with only its default dictionary, never mutated."""
    global _jieba
    with _LOCK:
        if _jieba is None:
            _jieba = rjieba.Jieba()
        return _jieba


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


@dataclass
class _Candidate:
    gram: str
    stats: GramStats
    type: str
    evidence: list[str]


def _ratio(neighbours: dict[str, int], chars: frozenset[str], total: int) -> float:
    return sum(c for ch, c in neighbours.items() if ch in chars) / total if total else 0.0


def _dictionary_tag(word: str) -> tuple[bool, str, list[tuple[str, str]]]:
    """(known word, its tag, the no-HMM split) by rjieba's default dictionary."""
    jieba = _tagger()
    parts = jieba.tag(word, False)
    known = jieba.has_word(word)
    return known, parts[0][1] if len(parts) == 1 else "", parts


def _morphology(word: str) -> str | None:
    if len(word) >= 3 and word.endswith(TECH_SUFFIX):
        return "technique"
    if len(word) >= 3 and word.endswith(ORG_SUFFIX):
        return "faction"
    if len(word) >= 3 and word[-1] in ITEM_SUFFIX:
        return "item"
    if word[-1] in PLACE_SUFFIX:
        return "location"
    return None


def _bad_shape(word: str) -> bool:
    """A string no name has, by its characters alone (checked before any statistics)."""
    if word in ROLE_NOUNS or word[-1] in BAD_END or len(set(word)) == 1:  # 「沙沙」「纷纷」
        return True
    if word[0] in BAD_START and not has_surname(word):  # 「何进」「诸葛恪」 keep their surname
        return True
    if word[:2] in ROLE_NOUNS or word[:3] in ROLE_NOUNS:  # 「师父呵」
        return True
    if len(word) == 2 and word[1] in FAMILY_MARKS and has_surname(word):  # 「陈老」「陈家」
        return True
    return bool(BAD_INSIDE.intersection(word[1:-1])) or set(word) <= DIRECTIONS


def _rejected_form(word: str, known: bool, tag: str, parts: list[tuple[str, str]]) -> bool:
    if _bad_shape(word):
        return True
    if known:
        return tag not in NOUN_TAGS
    # an unknown string made of known words: each known part of two or more characters must be a
    # noun (「行者笑道」 = noun + verb is a phrase, not a name)
    if any(len(w) >= 2 and t not in NOUN_TAGS for w, t in parts):
        return True
    first, first_tag = parts[0]
    if len(first) == 1 and not has_surname(word):
        if len(word) == 2 and first_tag in FUNCTION_TAGS - {"v", "vg"}:
            return True  # 「多官」「座山」
        if len(parts) == 2 and first_tag in FUNCTION_TAGS:
            return True  # 「使铁棒」「闹天宫」: a verb and its object
    # two adjectives or adjective + verb: 「大惊」「快早」 (but 「黄盖」 is a surname and a name)
    two = len(parts) == 2 and first_tag == "a" and parts[1][1] in {"a", "v"}
    return two and not has_surname(word)


def _classify(word: str, s: GramStats, intro: set[str]) -> _Candidate | None:
    known, tag, parts = _dictionary_tag(word)
    if _rejected_form(word, known, tag, parts):
        return None
    speaker = _ratio(s.right, SPEAKER_NEXT, s.count)
    modified = _ratio(s.left, MODIFIER_PREV, s.count)
    placed = _ratio(s.left, PLACE_PREV, s.count)
    after_pronoun = _ratio(s.left, PRONOUN_PREV, s.count)
    named = _ratio(s.left, NAME_PREV, s.count) + _ratio(s.right, NAME_NEXT, s.count)
    shape = _morphology(word)
    evidence = []
    kind: str | None = None
    if word in intro:
        evidence.append("正文有介绍句（名叫/字/法名…）")
    if shape in ("technique", "faction", "item") and modified <= 0.3:
        kind = shape
    elif modified <= 0.15 and _place_like(shape, known, tag, speaker, placed):
        kind = "location"
    elif (
        modified <= 0.2
        and after_pronoun <= 0.1
        and (s.left_edge >= (0.1 if has_surname(word) else 0.25) or word in intro)
        and _person_like(word, known, tag, speaker, named, intro)
    ):
        kind = "character"
    if kind is None:
        return None
    if speaker:
        evidence.append(f"其后接「道/曰/说」等 {speaker:.0%}")
    if placed:
        evidence.append(f"其前接「到/往/在」等 {placed:.0%}")
    if tag in PROPER_TAGS:
        evidence.append(f"分词词性 {tag}")
    return _Candidate(word, s, kind, evidence)


def _place_like(shape: str | None, known: bool, tag: str, speaker: float, placed: float) -> bool:
    """A place suffix on a word the dictionary does not know as a common noun (「花果山」, not
    「山坡」), or a place-tagged word the book writes after 「到/往/在」."""
    if shape == "location":
        return (tag == "ns" or not known) and speaker < 0.05
    return tag == "ns" and placed >= 0.15 and speaker < 0.03


def _person_like(
    word: str, known: bool, tag: str, speaker: float, named: float, intro: set[str]
) -> bool:
    """Whether the book uses ``word`` as a person's name. ``named``: share of occurrences in a
    person's typical context (「令X」「被X」「X引兵」「X大怒」); rjieba's person tags are noisy
    (「饶命」「殷勤」 are tagged nr), so a tag alone never makes a name."""
    if word in intro:
        return speaker >= 0.01 or has_surname(word)
    if word[0] in BAD_START and word[:2] not in COMPOUND_SURNAMES:
        # a surname that is also a function word (「何」「于」「向」「饶」): 「何进」 is a name,
        # 「何往」「饶你」 are not, so it must be seen speaking
        return speaker >= 0.05 and named >= 0.1
    if has_surname(word) and (not known or tag in PERSON_TAGS | {"ns"}):
        # 「董卓」: later written 「卓曰」, so the full name is rarely the speaker
        return named >= (0.05 if not known else 0.1)
    if not known:
        return speaker >= 0.08
    if tag in PERSON_TAGS:
        return speaker >= 0.03 and named >= 0.1
    return speaker >= 0.05


def _min_count(table: NGramTable) -> int:
    return max(3, round(table.total / 200_000))


def _boundary_ok(s: GramStats) -> bool:
    """Free on both sides: varied neighbours, a function character counting as always new."""
    floor = min(BOUNDARY_FLOOR, 0.6 * math.log(max(s.count, 2)))
    left = max(s.left_entropy, _open_entropy(s.left, s.count))
    right = max(s.right_entropy, _open_entropy(s.right, s.count))
    return left >= floor and right >= floor


def _open_entropy(neighbours: dict[str, int], total: int) -> float:
    if total <= 0:
        return 0.0
    closed = {ch: c for ch, c in neighbours.items() if ch not in OPEN_NEIGHBOURS}
    edges = total - sum(closed.values())
    h = -sum(c / total * math.log(c / total) for c in closed.values())
    return h + (edges / total * math.log(total) if edges > 0 else 0.0)


def _cohesion_floor(word: str, count: int) -> float:
    """How much more often than chance the characters must stand together. A surname character
    is common on its own (「马」「何」), so a name of it is less cohesive; a string the book
    repeats very often may be made of common characters (「林」「远」) and still be a name — its
    boundary entropy, checked after, tells a word from a fragment."""
    base = 5.0 if has_surname(word) else 20.0 if len(word) == 2 else 50.0
    return base * FREQUENT_COHESION if count >= FREQUENT else base


def _introductions(texts: Sequence[str]) -> tuple[set[str], list[tuple[str, str]]]:
    """Names introduced by a marker, and (full name, courtesy name) pairs from 「姓X名Y字Z」."""
    introduced: set[str] = set()
    courtesy: list[tuple[str, str]] = []
    for text in texts:
        for m in _COURTESY.finditer(text):
            full = m.group(1) + m.group(2)
            courtesy.append((full, m.group(3)))
            introduced.update((full, m.group(3)))
        introduced.update(m.group(1) for m in _INTRO.finditer(text))
    return introduced, courtesy


def _candidates(
    table: NGramTable, intro: set[str], courtesy: Sequence[tuple[str, str]]
) -> dict[str, _Candidate]:
    grams = {
        w
        for w in table.frequent(_min_count(table))
        if not _bad_shape(w) and table.cohesion(w) >= _cohesion_floor(w, table.count(w))
    }
    grams |= {w for w in intro if table.count(w) >= 2 and 1 < len(w) <= MAX_LEN}
    stats = table.stats(grams)
    accepted: dict[str, _Candidate] = {}
    for word, s in stats.items():
        if word not in intro and not _boundary_ok(s):
            continue
        found = _classify(word, s, intro)
        if found is not None:
            accepted[word] = found
    return _drop_fragments(accepted, table)


def _drop_fragments(found: dict[str, _Candidate], table: NGramTable) -> dict[str, _Candidate]:
    """Drop a string that mostly occurs inside a longer accepted one, and a name + known word."""
    out = dict(found)
    for long in sorted(found, key=len, reverse=True):
        if long not in out:
            continue
        for short in _substrings(long):
            if short in out and table.count(long) >= 0.7 * table.count(short):
                out.pop(short)
        head = long[:-1]
        if len(long) >= 3 and head in found and table.count(head) >= 3 * table.count(long):
            out.pop(long)  # 「沙僧挑」: a name and the verb after it
            continue
        for k in range(2, len(long) - 1):
            head, rest = long[:k], long[k:]
            if head in found and rest not in TITLES and _tagger().has_word(rest):
                out.pop(long)  # 「三藏合掌」: a name and the word after it
                break
    return out


def _substrings(word: str) -> list[str]:
    n = len(word)
    return [word[i:j] for i in range(n) for j in range(i + 2, n + 1) if j - i < n]


def _alias_edges(
    found: dict[str, _Candidate], courtesy: Sequence[tuple[str, str]]
) -> list[tuple[str, str, str]]:
    """(name, alias, basis) suggestions among the accepted people."""
    people = {w for w, c in found.items() if c.type == "character"}
    edges = [(full, alias, "courtesy") for full, alias in courtesy if {full, alias} <= people]
    for long in people:
        for short in people:
            if short == long or not long.endswith(short):
                continue
            basis = "given_name" if has_surname(long) else "prefixed"
            edges.append((long, short, basis))
        for title in TITLES:
            base = long[: -len(title)]
            if long.endswith(title) and base in people:
                edges.append((base, long, "title"))
    return edges


def _groups(
    found: dict[str, _Candidate], edges: Sequence[tuple[str, str, str]], table: NGramTable
) -> list[list[str]]:
    parent = {w: w for w in found}

    def root(w: str) -> str:
        while parent[w] != w:
            parent[w] = parent[parent[w]]
            w = parent[w]
        return w

    for a, b, _ in edges:
        parent[root(b)] = root(a)
    groups: dict[str, list[str]] = {}
    for w in found:
        groups.setdefault(root(w), []).append(w)
    return [sorted(g, key=lambda w: (-_formality(w), -table.count(w), w)) for g in groups.values()]


def _formality(word: str) -> int:
    """The card name of a group: a full name (surname + given name) before other forms."""
    return 2 if has_surname(word) and len(word) >= 3 else 1 if has_surname(word) else 0


class _Locator:
    """First and last occurrences and sample sentences of a string, chapter by chapter."""

    def __init__(self, chapters: Sequence[tuple[int, str]]) -> None:
        self.chapters = list(chapters)

    def occurrence(self, number: int, text: str, start: int, word: str) -> Occurrence:
        """The occurrence at ``start`` with its sentence (at most 80 characters either side)."""
        left = max(max(text.rfind(ch, 0, start) for ch in _SENTENCE_END) + 1, start - 80)
        ends = [i for i in (text.find(ch, start) for ch in _SENTENCE_END) if i >= 0]
        right = min(min(ends) + 1 if ends else len(text), start + len(word) + 80)
        while left < start and text[left].isspace():
            left += 1
        while right > start + len(word) and text[right - 1].isspace():
            right -= 1
        return Occurrence(number, start, start + len(word), text[left:right], left)

    def first(self, word: str) -> Occurrence | None:
        for number, text in self.chapters:
            at = text.find(word)
            if at >= 0:
                return self.occurrence(number, text, at, word)
        return None

    def last(self, word: str) -> Occurrence | None:
        for number, text in reversed(self.chapters):
            at = text.rfind(word)
            if at >= 0:
                return self.occurrence(number, text, at, word)
        return None

    def samples(self, words: list[str], limit: int = SAMPLES) -> list[Occurrence]:
        out: list[Occurrence] = []
        for number, text in self.chapters:
            hits = [(text.find(w), w) for w in words]
            hits = [(at, w) for at, w in hits if at >= 0]
            if hits:
                at, w = min(hits)
                out.append(self.occurrence(number, text, at, w))
                if len(out) >= limit:
                    break
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
    found: dict[str, _Candidate],
    edges: Sequence[tuple[str, str, str]],
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
    basis = {b: kind for a, b, kind in edges if b in group} | {
        a: kind for a, b, kind in edges if a in group and kind == "title"
    }
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
    intro, courtesy = _introductions(texts)
    found = _candidates(table, intro, courtesy)
    edges = _alias_edges(found, courtesy)
    locate = _Locator(ordered)
    entities = [
        e
        for g in _groups(found, edges, table)
        if (e := _entity(g, found, edges, table, locate)) is not None
    ]
    return sorted(entities, key=lambda e: (-e.mentions, e.name))
