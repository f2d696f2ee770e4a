"""Candidate scoring for model-free discovery (steps 1–2 of ``discovery``): which strings the book
repeats as names, and what each names.

* **Candidates** are the strings of 2–4 Han characters that the book repeats, hold together
  (cohesion) and stand free of their neighbours (left/right entropy): see ``discovery_stats``.
* **What they name** comes from how the book uses them: a speaker is followed by 「道/曰/说/笑」,
  a role noun is preceded by 「那/这/的/老」 (「那和尚」) and a name rarely is, a place follows
  「到/往/在」, a name may begin with a surname, end in a place, sect, item or technique suffix, or
  be introduced (「姓刘，名备，字玄德」「名叫林动」). rjieba's tagger says whether a candidate is a
  known word and of which part of speech: a known pronoun, verb or adverb is never a name.
* **Introductions** (:class:`Intros`) are read once from the naming sentences and serve both the
  scoring here and the alias grouping (``discovery_aliases``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from muse.core.segmentation import shared_jieba
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
    SURNAMES,
    TECH_SUFFIX,
    TITLES,
    has_surname,
)
from muse.knowledge.discovery_stats import MAX_LEN, GramStats, NGramTable

if TYPE_CHECKING:
    import rjieba

_COURTESY = re.compile(
    r"姓([\u4e00-\u9fff]{1,2})[，,]?(?:双)?名([\u4e00-\u9fff]{1,2})[，,]?(?:表)?字([\u4e00-\u9fff]{2})"
)
_INTRO = re.compile("(?:" + "|".join(INTRO_MARKERS) + r")([\u4e00-\u9fff]{2,3})")
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
PERSON_TAGS = frozenset({"nr", "nrfg", "nrt"})
FAMILY_MARKS = frozenset("氏")  # after a surname: a household, not one name
# 「赵家」「慕容家」: a surname and 家 name a family, an organisation of its own in web novels
FAMILY_HOUSE = "家"
TITLED_MIN, TITLED_SPEAKER = 20, 0.3  # a title used alone as a figure's name (「祖师道」)
NICKNAME_MIN = 20  # a nickname is proposed only when the book leans on it
STATED_SPEAKER = 0.2  # an introduced name seen speaking this often is a name (「明月道」)
TITLE_ENDINGS = tuple(t for t in TITLES if len(t) >= 2)
# a given name after a surname may be any word but a verb or a function word
GIVEN_NAME_BARRED = frozenset(
    {"v", "vd", "vg", "vi", "p", "c", "u", "uj", "ul", "ud", "r", "f", "q"}
)
BOUNDARY_FLOOR = 1.5  # nats; 「高叫」 (nearly always 「高叫道」) stays below it
FREQUENT, FREQUENT_COHESION = 50, 0.3  # a string seen this often needs less cohesion
# a first character with one of these tags opens a phrase, not a name (unless it is a surname)
FUNCTION_TAGS = frozenset({"m", "q", "p", "c", "u", "uj", "ul", "ud", "r", "d", "v", "vg", "f"})


def tagger() -> rjieba.Jieba:
    """The process's one jieba (default dictionary only, never mutated), shared with the index
    tokenizer and the entity tagger: a private one cost another ~0.1 s and ~25 MB."""
    return shared_jieba()


@dataclass
class Candidate:
    gram: str
    stats: GramStats
    type: str
    evidence: list[str]


def _ratio(neighbours: dict[str, int], chars: frozenset[str], total: int) -> float:
    return sum(c for ch, c in neighbours.items() if ch in chars) / total if total else 0.0


def _dictionary_tag(word: str) -> tuple[bool, str, list[tuple[str, str]]]:
    """(known word, its tag, the no-HMM split) by rjieba's default dictionary."""
    jieba = tagger()
    parts = jieba.tag(word, False)
    known = jieba.has_word(word)
    return known, parts[0][1] if len(parts) == 1 else "", parts


def _family(word: str) -> bool:
    """A surname and 家: 「赵家」「慕容家」."""
    head = word[:-1]
    return word.endswith(FAMILY_HOUSE) and (
        len(head) == 1 and head in SURNAMES or head in COMPOUND_SURNAMES
    )


def _morphology(word: str) -> str | None:
    if _family(word):
        return "faction"
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
    if len(word) == 2 and word[1] in FAMILY_MARKS and has_surname(word):  # 「陈氏」
        return True
    return bool(BAD_INSIDE.intersection(word[1:-1])) or set(word) <= DIRECTIONS


def _rejected_form(
    word: str, known: bool, tag: str, parts: list[tuple[str, str]], *, stated: bool = False
) -> bool:
    """``stated``: the book introduces ``word`` as a name (``Intros.strong``), so a verb for a
    first character (「悟能」「悟净」) does not make it a phrase."""
    if _bad_shape(word):
        return True
    if known:
        return tag not in NOUN_TAGS and not stated  # 「明月」 (a time word) introduced as a name
    if _surname_and_given(word, parts):
        return False
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


def _surname_and_given(word: str, parts: list[tuple[str, str]]) -> bool:
    """A surname standing apart from one two-character word that is not a verb or a function
    word: modern given names are often adjectives, numerals or idioms to the dictionary
    (「李|浩然」「秦|无双」「钱|多多」「司马|长空」), which must not make the name a phrase."""
    if len(parts) != 2 or not has_surname(word):
        return False
    (surname, _), (given, given_tag) = parts
    return (
        (len(surname) == 1 and surname in SURNAMES or surname in COMPOUND_SURNAMES)
        and len(given) == 2
        and given_tag not in GIVEN_NAME_BARRED
    )


