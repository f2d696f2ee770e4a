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
    ROLE_SYNONYMS,
    SPEAKER_NEXT,
    SURNAMES,
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
_CUE_ADVERBS = frozenset("又也便就却乃今原")
# 「A叫做B」: A is the subject, B the name
_NAMED_AS = re.compile("叫做|唤做|唤为|呼为|称为|称做|又名|又号|改名叫做|改名")
# a sentence with a naming word; its clauses; a clause that continues the chain
_NAMING_SENTENCE = re.compile(r"[^。！？!?\n]*(?:名|号|字|叫做|唤做|呼|唤)[^。！？!?\n]*")
_CLAUSE = re.compile(r"[，,；;：:“”]")
_CHAIN_OPEN = re.compile(
    r"(?:又|也|还|亦|另)?(?:乳名|小名|法名|表字|道号|绰号|外号|诨名|别号|别名|又名|名唤|名叫|"
    r"号叫做|号为|号称|人称|唤做|叫做|号|字|名)"
)
_NAMING_VERB = re.compile(r"叫做|唤做|叫作|唤作|唤为|称为|为")
_CALLS_HIM = re.compile(r"(?:呼|唤|叫|称)(?:他|她)(?:为|做|作)")
_ANY_CUE = re.compile(r"乳名|小名|法名|道号|绰号|外号|别名|名唤|名叫|叫做|唤做|唤为|人称")
_SURNAME_CLAUSE = re.compile(r"^[^，,]{0,4}姓[\u4e00-\u9fff]$")
# an introduced name with a clean right edge: punctuation or a closing particle after it
_BOUNDED_INTRO = re.compile(
    "(?:"
    + "|".join(INTRO_MARKERS)
    + r")(?![做为作])([\u4e00-\u9fff]{2,4}?)(?=[也了哩]?[^\u4e00-\u9fff]|$)"
)
_SURNAME = re.compile(r"姓([\u4e00-\u9fff])[，,]")
# 「姓沙，法名悟净」「姓孙，名悟空」: the full name is the surname and the given name
_SURNAME_GIVEN = re.compile(
    r"姓([\u4e00-\u9fff])[，,]?(?:法名|名唤|名叫|名)(?:叫做|唤做)?([\u4e00-\u9fff]{2})(?=[^\u4e00-\u9fff字])"
)
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


def _rejected_form(
    word: str, known: bool, tag: str, parts: list[tuple[str, str]], *, stated: bool = False
) -> bool:
    """``stated``: the book introduces ``word`` as a name (``_Intros.strong``), so a verb for a
    first character (「悟能」「悟净」) does not make it a phrase."""
    if _bad_shape(word):
        return True
    if known:
        return tag not in NOUN_TAGS
    # an unknown string made of known words: each known part of two or more characters must be a
    # noun (「行者笑道」 = noun + verb is a phrase, not a name)
    if any(len(w) >= 2 and t not in NOUN_TAGS for w, t in parts):
        return True
    first, first_tag = parts[0]
    if len(first) == 1 and not has_surname(word) and not stated:
        if len(word) == 2 and first_tag in FUNCTION_TAGS - {"v", "vg"}:
            return True  # 「多官」「座山」
        if len(parts) == 2 and first_tag in FUNCTION_TAGS:
            return True  # 「使铁棒」「闹天宫」: a verb and its object
    # two adjectives or adjective + verb: 「大惊」「快早」 (but 「黄盖」 is a surname and a name)
    two = len(parts) == 2 and first_tag == "a" and parts[1][1] in {"a", "v"}
    return two and not has_surname(word)


def _classify(word: str, s: GramStats, intros: _Intros) -> _Candidate | None:
    intro, stated = intros.names, intros.strong(word)
    known, tag, parts = _dictionary_tag(word)
    if _rejected_form(word, known, tag, parts, stated=stated):
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
        modified <= (0.35 if stated else 0.2)  # 「那红孩儿」: a stated name may take 那
        and after_pronoun <= 0.1
        and (s.left_edge >= (0.1 if has_surname(word) else 0.25) or word in intro)
        and (stated or _person_like(word, known, tag, speaker, named, intro))
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


@dataclass
class _Intros:
    """What the book's naming sentences say: names introduced by a marker, how often each is
    introduced with a clean right edge (「法名悟能，」), (full name, courtesy name) pairs from
    「姓X名Y字Z」 and (full name, given name) pairs from 「姓X，法名Y」."""

    names: set[str] = field(default_factory=set)
    bounded: dict[str, int] = field(default_factory=dict)
    courtesy: list[tuple[str, str]] = field(default_factory=list)
    given: list[tuple[str, str]] = field(default_factory=list)
    surnames: set[str] = field(default_factory=set)  # X of 「姓X」 in this book
    given_names: set[str] = field(default_factory=set)  # 「悟净」 of an introduced 「沙悟净」

    def strong(self, word: str) -> bool:
        """Introduced by a naming marker at least twice, each time ending cleanly, or the given
        name of an introduced full name: a name the book states as a name, whatever the
        dictionary makes of its characters (「悟能」「悟净」)."""
        return self.bounded.get(word, 0) >= 2 or word in self.given_names


