"""Hard events judged, not only claimed: a deterministic check of each claim's text (spec 000 §9).

The claim ledger says which sentence carries a hard event; a sentence rewritten so that the event
no longer happens still carries the claim. So the mechanical gate checks what it can: the hard
event's key terms, taken from the confirmed outline, must occur in the claimed span or its
paragraph. Key terms are

* the people and things of the outline that the event names, each as a group of all its names
  (a card hit's aliases as of the freeze, the outline's required entities): any of them counts;
* the event's content words (rjieba, nouns, verbs, adjectives, places, two characters or more,
  minus a short list of words that carry no event).

Outcomes, per hard event (the best of its claims):

* ``verified``: at least half of the key terms are in the claimed span or its paragraph, and at
  least half of the event's content words are in the claimed span itself (an event is what
  happens, not only who is there: a sentence that keeps the people under any alias, or sits
  beside the words of the event, or keeps one word of it while the rest changed — 水浒传
  ch. 34, 「心中疑惑，便问道」 rewritten around 庄上 — while saying something else, is not
  verified);
* ``contradicted`` — a blocking ``hard_event_unverified`` finding at the claim — only where the
  gate is certain, because a blocking finding is one the semantic detector cannot overrule:

  - nothing of the event is near the claim: none of its key terms (people by any alias, places,
    content words) in the claimed span or its paragraph;
  - or a required entity of the outline that the event names is named nowhere in the whole
    candidate, under any of its names as of the freeze: the event cannot happen without them.
    (A person the outline does not require may go by a name no card holds, 镇元大仙 told as
    大仙, so their absence is left to the detector.)
  - or a thing of the book the event names (a card that is no person: an item, a place, a
    technique) is named nowhere in the candidate;
  - or a **distinctive book term** of the event was changed in place: a content word the book
    used before in at most a fifth of its chapters (:func:`distinctive`: its own vocabulary, not
    a common word, not the author's modern word), that the whole candidate never uses, while the
    outline's words around it (three characters that are no name,
    :func:`~muse.quality.frames.changed_in_place`) stand in the candidate with another word of
    its length in its place. Absence alone is not enough: the hand-written paraphrased outlines
    of the bench use words the classic has a few times (回到, 告诉, 商量) where the chapter says
    回, 说与, 商议, and blocked 9 of 10 real chapters on absence alone. A distinctive term
    absent without that frame makes the event ``unverifiable``, never ``verified``;
  - or **a key word changed in the claimed sentence itself**: a content word of the event, common
    or rare, that the claimed span does not use, while the outline's words around it stand in the
    span or its paragraph with another word in its place (:mod:`muse.quality.frames`: Han
    characters of its length, none of them the word's own, no name of the work); or a person or
    thing of the event that the span does not name, with another card's name in its place. The
    prose then repeats the outline's sentence with its deed, place, thing or doer changed, which
    no paraphrase does; the chapter may still use the word elsewhere. A word that keeps one of
    the term's characters (劈断 for 斩断) is a variant, a name no card holds may be the same
    person, and a name in a word's place (the outline's 师父, the prose's 长老) may be too:
    none of them is a change;

  Otherwise the event's content words never contradict it: an outline is written in an
  author's own words (modern Chinese, a 细纲's phrasing), the prose in the book's, so the absence
  of the outline's words from the claimed sentence does not show the event is missing. Measured
  on real chapters with outlines written that way (``bench/detector_recall.py``), a rule that
  blocked on missing content words blocked 53 of 60 true events; one that blocked only when all
  the words were the book's own still blocked 3 (the note of issue 18);
* ``unverifiable``: everything else, or too few key terms to judge. Never silently passed: it is
  listed for the semantic detector (``detector_marks``, shown in its input and stored in the
  report), which stays the only judge of what this gate cannot decide.

A required scene of the outline (``required_scenes``) has no claim: it is looked for in the whole
body by the same key terms; absent (none of them) is a finding.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from muse.context import WriterContext, WriterOutput
from muse.core.segmentation import shared_jieba
from muse.core.text import is_han
from muse.planning import FineOutline, OutlineItem
from muse.quality.entities import EntityLexicon
from muse.quality.findings import Finding
from muse.quality.frames import changed_in_place, in_its_place, name_in_its_place

RARE = 0.2  # a word in at most this share of the book's chapters so far is the book's own term
RARE_MIN_CHAPTERS = 5  # fewer chapters so far: no word is known to be rare
THING_TYPES = frozenset(
    {"technique", "ability", "item", "artifact", "location", "region", "sect", "faction", "race"}
)
VERIFIED = 0.5  # share of the key terms near the claim, and of the content words in it
REACH = 60  # code points of the paragraph either side of the claimed span that still count
_CONTENT_TAGS = ("n", "v", "a", "s", "t", "i", "l")
_EMPTY = frozenset(
    [
        "一个",
        "一些",
        "这个",
        "那个",
        "这样",
        "那样",
        "什么",
        "怎么",
        "没有",
        "不是",
        "就是",
        "还是",
        "只是",
        "已经",
        "知道",
        "起来",
        "出来",
        "下来",
        "自己",
        "他们",
        "我们",
        "你们",
        "她们",
        "此时",
        "这时",
        "之后",
        "之前",
        "时候",
        "说道",
        "问道",
        "开始",
        "决定",
        "终于",
        "发现",
        "看见",
    ]
)


@dataclass(frozen=True)
class EventCheck:
    constraint_id: str
    kind: str  # hard_event | required_scene
    status: str  # verified | contradicted | unverifiable
    terms: tuple[str, ...]  # the key terms (a group by its first name)
    found: tuple[str, ...]  # in the claimed span or its paragraph
    in_claim: tuple[str, ...] = ()  # content words (no names) in the claimed span itself
    absent: tuple[str, ...] = ()  # names of the event that the whole candidate never uses
    gone: tuple[str, ...] = ()  # distinctive book terms of the event the candidate never uses
    start: int | None = None
    end: int | None = None
    changed: tuple[tuple[str, str], ...] = ()  # (term, what stands in its place near the claim)

    def note(self) -> str:
        note = f"关键词 {len(self.found)}/{len(self.terms)} 处可见：{'、'.join(self.terms[:8])}"
        if self.found and not self.in_claim:
            note += "；所声明的句子本身不含事件的内容词"
        if self.absent:
            note += f"；{'、'.join(self.absent)} 在全章中没有出现"
        if self.gone:
            note += f"；本书自己的词「{'、'.join(self.gone)}」在全章中没有出现"
        if self.changed:
            pairs = "、".join(f"「{t}」处写的是「{r}」" for t, r in self.changed)
            note += f"；细纲原句在所声明的段落里，{pairs}"
        return note

    def to_dict(self) -> dict[str, object]:
        return {
            "constraintId": self.constraint_id,
            "kind": self.kind,
            "status": self.status,
            "terms": list(self.terms),
            "found": list(self.found),
            "inClaim": list(self.in_claim),
            "gone": list(self.gone),
            "changed": [list(pair) for pair in self.changed],
        }


def event_checks(
    context: WriterContext, output: WriterOutput, known: EntityLexicon | None = None
) -> list[EventCheck]:
    """The hard events and required scenes of ``context`` checked in ``output``. ``known``: the
    work's names as of the freeze (:class:`~muse.quality.entities.EntityLexicon`), so that a
    person the context shows no card of is still a name (who is there), not a content word."""
    outline = FineOutline.model_validate(context.fine_outline).hard_constraints
    groups = _entity_groups(context, known)
    required = frozenset(e.name for e in outline.required_entities)
    body = output.candidate_body
    checks = []
    for event in outline.hard_events:
        regions = [
            (c.start_code_point, c.end_code_point)
            for c in output.claim_ledger
            if c.claim_id.split(":", 1)[1] == event.id
        ]
        if regions:  # an unclaimed event is hard_constraint_missing already
            checks.append(_best(event, "hard_event", groups, body, regions, required, known))
    for scene in outline.required_scenes:
        whole = [(0, len(body))]
        checks.append(_best(scene, "required_scene", groups, body, whole, required, known))
    return checks


def event_findings(checks: Iterable[EventCheck], body: str) -> list[Finding]:
    findings = []
    for c in checks:
        if c.status != "contradicted":
            continue
        if c.kind == "hard_event":
            line = body.count("\n", 0, c.start or 0) + 1
            quote = body[c.start : c.end] if c.start is not None else None
            message = f"硬事件 {c.constraint_id} 所声明的句子及其段落里看不到这件事（{c.note()}）。"
            if c.gone:
                gone = "、".join(c.gone)
                message = (
                    f"硬事件 {c.constraint_id} 的关键词「{gone}」在全章都没有出现（{c.note()}）。"
                )
            if c.changed:
                swaps = "、".join(f"「{t}」换成了「{r}」" for t, r in c.changed)
                message = (
                    f"硬事件 {c.constraint_id} 所声明的句子沿用了细纲的原话，却把{swaps}，"
                    f"这件事没有照细纲发生（{c.note()}）。"
                )
            if c.absent:
                who = "、".join(c.absent)
                message = f"硬事件 {c.constraint_id} 中必须出场的「{who}」在全章都没有出现（{c.note()}）。"
            findings.append(
                Finding("hard_event_unverified", "high", message, c.start, c.end, quote, line)
            )
        else:
            message = f"细纲必写场景 {c.constraint_id} 在正文中找不到（{c.note()}）。"
            findings.append(Finding("required_scene_missing", "high", message))
    return findings


def detector_marks(checks: Iterable[EventCheck]) -> list[dict[str, object]]:
    """What the mechanical gate could not decide, for the semantic detector to judge."""
    return [
        {**c.to_dict(), "note": f"机械门无法确认，须由语义检测判断：{c.note()}"}
        for c in checks
        if c.status == "unverifiable"
    ]


def _best(
    item: OutlineItem,
    kind: str,
    groups: list[frozenset[str]],
    body: str,
    claims: list[tuple[int, int]],
    required: frozenset[str] = frozenset(),
    known: EntityLexicon | None = None,
) -> EventCheck:
    """The best-supported of the claimed spans ``claims`` (each with its paragraph); ``required``:
    the names of the outline's required entities; ``known``: the book so far (what is rare)."""
    terms = _key_terms(item.text, groups)
    words = [(label, names) for label, names, is_name in terms if not is_name]
    everyone = frozenset(n for names in groups for n in names)  # every name of the work
    absent = tuple(
        label
        for label, names, is_name in terms
        if is_name
        and (names & required or _thing(names, known))
        and not _holds(body, names, everyone)
    )
    missing = [
        label
        for label, names in words
        if not any(n in body for n in names) and distinctive(label, known)
    ]
    people = [n for _, names, is_name in terms if is_name for n in names]
    gone = tuple(m for m in missing if changed_in_place(item.text, m, body, missing, people))
    best: EventCheck | None = None
    for claim_start, claim_end in claims:
        start, end = _paragraph(body, claim_start, claim_end)
        text, claimed = body[start:end], body[claim_start:claim_end]
        found = tuple(
            label
            for label, names, is_name in terms
            if (_holds(text, names, everyone) if is_name else any(n in text for n in names))
        )
        in_claim = tuple(label for label, names in words if any(n in claimed for n in names))
        changed = _changed(item.text, terms, in_claim, claimed, text, people, everyone)
        status = _status(
            len(found),
            len(terms),
            content=len(words),
            in_claim=len(in_claim),
            absent=len(absent) + len(gone) + len(changed),
            missing=len(missing),
            unseen=sum(is_name and label not in found for label, _, is_name in terms),
        )
        check = EventCheck(
            item.id,
            kind,
            status,
            tuple(t for t, _, _ in terms),
            found,
            in_claim,
            absent,
            gone,
            start,
            end,
            changed,
        )
        if best is None or _rank(check) > _rank(best):
            best = check
    assert best is not None
    return best