def _classify(word: str, s: GramStats, intros: Intros) -> Candidate | None:
    intro = intros.names
    speaker = _ratio(s.right, SPEAKER_NEXT, s.count)
    # stated: introduced as a name twice, or introduced once and then speaking (「明月道」) —
    # whatever the dictionary makes of its characters
    stated = intros.strong(word) or (word in intro and speaker >= STATED_SPEAKER)
    known, tag, parts = _dictionary_tag(word)
    if _rejected_form(word, known, tag, parts, stated=stated):
        return None
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
        and (
            stated
            or _person_like(word, known, tag, speaker, named, intro)
            or _nickname(known, tag, s, speaker, named, modified)
        )
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
    return Candidate(word, s, kind, evidence)


def _nickname(
    known: bool, tag: str, s: GramStats, speaker: float, named: float, modified: float
) -> bool:
    """A common noun the book uses as one person's name (「胖子」「瘦猴」): modern dialogue rarely
    writes 「X道」, but the nickname opens its clauses, takes a person's moves (「胖子挠了挠头」)
    and almost never a determiner (「那个胖子」 would be anyone)."""
    return (
        known
        and tag == "n"
        and s.count >= NICKNAME_MIN
        and speaker >= 0.01  # seen talking at least now and then (「双手」 never is)
        and named >= 0.2
        and s.left_edge >= 0.6
        and modified <= 0.08
    )


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
    if not known and len(word) >= 3 and word.endswith(TITLE_ENDINGS):
        # a name before a title (「血煞老祖」「青松真人」「小师妹」): the title makes it a person
        return named >= 0.05 or speaker >= 0.03
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
class Intros:
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


def introductions(texts: Sequence[str]) -> Intros:
    found = Intros()
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


def candidates(
    table: NGramTable, intros: Intros, texts: Sequence[str] = ()
) -> dict[str, Candidate]:
    intro = intros.names
    grams = {
        w
        for w in table.frequent(_min_count(table))
        if not _bad_shape(w) and table.cohesion(w) >= _cohesion_floor(w, table.count(w))
    }
    grams |= {w for w in intro if table.count(w) >= 2 and 1 < len(w) <= MAX_LEN}
    roles = {r for r in ROLE_NOUNS if 1 < len(r) <= MAX_LEN and table.count(r) >= TITLED_MIN}
    stats = table.stats(grams | roles)
    accepted: dict[str, Candidate] = {}
    for word, s in stats.items():
        if word in roles and word not in grams:
            continue
        if word not in intro and not _boundary_ok(s):
            continue
        found = _classify(word, s, intros)
        if found is not None:
            accepted[word] = found
    accepted = _drop_fragments(accepted, table)
    for role in sorted(roles):
        accepted.update(_titled_figure(role, stats[role], table, texts, accepted))
    return accepted


def _titled_figure(
    role: str, s: GramStats, table: NGramTable, texts: Sequence[str], found: dict[str, Candidate]
) -> dict[str, Candidate]:
    """A figure the book names by a title alone (「祖师道」 for 须菩提祖师, spec: 拆书 aliases): the
    title speaks often, bare (no determiner, opening its clauses), and at least once follows a name
    the dictionary or the book knows as a name, written with it (「须菩提祖师」). Both are proposed,
    the title as the name's alias (``discovery_aliases``). A title with no such name is left out:
    「师父」 alone names whoever is the master."""
    speaker = _ratio(s.right, SPEAKER_NEXT, s.count)
    if speaker < TITLED_SPEAKER or _ratio(s.left, MODIFIER_PREV, s.count) > 0.1:
        return {}
    if s.left_edge < 0.5:
        return {}
    names = [n for n in _names_before(role, texts) if _name_word(n, found)]
    if not names:
        return {}
    evidence = [f"称号「{role}」单独作名字，其后接「道/曰/说」等 {speaker:.0%}"]
    out = {role: Candidate(role, s, "character", evidence)}
    for name in names:
        if name not in found:
            bare = GramStats(table.count(name), 0.0, 0.0, 0.0, {}, {})
            out[name] = Candidate(name, bare, "character", [f"写作「{name}{role}」"])
    return out


def _names_before(role: str, texts: Sequence[str]) -> set[str]:
    pattern = re.compile(r"([\u4e00-\u9fff]{2,3})" + re.escape(role))
    return {m.group(1) for text in texts for m in pattern.finditer(text)}


def _name_word(word: str, found: dict[str, Candidate]) -> bool:
    """An accepted person, or a noun the dictionary knows (「须菩提」), that no function word
    opens and that is no role noun itself."""
    if word in found:
        return found[word].type == "character"
    if word[0] in BAD_START or word in ROLE_NOUNS or _bad_shape(word):
        return False
    known, tag, _ = _dictionary_tag(word)
    return known and tag in NOUN_TAGS


def _drop_fragments(found: dict[str, Candidate], table: NGramTable) -> dict[str, Candidate]:
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
            if head in found and rest not in TITLES and tagger().has_word(rest):
                out.pop(long)  # 「三藏合掌」: a name and the word after it
                break
    return out


def _substrings(word: str) -> list[str]:
    n = len(word)
    return [word[i:j] for i in range(n) for j in range(i + 2, n + 1) if j - i < n]
