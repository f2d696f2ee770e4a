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

* ``verified``: at least half of the key terms are there;
* ``contradicted``: fewer than 35 % (none, with one or two terms) — a blocking
  ``hard_event_unverified`` finding at the claim: the claimed text does not say what the event is;
* ``unverifiable``: in between, or too few key terms to judge. Never silently passed: it is listed
  for the semantic detector (``detector_marks``, shown in its input and stored in the report),
  which stays the only judge of what this gate cannot decide.

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
from muse.quality.findings import Finding

VERIFIED, PARTIAL = 0.5, 0.35
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
    found: tuple[str, ...]
    start: int | None = None
    end: int | None = None

    def note(self) -> str:
        return f"关键词 {len(self.found)}/{len(self.terms)} 处可见：{'、'.join(self.terms[:8])}"

    def to_dict(self) -> dict:
        return {
            "constraintId": self.constraint_id,
            "kind": self.kind,
            "status": self.status,
            "terms": list(self.terms),
            "found": list(self.found),
        }


def event_checks(context: WriterContext, output: WriterOutput) -> list[EventCheck]:
    outline = FineOutline.model_validate(context.fine_outline).hard_constraints
    groups = _entity_groups(context)
    body = output.candidate_body
    checks = []
    for event in outline.hard_events:
        regions = [
            _paragraph(body, c.start_code_point, c.end_code_point)
            for c in output.claim_ledger
            if c.claim_id.split(":", 1)[1] == event.id
        ]
        if regions:  # an unclaimed event is hard_constraint_missing already
            checks.append(_best(event, "hard_event", groups, body, regions))
    for scene in outline.required_scenes:
        checks.append(_best(scene, "required_scene", groups, body, [(0, len(body))]))
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
            findings.append(
                Finding("hard_event_unverified", "high", message, c.start, c.end, quote, line)
            )
        else:
            message = f"细纲必写场景 {c.constraint_id} 在正文中找不到（{c.note()}）。"
            findings.append(Finding("required_scene_missing", "high", message))
    return findings


def detector_marks(checks: Iterable[EventCheck]) -> list[dict]:
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
    regions: list[tuple[int, int]],
) -> EventCheck:
    terms = _key_terms(item.text, groups)
    best: EventCheck | None = None
    for start, end in regions:
        text = body[start:end]
        found = tuple(label for label, names in terms if any(n in text for n in names))
        status = _status(len(found), len(terms))
        check = EventCheck(item.id, kind, status, tuple(t for t, _ in terms), found, start, end)
        if best is None or len(found) > len(best.found):
            best = check
    assert best is not None
    return best


def _status(found: int, total: int) -> str:
    if total < 2:
        return "unverifiable"
    if found >= VERIFIED * total:
        return "verified"
    if found < PARTIAL * total or found == 0:
        return "contradicted"
    return "unverifiable"


def _key_terms(text: str, groups: list[frozenset[str]]) -> list[tuple[str, frozenset[str]]]:
    terms: list[tuple[str, frozenset[str]]] = []
    named: set[str] = set()
    for names in groups:
        inside = sorted((n for n in names if n in text), key=len, reverse=True)
        if inside:
            terms.append((inside[0], names))
            named |= set(inside)
    for word, tag in shared_jieba().tag(text, hmm=False):
        if (
            len(word) >= 2
            and all(is_han(c) for c in word)
            and tag.startswith(_CONTENT_TAGS)
            and word not in _EMPTY
            and not any(word in n or n in word for n in named)
            and word not in {t for t, _ in terms}
        ):
            terms.append((word, frozenset({word})))
    return terms


def _entity_groups(context: WriterContext) -> list[frozenset[str]]:
    groups = []
    for hit in context.manifest.card_hits:
        groups.append(frozenset({hit.name, *hit.state_as_of.get("aliases", [])}))
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