def _introductions(texts: Sequence[str]) -> _Intros:
    found = _Intros()
    for text in texts:
        for m in _COURTESY.finditer(text):
            full = m.group(1) + m.group(2)
            found.courtesy.append((full, m.group(3)))
            found.names.update((full, m.group(3)))
        found.names.update(m.group(1) for m in _INTRO.finditer(text))
        for m in _BOUNDED_INTRO.finditer(text):
            found.bounded[m.group(1)] = found.bounded.get(m.group(1), 0) + 1
        for m in _SURNAME_GIVEN.finditer(text):
            surname, given = m.group(1), m.group(2)
            found.given.append((surname + given, given))
            found.names.update((surname + given, given))
    for text in texts:
        found.surnames.update(m.group(1) for m in _SURNAME.finditer(text))
    surnames = found.surnames | SURNAMES
    found.given_names = {
        n[1:] for n in found.names | set(found.bounded) if len(n) == 3 and n[0] in surnames
    }
    found.names.update(w for w in found.bounded if found.strong(w))
    found.names.update(found.given_names)
    return found


def _candidates(table: NGramTable, intros: _Intros) -> dict[str, _Candidate]:
    intro = intros.names
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
        found = _classify(word, s, intros)
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
    found: dict[str, _Candidate], intros: _Intros, texts: Sequence[str]
) -> list[tuple[str, str, str]]:
    """(name, alias, basis) suggestions among the accepted people."""
    people = {w for w, c in found.items() if c.type == "character"}
    edges = [
        (full, alias, "courtesy") for full, alias in intros.courtesy if {full, alias} <= people
    ]
    edges += [
        (full, given, "given_name") for full, given in intros.given if {full, given} <= people
    ]
    edges += _naming_edges(texts, people)
    edges += _synonym_edges(people)
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


def _synonym_edges(people: set[str]) -> list[tuple[str, str, str]]:
    """One surname with two words for the same role: 「沙僧」 and 「沙和尚」, 「唐僧」 and 「唐长老」."""
    edges: list[tuple[str, str, str]] = []
    for words in ROLE_SYNONYMS:
        for surname in {w[0] for w in people}:
            named = [surname + r for r in words if surname + r in people]
            edges += [(named[0], other, "title") for other in named[1:]]
    return edges


def _name_at(text: str, start: int, people: set[str]) -> str | None:
    """The longest accepted person name that begins at ``start``, after a naming verb that
    follows the naming word (「乳名叫做红孩儿」)."""
    verb = _NAMING_VERB.match(text, start)
    start = verb.end() if verb else start
    for n in range(MAX_LEN, 1, -1):
        if text[start : start + n] in people:
            return text[start : start + n]
    return None


def _name_before(text: str, end: int, people: set[str]) -> str | None:
    """The longest accepted person name that ends at ``end``, or one adverb before it
    (「悟能又叫做…」)."""
    for stop in (end, end - 1) if end and text[end - 1] in _CUE_ADVERBS else (end,):
        for n in range(MAX_LEN, 1, -1):
            if stop - n >= 0 and text[stop - n : stop] in people:
                return text[stop - n : stop]
    return None


def _naming_edges(texts: Sequence[str], people: set[str]) -> list[tuple[str, str, str]]:
    """Aliases the book states in its naming sentences:

    * 「A叫做B」「A唤做B」「A又名B」: the person named A is called B (both accepted names);
    * a chain of naming clauses about one subject in one sentence — 「乳名叫做红孩儿，号叫做圣婴
      大王」「法名悟能，臣又呼他为猪八戒」: a clause continues the chain when it opens with a naming
      word (号/字/法名/又名…) or calls the subject 「他」 (「呼他为」「唤他做」); a clause with
      another subject (「你叫做悟能」) breaks it, so two people are never joined.
    """
    edges: list[tuple[str, str, str]] = []
    for text in texts:
        for m in _NAMED_AS.finditer(text):
            a, b = _name_before(text, m.start(), people), _name_at(text, m.end(), people)
            if a and b and a != b and not (a in b or b in a):
                edges.append((a, b, "named"))
        for sentence in _NAMING_SENTENCE.findall(text):
            chain: list[str] = []
            for clause in _CLAUSE.split(sentence):
                more = _CHAIN_OPEN.match(clause) or _CALLS_HIM.search(clause)
                name = _name_at(clause, more.end(), people) if chain and more else None
                if name:
                    edges += [(o, name, "named") for o in chain if not (o in name or name in o)]
                    chain.append(name)
                    continue
                if chain and _SURNAME_CLAUSE.match(clause):
                    continue
                start = _ANY_CUE.search(clause) or _CHAIN_OPEN.match(clause)
                name = _name_at(clause, start.end(), people) if start else None
                chain = [name] if name else []
    return edges


def _groups(
    found: dict[str, _Candidate], edges: list[tuple[str, str, str]], table: NGramTable
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
    return [_card_order(g, table) for g in groups.values()]


def _card_order(group: list[str], table: NGramTable) -> list[str]:
    """The group's names, the card name first: the most formal of the names the book really
    uses (a hundredth of the most used one's mentions or more), so a disguise used three times
    (「沙四官」) never names the card of 「沙僧」."""
    floor = max(table.count(w) for w in group) / 100

    def rank(w: str) -> tuple[int, int, str]:
        return (-_formality(w) if table.count(w) >= floor else 0, -table.count(w), w)

    return sorted(group, key=rank)


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
    intros = _introductions(texts)
    found = _candidates(table, intros)
    edges = _alias_edges(found, intros, texts)
    locate = _Locator(ordered)
    entities = [
        e
        for g in _groups(found, edges, table)
        if (e := _entity(g, found, edges, table, locate)) is not None
    ]
    return sorted(entities, key=lambda e: (-e.mentions, e.name))
