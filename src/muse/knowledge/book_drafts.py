"""One 拆书 batch's extraction → card drafts with milestones, merged per entity across batches.

A batch (book_extraction.py) is several chapters in one extractor call, so the output does not say
which chapter an item is about: **the quote does**. Every card, field and fact is placed in the
first chapter of the batch whose canonical text holds its quote verbatim; a quote no chapter holds
is refused and reported, never stored (spec 000 §5.2: a milestone carries a provable chapter).

* **Facts become milestones.** Besides its pending fact delta (``muse facts``), each verified fact
  is a 成长 milestone on its entity's card draft, at the chapter of its quote, with the reference.
* **One draft per entity**, enforced by the database: a new entity's draft is stored as its
  entity's keyed pending draft (``card_drafts.entity_key``, migration 0024); when two workers start
  the same entity at the same moment, the second insert is refused and that worker merges into the
  first one's draft. A proposal (card or milestone) about an entity that already has a
  pending draft from extraction or discovery — same type, and a shared name or alias (discovery's
  alias groups are the aliases of its drafts) — is merged into that draft, not stored beside it.
  An entity with only a confirmed card gets one update draft, merged into on later batches.
* **Contradictions are queued, never merged.** When a proposal contradicts the pending draft
  (another batch said otherwise), it is stored as its own draft and each contradiction goes to the
  conflict queue against the pending draft, at extraction time; a contradiction with a confirmed
  card is queued by ``submit_draft`` as before. Nothing is overwritten.

Applying the same output twice adds nothing (merging what is already there is a no-op; fact deltas
are recognised by their hash).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, select
from sqlalchemy.exc import IntegrityError

from muse.core.errors import MuseError
from muse.knowledge.card_types import card_type
from muse.knowledge.cards import get_card, require_valid, rewrite_card, spec_of
from muse.knowledge.cards import spec_sha256 as card_sha256
from muse.knowledge.conflicts import draft_conflicts, enqueue_conflicts
from muse.knowledge.contracts import (
    Alias,
    Card,
    CardField,
    CardSpec,
    CardStatus,
    Cycle,
    Milestone,
)
from muse.knowledge.drafts import submit_draft
from muse.knowledge.extraction import propose_extracted_fact, stale_reason
from muse.knowledge.extraction_cards import (
    UNSTATED,
    _only_mentions,
    build_spec,
    locate_in,
)
from muse.knowledge.extraction_contracts import (
    ChapterExtraction,
    ExtractedFact,
    ExtractionItem,
)
from muse.knowledge.fact_types import FACT_TYPE_LABELS, FactType
from muse.knowledge.merging import compare_cards
from muse.knowledge.source_refs import ChapterTexts
from muse.knowledge.tables import card_drafts, cards, fact_deltas

MILESTONE_NOTE = "拆书抽取"


class StaleBatch(MuseError):
    """A chapter of the batch is no longer at the revision the extraction was asked for."""


@dataclass(frozen=True)
class BatchReport:
    work_id: int
    chapters: list[tuple[int, int]]
    receipt_id: str | None
    cards: list[ExtractionItem]
    facts: list[ExtractionItem]
    milestones: list[ExtractionItem]
    findings: list[str]

    @property
    def rejected(self) -> list[ExtractionItem]:
        return [i for i in [*self.cards, *self.facts] if i.status == "rejected"]

    @property
    def conflicts(self) -> list[str]:
        return [c for i in [*self.cards, *self.milestones] for c in i.conflicts]

    def to_json(self) -> dict[str, Any]:
        return {
            "workId": self.work_id,
            "chapters": [list(c) for c in self.chapters],
            "receiptId": self.receipt_id,
            "cards": [i.model_dump(mode="json") for i in self.cards],
            "facts": [i.model_dump(mode="json") for i in self.facts],
            "milestones": [i.model_dump(mode="json") for i in self.milestones],
            "rejected": [i.model_dump(mode="json") for i in self.rejected],
            "conflicts": self.conflicts,
            "findings": self.findings,
        }


# --- the entity's pending draft ----------------------------------------------------------------


def _names(spec: CardSpec) -> set[str]:
    return {spec.name, *(a.name for a in spec.aliases)}


def _pending(conn: Connection, work_id: int, kind: str | None) -> list[tuple[str, str, set[str]]]:
    """(draft id, shadow card id, names) of the pending drafts (of type ``kind``), oldest first:
    one query for the names, the cards themselves are read only for a match."""
    query = (
        select(card_drafts.c.id, card_drafts.c.card_id, cards.c.name, cards.c.aliases)
        .select_from(card_drafts.join(cards, cards.c.id == card_drafts.c.card_id))
        .where(card_drafts.c.work_id == work_id, card_drafts.c.status == "pending")
        .order_by(card_drafts.c.created_at, card_drafts.c.id)
    )
    if kind is not None:
        query = query.where(cards.c.type == kind)
    return [
        (r.id, r.card_id, {r.name, *(a["name"] for a in r.aliases or [])})
        for r in conn.execute(query)
    ]


def pending_draft_of(conn: Connection, work_id: int, spec: CardSpec) -> tuple[str, Card] | None:
    """(draft id, shadow card) of the oldest pending draft about ``spec``'s entity: same type, a
    shared name or alias (a draft holding only a milestone for a confirmed card counts too)."""
    mine = _names(spec)
    for draft_id, card_id, names in _pending(conn, work_id, card_type(spec.type).key):
        if mine & names:
            return draft_id, get_card(conn, card_id)
    return None


def land(
    conn: Connection,
    work_id: int,
    spec: CardSpec,
    detail: Mapping[str, Any],
    item: ExtractionItem,
    *,
    retry: bool = True,
) -> ExtractionItem:
    """Store ``spec`` as (part of) its entity's draft and say what became of it."""
    spec = require_valid(spec)
    pending = pending_draft_of(conn, work_id, spec)
    if pending is None:
        try:
            with conn.begin_nested():
                outcome = submit_draft(
                    conn, work_id, spec, origin="extract", origin_detail=dict(detail), keyed=True
                )
        except IntegrityError:
            if not retry:
                raise
            # another worker stored this entity's draft after we looked and committed first
            # (the pending-entity index refused ours): merge into it as if it had been there
            return land(conn, work_id, spec, detail, item, retry=False)
        return item.model_copy(
            update={
                "status": outcome.status,
                "id": outcome.draft_id,
                "conflicts": list(outcome.conflicts),
            }
        )
    draft_id, shadow = pending
    # the pending draft keeps its name; the proposal's own name becomes an alias of it
    spec = _renamed(spec, shadow.name)
    shadow = _earliest_debut(conn, shadow, spec)
    spec = spec.model_copy(
        update={"milestones": [m for m in spec.milestones if m.cycle is not Cycle.debut]}
    )
    merged, contradictions = compare_cards(spec_of(shadow), spec)
    if contradictions:  # another batch said otherwise: a draft of its own, each point queued
        outcome = submit_draft(conn, work_id, spec, origin="extract", origin_detail=dict(detail))
        if outcome.draft_id is None:
            return item.model_copy(update={"status": outcome.status})
        queued = enqueue_conflicts(conn, work_id, outcome.draft_id, shadow.id, contradictions)
        return item.model_copy(
            update={
                "status": "conflict",
                "id": outcome.draft_id,
                "conflicts": [*outcome.conflicts, *queued],
            }
        )
    if card_sha256(merged) == card_sha256(spec_of(shadow)):
        return item.model_copy(update={"status": "duplicate", "id": draft_id})
    rewrite_card(conn, shadow, merged)
    conflicts = _queue_against_target(conn, work_id, draft_id, merged)
    conn.execute(
        card_drafts.update()
        .where(card_drafts.c.id == draft_id)
        .values(payload_sha256=card_sha256(merged))
    )
    return item.model_copy(update={"status": "merged", "id": draft_id, "conflicts": conflicts})