def _changed(
    event: str,
    terms: list[tuple[str, frozenset[str], bool]],
    in_claim: tuple[str, ...],
    claimed: str,
    text: str,
    people: list[str],
    everyone: frozenset[str],
) -> tuple[tuple[str, str], ...]:
    """(term, what stands in its place) for each key term of ``event`` that the claimed span
    ``claimed`` lacks while the outline's own words around it stand in ``text`` (the span and
    its paragraph) with another word, or another card's name, in its place (``frames.py``).
    ``people``: the names of the event's people; ``everyone``: every name of the work."""
    away = [label for label, _, is_name in terms if not is_name and label not in in_claim]
    words = tuple(
        (m, r) for m in away if (r := in_its_place(event, m, text, away, people, everyone))
    )
    doers = tuple(
        (label, r)
        for label, names, is_name in terms
        if is_name
        and not _holds(claimed, names, everyone)
        and (r := name_in_its_place(event, label, text, everyone - names, away, people))
    )
    return words + doers


def _holds(text: str, names: frozenset[str], everyone: frozenset[str]) -> bool:
    """Whether ``text`` names someone by one of ``names`` as a whole name: 林远 inside 林远山,
    another card's name, is not 林远 (a presence check is a token match, as for required
    people); inside a longer name of the same group (玄德 in 刘玄德) it is."""
    others = everyone - names
    for name in names:
        longer = [o for o in others if name in o]
        at = text.find(name)
        while at >= 0:
            if not any(_covers(text, other, name, at) for other in longer):
                return True
            at = text.find(name, at + 1)
    return False


