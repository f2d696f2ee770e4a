"""Names in a candidate: future leaks (blocking) and unknown entities (advice), spec 000 §9, §4.

One scan serves both checks. The candidate body (NFC/LF by the WriterOutput contract, so offsets
are code points of the stored body) is matched leftmost-longest against the union of

* the names the context gives (card hits and their aliases, the fine outline's entities, names
  found in the context's own texts: prose evidence, fact evidence, narrative state …),
* the names the writer declared as new settings (``newSettingDeclarations``),
* the leak lexicon and the work's known names (entity lexicon, and the leak lexicon's ``known``),
* when the unknown-entity check runs, the proper-noun-like words the tagger finds in the body,
  and the names the body gives in a self-introduction and uses again (在下…, 名唤…).

The longest match wins, so a leak term inside a longer known or in-context name is not a leak
(小明 inside 王小明). A person the fine outline introduces in this chapter (a required entity
marked ``debut``, or a card whose 登场 is the target chapter and which the outline names) is
declared by the outline: its name and every alias of its card are exempt from the leak check.

The same scan decides whether a required entity is present: any name of its card valid as of the
freeze (or, for a debut, any name of its card) matched as a whole token, never as a substring of
a longer, different name (玄德 inside 刘玄德 is 刘备; 云长 inside 云长老 is not). When the same string is in several sets, the context wins over the leak
lexicon (the writer was shown it; a context that shows a future name is the context's fault, and
``tests/context`` guards that), the leak lexicon over a declaration (declaring a future name as
"new" does not make it any less a leak) and a declaration over the work's known names.

One finding per distinct name, at its first occurrence, with the number of occurrences.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from muse.context import WriterContext, WriterOutput
from muse.core.canonical import hash_value
from muse.core.segmentation import shared_jieba
from muse.core.text import normalize_text
from muse.knowledge import TermMatcher
from muse.planning import FineOutline
from muse.quality.compound_names import used_alone
from muse.quality.entities import EntityLexicon, EntitySpan, tagged_entities
from muse.quality.entity_words import PARTICLES
from muse.quality.findings import Finding
from muse.quality.leak import LeakLexicon
from muse.quality.name_signs import household, poem_or_piece, post_before, worth_reporting

_TITLE = re.compile(r"《([^《》\n]{1,40})》")
# categories by priority: a later one wins when a string is in several sets
KNOWN, TAGGED, DECLARED, LEAK, CONTEXT = "known", "tagged", "declared", "leak", "context"
DEBUT = "debut"  # a name of a person the outline introduces in this chapter


@dataclass(frozen=True)
class ContextNames:
    """What the writer was shown: its names, and all its text (for the "seen in context" test)."""

    names: frozenset[str]
    text: str


@dataclass(frozen=True)
class _Span:
    term: str
    start: int
    end: int
    category: str


_CACHE: dict[tuple[str, str], ContextNames] = {}
_CACHE_LIMIT = 32


def context_names(context: WriterContext, dictionary: Iterable[str] = ()) -> ContextNames:
    """Names of ``context``; ``dictionary`` (the work's known names) keeps coined names whole.

    Computed once per context snapshot and dictionary: rewrites of one run share the context.
    """
    terms = tuple(sorted({normalize_text(t) for t in dictionary}))
    key = (context.context_snapshot.sha256, hash_value(list(terms)))
    found = _CACHE.get(key)
    if found is None:
        found = _context_names(context, terms)
        if len(_CACHE) >= _CACHE_LIMIT:
            _CACHE.clear()
        _CACHE[key] = found
    return found


def _context_names(context: WriterContext, dictionary: tuple[str, ...]) -> ContextNames:
    text = "\n".join(_strings(context.wire()))
    names = set(_explicit_names(context))
    spans = list(_matches(text, {t: KNOWN for t in (*dictionary, *names)}))
    names |= {s.term for s in spans}
    names |= {e.text for e in _tagged_between(text, spans)}
    return ContextNames(frozenset(normalize_text(n) for n in names if n), text)


def _explicit_names(context: WriterContext) -> Iterator[str]:
    for hit in context.manifest.card_hits:
        yield hit.name
        yield from hit.state_as_of.get("aliases", [])
    outline = FineOutline.model_validate(context.fine_outline).hard_constraints
    yield from (e.name for e in outline.required_entities)
    for action in outline.foreshadowing:
        yield from action.cards


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


def name_findings(
    context: WriterContext,
    output: WriterOutput,
    *,
    leak_lexicon: LeakLexicon | None = None,
    entity_lexicon: EntityLexicon | None = None,
) -> list[Finding]:
    """``future_leak`` (high) findings when a leak lexicon is given; ``unknown_entity`` (medium)
    findings when an entity lexicon is given."""
    if leak_lexicon is None and entity_lexicon is None:
        return []
    known = set(entity_lexicon.terms if entity_lexicon else ()) | set(
        leak_lexicon.known if leak_lexicon else ()
    )
    shown = context_names(context, known)
    declared = [normalize_text(d.name).strip() for d in output.new_setting_declarations]
    categories = _categories(known, declared, leak_lexicon, shown.names)
    categories.update(dict.fromkeys(debut_terms(context, leak_lexicon), DEBUT))
    body = output.candidate_body
    if entity_lexicon is not None:
        spans = list(_matches(body, categories))
        for e in _tagged_between(body, spans):
            categories.setdefault(e.text, TAGGED)
        for term in _introduced(body):
            categories.setdefault(term, TAGGED)
    spans = list(_matches(body, categories))
    findings = _leaks(body, spans, leak_lexicon) if leak_lexicon is not None else []
    if entity_lexicon is not None:
        findings += _unknown(body, spans, shown, declared, entity_lexicon)
    return findings


# a self-introduction and the name it gives, up to the first punctuation: 「在下东方璃，」
_INTRODUCED = re.compile(
    r"(?:在下|我乃|名[叫唤][做作]?|唤[做作])([\u4e00-\u9fff]{2,4})[，。！？、：；”]"
)


def _introduced(body: str) -> set[str]:
    """Names a character gives right after 在下、我乃、名叫 … that the chapter uses again and
    jieba's dictionary does not hold: a coined name the tagger may miss (东方璃: 东方 is no
    surname of ``surnames.py``, being mostly an ordinary word)."""
    jieba = shared_jieba()
    return {
        name
        for name in _INTRODUCED.findall(body)
        if body.count(name) >= 2
        and not jieba.has_word(name)
        and not any(c in PARTICLES for c in name)
    }


def debut_terms(context: WriterContext, leak: LeakLexicon | None) -> set[str]:
    """Every name the outline introduces in this chapter (see module docstring): the declared
    debuts and all names of their cards; all names of a card whose 登场 is the target chapter and
    which the outline names; a name first used in the target chapter that the outline writes."""
    outline = FineOutline.model_validate(context.fine_outline)
    declared = {
        normalize_text(e.name).strip()
        for e in outline.hard_constraints.required_entities
        if e.debut
    }
    if leak is None:
        return declared
    named = "\n".join(_strings(context.fine_outline))
    target = context.target_chapter
    debut_cards = {t.card_id for term, t in leak.terms.items() if term in declared and t.card_id}
    debut_cards |= {
        t.card_id
        for t in leak.terms.values()
        if t.origin == "card" and t.first_chapter == target and t.card_id
    } & {t.card_id for term, t in leak.terms.items() if term in named}
    exempt = {term for term, t in leak.terms.items() if t.card_id in debut_cards}
    exempt |= {
        term for term, t in leak.terms.items() if t.first_chapter == target and term in named
    }
    return declared | exempt


def introduced_names(context: WriterContext, leak: LeakLexicon) -> dict[str, str]:
    """Term → card id of each name the outline introduces in this chapter (:func:`debut_terms`)
    that is a card's: the hard-event check counts it among that card's names (王母 for
    王母娘娘 when the outline says 本章起又称王母)."""
    return {
        term: leak.terms[term].card_id or ""
        for term in debut_terms(context, leak)
        if term in leak.terms and leak.terms[term].card_id
    }


def required_entity_findings(
    context: WriterContext,
    output: WriterOutput,
    *,
    leak_lexicon: LeakLexicon | None = None,
    entity_lexicon: EntityLexicon | None = None,
) -> list[Finding]:
    """``required_entity_missing`` (high): a required entity none of whose names is in the body
    as a whole token."""
    entities = FineOutline.model_validate(context.fine_outline).hard_constraints.required_entities
    names = {e.id: _entity_names(context, e.name, leak_lexicon, entity_lexicon) for e in entities}
    every = set().union(*names.values())
    known = set(entity_lexicon.terms if entity_lexicon else ()) | set(
        leak_lexicon.known if leak_lexicon else ()
    )
    categories = dict.fromkeys(known | set(context_names(context, known).names), KNOWN)
    categories.update(dict.fromkeys(leak_lexicon.terms if leak_lexicon else (), LEAK))
    categories.update(dict.fromkeys(every, CONTEXT))
    body = output.candidate_body
    spans = list(_matches(body, categories))
    found = {s.term for s in spans}
    return [
        Finding("required_entity_missing", "high", f"必须出场的「{e.name}」没有在正文中出现。")
        for e in entities
        if not names[e.id] & found and not any(_straddles(body, n, spans) for n in names[e.id])
    ]


def _straddles(body: str, name: str, spans: list[_Span]) -> bool:
    """Whether ``name`` occurs in ``body`` where no longer, different name holds it whole, but
    across the edge of one: 「兄之子孙皓」 is 子 + 孙皓 though the scan took 子孙 first. Which of
    two overlapping names the text means is the reader's call, not the scan's; the gate blocks
    only when the person is certainly absent (玄德 inside 刘玄德 is held whole: that is 刘备)."""
    at = body.find(name)
    while at >= 0:
        end = at + len(name)
        if not any(s.start <= at and end <= s.end and s.term != name for s in spans):
            return True
        at = body.find(name, at + 1)
    return False


def _entity_names(
    context: WriterContext, name: str, leak: LeakLexicon | None, entities: EntityLexicon | None
) -> set[str]:
    """``name`` and every alias of its card valid as of the freeze (a debut's: all of them)."""
    name = normalize_text(name).strip()
    out = {name}
    for hit in context.manifest.card_hits:
        aliases = hit.state_as_of.get("aliases", [])
        if name == hit.name or name in aliases:
            out |= {hit.name, *aliases}
    if entities is not None and name in entities.terms:
        card = entities.terms[name].card_id
        out |= {t for t, e in entities.terms.items() if e.card_id == card}
        if leak is not None:  # a nickname the outline introduces in this chapter counts too
            introduced = debut_terms(context, leak)
            out |= {t for t, e in leak.terms.items() if e.card_id == card and t in introduced}
    if leak is not None and name in leak.terms and name in debut_terms(context, leak):
        debut_card = leak.terms[name].card_id
        out |= {t for t, e in leak.terms.items() if debut_card and e.card_id == debut_card}
    return {normalize_text(n).strip() for n in out if n}


def _categories(
    known: set[str], declared: list[str], leak: LeakLexicon | None, shown: frozenset[str]
) -> dict[str, str]:
    categories = dict.fromkeys(known, KNOWN)
    categories.update(dict.fromkeys((d for d in declared if d), DECLARED))
    categories.update(dict.fromkeys(leak.terms if leak else (), LEAK))
    categories.update(dict.fromkeys(shown, CONTEXT))
    return categories


def _matches(text: str, categories: dict[str, str]) -> Iterator[_Span]:
    """Leftmost-longest, non-overlapping occurrences of the terms of ``categories``."""
    matcher = TermMatcher(categories)  # not the shared cache: these sets change per candidate
    pos = 0
    for term in matcher.finditer(text):
        start = text.find(term, pos)  # the leftmost occurrence at or after the last match
        pos = start + len(term)
        yield _Span(term, start, pos, categories[term])


def _tagged_between(text: str, spans: list[_Span]) -> Iterator[EntitySpan]:
    """The tagger's entities in the text between the known names ``spans`` of ``text``; whether
    a compound surname stands alone is judged on that text too (the cards' 司马懿, 司马昭 … are no
    sign that 司马 does)."""
    gaps = list(_gaps(spans, len(text)))
    alone = used_alone("\n".join(text[start:end] for start, end in gaps))
    for start, end in gaps:
        yield from tagged_entities(text[start:end], start, alone)


def _gaps(spans: list[_Span], length: int) -> Iterator[tuple[int, int]]:
    pos = 0
    for span in spans:
        if span.start > pos:
            yield pos, span.start
        pos = span.end
    if pos < length:
        yield pos, length


def _line(body: str, offset: int) -> int:
    return body.count("\n", 0, offset) + 1


def _first_of_each(spans: Iterable[_Span]) -> list[tuple[_Span, int]]:
    spans = list(spans)
    counts = Counter(s.term for s in spans)
    firsts: dict[str, _Span] = {}
    for s in spans:
        firsts.setdefault(s.term, s)
    return [(s, counts[s.term]) for s in firsts.values()]


def _leaks(body: str, spans: list[_Span], leak: LeakLexicon) -> list[Finding]:
    findings = []
    for span, count in _first_of_each(s for s in spans if s.category == LEAK):
        line = _line(body, span.start)
        findings.append(
            Finding(
                "future_leak",
                "high",
                f"未来泄漏：「{span.term}」{leak.terms[span.term].describe()}，"
                f"冻结点是第 {leak.as_of} 章；正文第 {line} 行起出现 {count} 次。",
                span.start,
                span.end,
                span.term,
                line,
            )
        )
    return findings


def _unknown(
    body: str,
    spans: list[_Span],
    shown: ContextNames,
    declared: list[str],
    lexicon: EntityLexicon,
) -> list[Finding]:
    def unseen(term: str) -> bool:
        return (
            term not in shown.text
            and not any(term in d for d in declared)
            and not lexicon.in_book(term)  # the book already used it: no new name
        )

    # names in the cards (KNOWN) are the work's own; only tagged, unseen words are advice
    located = [s for s in spans if s.category == TAGGED and unseen(s.term)]
    covered = [
        (s.start, s.end) for s in spans if s.category in (LEAK, CONTEXT, DECLARED, DEBUT, KNOWN)
    ]
    for match in _TITLE.finditer(body):
        title = match.group(1)
        start, end = match.span(1)
        inside = any(
            a < end and start < b for a, b in covered + [(s.start, s.end) for s in located]
        )
        if (
            not inside
            and not poem_or_piece(body, title, start)
            and unseen(title)
            and not (shared_jieba().has_word(title))
        ):
            located.append(_Span(title, start, end, "title"))  # 《春秋》: a word, no coinage
    located = [s for s in located if worth_reporting(body, s.term, s.start, s.category == "title")]
    terms = {s.term for s in located}
    located = [
        s
        for s in located
        if not post_before(s.term, terms) and not household(s.term, terms, unseen)
    ]
    located.sort(key=lambda s: s.start)
    return [_unknown_finding(body, s, n, lexicon) for s, n in _first_of_each(located)]


def _unknown_finding(body: str, span: _Span, count: int, lexicon: EntityLexicon) -> Finding:
    line = _line(body, span.start)
    where = f"正文第 {line} 行起出现 {count} 次"
    if span.category == "title":
        message = f"《{span.term}》不在上下文和前文中，也未申报为新设定；{where}。"
    else:
        message = (
            f"「{span.term}」像是新专名，前文、卡片和上下文中都没有，也未申报为新设定；{where}。"
        )
    return Finding("unknown_entity", "medium", message, span.start, span.end, span.term, line)