def _earliest_debut(conn: Connection, shadow: Card, spec: CardSpec) -> Card:
    """Both are machine proposals: the entity debuts at the earliest chapter either proves (batches
    may finish out of order), which refines the pending draft and contradicts nothing."""
    theirs = [m for m in spec.milestones if m.cycle is Cycle.debut and m.chapter is not None]
    mine = [m.chapter for m in shadow.milestones if m.cycle is Cycle.debut and m.chapter]
    if not theirs or (mine and min(mine) <= (theirs[0].chapter or 0)):
        return shadow
    rest = [m for m in shadow.milestones if m.cycle is not Cycle.debut]
    return rewrite_card(
        conn, shadow, spec_of(shadow).model_copy(update={"milestones": [theirs[0], *rest]})
    )


def _renamed(spec: CardSpec, name: str) -> CardSpec:
    if spec.name == name:
        return spec
    aliases = [a for a in spec.aliases if a.name != name]
    if spec.name not in {a.name for a in aliases}:
        first = min((r.chapter for r in spec.refs), default=None)
        aliases.append(Alias(name=spec.name, since_chapter=first))
    return spec.model_copy(update={"name": name, "aliases": aliases})


def _queue_against_target(
    conn: Connection, work_id: int, draft_id: str, merged: CardSpec
) -> list[str]:
    """Contradictions of a merged pending update draft with its confirmed card, not yet queued."""
    target_id = conn.execute(
        select(card_drafts.c.target_card_id).where(card_drafts.c.id == draft_id)
    ).scalar()
    if target_id is None:
        return []
    target = get_card(conn, target_id)
    if target.status is not CardStatus.confirmed:
        return []
    known = {subject for subject, _ in draft_conflicts(conn, draft_id)}
    _, contradictions = compare_cards(spec_of(target), merged, skip=known)
    return enqueue_conflicts(conn, work_id, draft_id, target.id, contradictions)