def _covers(text: str, other: str, name: str, at: int) -> bool:
    """Whether an occurrence of ``other`` in ``text`` covers ``name`` found at ``at``."""
    inner = other.find(name)
    while inner >= 0:
        if at >= inner and text.startswith(other, at - inner):
            return True
        inner = other.find(name, inner + 1)
    return False


def distinctive(word: str, known: EntityLexicon | None) -> bool:
    """Whether the content word ``word`` of an outline is the book's own term, so that a chapter
    that never uses it does not tell the event: a word the book has used before in at most
    ``RARE`` of its chapters (and it has ≥ ``RARE_MIN_CHAPTERS`` of them). An author's own word
    (modern Chinese, not the book's) and a common word of the book are never distinctive: their
    absence says nothing. (The names of the book's things, cards, are :func:`_thing`.)"""
    if known is None:
        return False
    chapters = known.chapters_so_far()
    if chapters < RARE_MIN_CHAPTERS:
        return False
    most = int(RARE * chapters)
    return 0 < known.chapters_using(word, most) <= most


def _thing(names: frozenset[str], known: EntityLexicon | None) -> bool:
    """Whether ``names`` are a card's that is a thing of the book (an item, a place, a technique
    …), not a person: a thing has no name an author would make up on the page."""
    cards = (known.terms.get(n) for n in names) if known else ()
    return any(c is not None and c.card_type in THING_TYPES for c in cards)


