"""Alias grouping for model-free discovery (step 3 of ``discovery``): which accepted names are one
entity. Aliases are suggested, never decided:

* a courtesy name from an introduction, a given name inside a full name (「悟空」 in 「孙悟空」), a
  name with a title or prefix (「孙大圣」「齐天大圣」), a full name made of a stated surname and given
  name (「姓沙，法名悟净」);
* what the book's naming sentences say about one subject (「悟能叫做八戒」「法名悟净，臣又呼他为沙和
  尚」);
* one surname with two words for one role (「沙僧」「沙和尚」).

Each group's card name is the most formal name the book really uses.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from muse.knowledge.discovery_lexicon import (
    COMPOUND_SURNAMES,
    ROLE_NOUNS,
    ROLE_SYNONYMS,
    SURNAME_TITLES,
    SURNAMES,
    TITLES,
    has_surname,
)
from muse.knowledge.discovery_scoring import Candidate, Intros
from muse.knowledge.discovery_stats import MAX_LEN, NGramTable

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
# 「胖子叫王大力，」: a whole clause A叫B (A at the clause start, B at its end)
_CLAUSE_CALLED = re.compile(
    r"(?:^|(?<=[，。！？；：“”\s]))([\u4e00-\u9fff]{2,4}?)叫([\u4e00-\u9fff]{2,4})(?=[，。！？；])"
)
_SURNAME_CLAUSE = re.compile(r"^[^，,]{0,4}姓[\u4e00-\u9fff]$")


def alias_edges(
    found: dict[str, Candidate], intros: Intros, texts: Sequence[str]
) -> list[tuple[str, str, str]]:
    """(name, alias, basis) suggestions among the accepted people."""
    people = {w for w, c in found.items() if c.type == "character"}
    edges = [
        (full, alias, "courtesy") for full, alias in intros.courtesy if {full, alias} <= people
    ]
    edges += [
        (full, given, "given_name") for full, given in intros.given if {full, given} <= people
    ]
    edges += naming_edges(texts, people)
    edges += synonym_edges(people)
    edges += surname_title_edges(people)
    edges += titled_edges(people, texts)
    for long in people:
        # the accepted names that end ``long`` (「悟空」 of 「孙悟空」), looked up by suffix rather
        # than by comparing every pair of names
        suffixes = {long[i:] for i in range(1, len(long) - 1)}
        basis = "given_name" if has_surname(long) else "prefixed"
        edges += [(long, short, basis) for short in suffixes & people]
        edges += [
            (long[: -len(title)], long, "title")
            for title in TITLES
            if title in suffixes and long[: -len(title)] in people
        ]
    return edges


def surname_title_edges(people: set[str]) -> list[tuple[str, str, str]]:
    """A surname with a title (「苏总」「李队」「白秘书」「钱掌柜」) names the one accepted person of
    that surname with a given name; with two such people (「赵天龙」「赵无极」 for 「赵少」) it is
    left alone, never guessed."""
    edges: list[tuple[str, str, str]] = []
    for word in people:
        for surname in _surname_heads(word):
            if word[len(surname) :] not in SURNAME_TITLES:
                continue
            given = [
                p
                for p in people
                if p != word and p.startswith(surname) and p[len(surname) :] not in SURNAME_TITLES
            ]
            if len(given) == 1:
                edges.append((given[0], word, "title"))
    return edges


def titled_edges(people: set[str], texts: Sequence[str]) -> list[tuple[str, str, str]]:
    """A title the book uses alone as a figure's name is an alias of the name written before it
    (「须菩提祖师」 → 须菩提, with the alias 祖师)."""
    edges: list[tuple[str, str, str]] = []
    for role in sorted(people & ROLE_NOUNS):
        pattern = re.compile(r"([\u4e00-\u9fff]{2,3})" + re.escape(role))
        before = {m.group(1) for text in texts for m in pattern.finditer(text)}
        edges += [(name, role, "title") for name in sorted(before & people)]
    return edges


def _surname_heads(word: str) -> list[str]:
    heads = [word[:2]] if word[:2] in COMPOUND_SURNAMES else []
    return heads + ([word[0]] if word[0] in SURNAMES else [])


def synonym_edges(people: set[str]) -> list[tuple[str, str, str]]:
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


def naming_edges(texts: Sequence[str], people: set[str]) -> list[tuple[str, str, str]]:
    """Aliases the book states in its naming sentences:

    * 「A叫做B」「A唤做B」「A又名B」: the person named A is called B (both accepted names);
    * the modern 「A叫B」 only as a whole clause (「胖子叫王大力，」): A opens the clause and B
      closes it, so 「林凡叫胖子过来」 joins nobody;
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
        for m in _CLAUSE_CALLED.finditer(text):
            a, b = m.group(1), m.group(2)
            if a in people and b in people and not (a in b or b in a):
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


def groups(
    found: dict[str, Candidate], edges: list[tuple[str, str, str]], table: NGramTable
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
    if word in ROLE_NOUNS:
        return -1  # 「祖师」 is the alias of 「须菩提」
    if any(word[len(h) :] in SURNAME_TITLES for h in _surname_heads(word)):
        return 0  # 「白秘书」 is how 「白薇」 is addressed, not her name
    return 2 if has_surname(word) and len(word) >= 3 else 1 if has_surname(word) else 0