# --- facts as milestones -----------------------------------------------------------------------


def fact_summary(fact: ExtractedFact) -> str:
    """The fact in a few words, for the milestone's description."""
    match fact.type:
        case "entity_state":
            return f"{fact.attribute}：{fact.value}"
        case "relation":
            return f"与{fact.target}{fact.change}{fact.relation}关系"
        case "location":
            return f"到{fact.location}" + (f"（原在{fact.previous}）" if fact.previous else "")
        case "possession":
            return f"{fact.change}{fact.item}"
        case "knowledge":
            return f"得知{fact.knows}"
        case _:
            return f"{fact.ability}，代价：{fact.cost}"


def _entity_spec(conn: Connection, work_id: int, subject: str) -> CardSpec | None:
    """A spec naming the entity ``subject`` is about: its pending draft's, else its confirmed
    card's (by name, then by a unique alias); None when the book knows no such entity (then the
    fact stays a pending fact only)."""
    for _, card_id, names in _pending(conn, work_id, None):
        if subject in names:
            return spec_of(get_card(conn, card_id))
    rows = conn.execute(
        select(cards.c.id, cards.c.name, cards.c.aliases).where(
            cards.c.work_id == work_id, cards.c.status == "confirmed"
        )
    ).all()
    by_name = [r.id for r in rows if r.name == subject]
    by_alias = [r.id for r in rows if subject in {a["name"] for a in r.aliases or []}]
    found = by_name or (by_alias if len(by_alias) == 1 else [])
    return spec_of(get_card(conn, found[0])) if found else None


def _milestone_item(
    conn: Connection,
    work_id: int,
    fact: ExtractedFact,
    texts: ChapterTexts,
    chapters: Sequence[int],
    detail: Mapping[str, Any],
) -> ExtractionItem:
    item = ExtractionItem(
        kind="milestone",
        name=fact.subject,
        detail=fact.type,
        status="rejected",
        quote=fact.evidenceQuote,
    )
    entity = _entity_spec(conn, work_id, fact.subject)
    if entity is None:
        reason = f"作品中没有「{fact.subject}」的卡片或草稿，只记为待批准的事实。"
        return item.model_copy(update={"status": "unchanged", "reason": reason})
    ref = locate_in(texts, chapters, fact.evidenceQuote)
    milestone = Milestone(
        chapter=ref.chapter,
        step=FACT_TYPE_LABELS[FactType(fact.type)],
        cycle=Cycle.growth,
        description=f"{fact_summary(fact)}（{MILESTONE_NOTE}）",
        refs=[ref],
    )
    # a milestone-only proposal states no field: each required field is an explicit doubt, which
    # never contradicts a value; nothing else of the entity is restated
    doubts = {d.key: CardField(doubt=UNSTATED) for d in card_type(entity.type).fields if d.required}
    spec = entity.model_copy(
        update={"milestones": [milestone], "fields": doubts, "refs": [ref], "relations": []}
    )
    return land(conn, work_id, spec, detail, item)