def _rank(check: EventCheck) -> tuple[int, int, int]:
    order = {"contradicted": 0, "unverifiable": 1, "verified": 2}
    return order[check.status], len(check.in_claim), len(check.found)


def _status(
    found: int,
    total: int,
    *,
    content: int = 0,
    in_claim: int = 0,
    absent: int = 0,
    missing: int = 0,
    unseen: int = 0,
) -> str:
    """``found`` of ``total`` key terms near the claim; ``content`` of the terms are content
    words (not names), ``in_claim`` of them in the claimed span itself; ``absent`` of the names
    are nowhere in the candidate (with the book's distinctive terms the candidate changed in
    place); ``missing``: distinctive terms of the book the candidate never uses (an event
    without them is not verified); ``unseen``: people and things of the event named nowhere near
    the claim (under none of their names): an event is not verified without who does it.

    Contradicted only when certain: nothing of the event near the claim, or a person it names
    absent from the whole chapter. Verified when at least half of the terms are near the claim
    and, for an event with content words, the claimed span holds at least half of them (names
    prove who is there, not what happens). Everything else is left to the semantic detector."""
    if total < 2 and not absent:
        return "unverifiable"
    if found == 0 or absent:
        return "contradicted"
    said = content == 0 or in_claim >= VERIFIED * content
    if found >= VERIFIED * total and said and not (missing or unseen):
        return "verified"
    return "unverifiable"


def _key_terms(text: str, groups: list[frozenset[str]]) -> list[tuple[str, frozenset[str], bool]]:
    """(label, the names that count, whether it is a name) of each key term of ``text``."""
    terms: list[tuple[str, frozenset[str], bool]] = []
    named: set[str] = set()
    everyone = frozenset(n for names in groups for n in names)
    for names in groups:  # a name inside another person's longer name is not theirs (林远山)
        others = everyone - names
        inside = sorted(
            (n for n in names if n in text and _holds(text, frozenset({n}), others)),
            key=len,
            reverse=True,
        )
        if inside:
            terms.append((inside[0], names, True))
            named |= set(inside)
    for word, tag in shared_jieba().tag(text, hmm=False):
        if (
            len(word) >= 2
            and all(is_han(c) for c in word)
            and tag.startswith(_CONTENT_TAGS)
            and word not in _EMPTY
            and not any(word in n or n in word for n in named)
            and word not in {t for t, _, _ in terms}
        ):
            terms.append((word, frozenset({word}), False))
    return terms


def _entity_groups(
    context: WriterContext, known: EntityLexicon | None = None
) -> list[frozenset[str]]:
    groups = []
    for hit in context.manifest.card_hits:
        groups.append(frozenset({hit.name, *hit.state_as_of.get("aliases", [])}))
    by_card: dict[str, set[str]] = {}
    for term, card in (known.terms if known else {}).items():
        by_card.setdefault(card.card_id, set()).add(term)
    for term, card_id in (known.introduced if known else {}).items():
        by_card.setdefault(card_id, set()).add(term)  # a name the outline gives it this chapter
    for names in by_card.values():  # one group per person: a card hit's group takes its names
        at = next((i for i, g in enumerate(groups) if g & names), None)
        if at is None:
            groups.append(frozenset(names))
        else:
            groups[at] |= names
    outline = FineOutline.model_validate(context.fine_outline).hard_constraints
    for entity in outline.required_entities:
        if not any(entity.name in g for g in groups):
            groups.append(frozenset({entity.name}))
    return [frozenset(n for n in g if len(n) >= 2) for g in groups if g]


def _paragraph(body: str, start: int, end: int) -> tuple[int, int]:
    """The claimed span ``[start, end)`` and its paragraph around it, at most ``REACH`` code
    points either side (a classic novel's paragraph can hold a whole scene)."""
    left = body.rfind("\n", 0, start) + 1
    right = body.find("\n", end)
    right = len(body) if right < 0 else right
    return max(left, start - REACH), min(right, end + REACH)