# --- the batch ---------------------------------------------------------------------------------


def apply_batch(
    conn: Connection,
    work_id: int,
    chapters: Sequence[tuple[int, int]],
    output: ChapterExtraction,
    *,
    receipt_id: str | None = None,
    origin_detail: Mapping[str, Any] | None = None,
) -> BatchReport:
    """Store one batch's drafts, milestones and fact deltas in the caller's transaction."""
    for number, revision in chapters:
        reason = stale_reason(conn, work_id, number, revision)
        if reason:
            raise StaleBatch(reason)
    numbers = [n for n, _ in chapters]
    detail = {
        **dict(origin_detail or {}),
        "chapters": numbers,
        "receiptId": receipt_id,
    }
    texts = ChapterTexts(conn, work_id)
    card_items: list[ExtractionItem] = []
    for proposal in output.cards:
        card_items += _propose(conn, work_id, numbers, proposal, texts, detail)
    fact_items: list[ExtractionItem] = []
    milestone_items: list[ExtractionItem] = []
    known = _known_deltas(conn, work_id, numbers)
    for fact in output.facts:
        try:
            chapter = locate_in(texts, numbers, fact.evidenceQuote).chapter
        except MuseError as err:
            fact_items.append(
                ExtractionItem(
                    kind="fact",
                    name=fact.subject,
                    detail=fact.type,
                    status="rejected",
                    reason=err.message,
                    quote=fact.evidenceQuote,
                )
            )
            continue
        stored = propose_extracted_fact(conn, work_id, chapter, fact, detail, known)
        fact_items.append(stored)
        if stored.status in ("proposed", "duplicate"):
            milestone_items.append(_milestone_item(conn, work_id, fact, texts, numbers, detail))
    return BatchReport(
        work_id=work_id,
        chapters=[tuple(c) for c in chapters],  # type: ignore[misc]
        receipt_id=receipt_id,
        cards=card_items,
        facts=fact_items,
        milestones=milestone_items,
        findings=list(output.designFindings),
    )


def _propose(
    conn: Connection,
    work_id: int,
    numbers: Sequence[int],
    proposal: Any,
    texts: ChapterTexts,
    detail: Mapping[str, Any],
) -> list[ExtractionItem]:
    items: list[ExtractionItem] = []
    spec = build_spec(conn, work_id, numbers[0], proposal, texts, items, batch=numbers)
    if spec is None:
        return items
    item = ExtractionItem(
        kind="card", name=spec.name, detail=spec.type, status="new", quote=proposal.evidenceQuote
    )
    try:
        spec = require_valid(spec)
    except MuseError as err:
        return [*items, item.model_copy(update={"status": "rejected", "reason": err.message})]
    if pending_draft_of(conn, work_id, spec) is None and _only_mentions(conn, work_id, spec):
        return [*items, item.model_copy(update={"status": "mention"})]
    merged = {**dict(detail), "confidence": proposal.confidence}
    return [*items, land(conn, work_id, spec, merged, item)]


def _known_deltas(conn: Connection, work_id: int, chapters: Sequence[int]) -> dict[str, str]:
    rows = conn.execute(
        select(fact_deltas.c.delta_sha256, fact_deltas.c.id).where(
            fact_deltas.c.work_id == work_id, fact_deltas.c.chapter.in_(list(chapters))
        )
    ).all()
    return {r.delta_sha256: r.id for r in rows}
