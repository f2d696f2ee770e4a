"""One extracted card → a draft, with every part anchored in the chapter (章后抽取).

The extractor's card is rebuilt as a :class:`CardSpec` whose every claim carries a verified source
reference into the chapter:

* the card itself needs a verbatim quote, or the whole card is refused;
* a field needs a known key of the card type and a verbatim quote, or that field is refused
  (the rest of the card is kept); it is dated to the chapter (``since_chapter``);
* an alias must appear in the chapter's text, or it is refused;
* a required field the chapter does not state is written as a doubt (「本章正文未写明」), which
  never contradicts a confirmed value;
* a card new to the book gets a 登场 milestone at the chapter, so no as-of view before the
  chapter can see it (principle 4).

A proposal about a confirmed card that only says "it appears here" is reported as a mention and
not stored. A proposal already stored (same payload, any status) is a duplicate: re-running an
extraction adds nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Connection, select

from muse.core.errors import ContractViolation, MuseError
from muse.knowledge.card_types import CardType, card_type
from muse.knowledge.cards import require_valid, spec_of, spec_sha256
from muse.knowledge.contracts import Alias, CardField, CardSpec, Cycle, Milestone, SourceRef
from muse.knowledge.drafts import find_target, submit_draft
from muse.knowledge.extraction_contracts import ExtractedCard, ExtractionItem
from muse.knowledge.merging import compare_cards
from muse.knowledge.source_refs import ChapterTexts, locate_quote
from muse.knowledge.tables import card_drafts

UNSTATED = "本章正文未写明（章后抽取）"


def locate_in(texts: ChapterTexts, chapters: Sequence[int], quote: str) -> SourceRef:
    """A reference to the first verbatim occurrence of ``quote`` in the first of ``chapters``
    that holds it (a batch of several chapters); refused when none does."""
    for chapter in chapters:
        try:
            return locate_quote(texts, chapter, quote)
        except MuseError:
            continue
    if len(chapters) == 1:
        return locate_quote(texts, chapters[0], quote)
    where = f"第 {min(chapters)}–{max(chapters)} 章" if chapters else "本批各章"
    raise ContractViolation(f"引文「{quote[:30]}」不在{where}的原文中（须逐字一致）。")


def _refused(kind: str, name: str, detail: str, reason: str, quote: str | None) -> ExtractionItem:
    return ExtractionItem(
        kind=kind,  # type: ignore[arg-type]
        name=name,
        detail=detail,
        status="rejected",
        reason=reason,
        quote=quote,
    )


def _fields(
    kind: CardType,
    chapters: Sequence[int],
    proposal: ExtractedCard,
    texts: ChapterTexts,
    out: list[ExtractionItem],
) -> dict[str, CardField]:
    fields: dict[str, CardField] = {}
    for item in proposal.fields:
        definition = kind.field(item.key)
        if definition is None:
            reason = f"「{kind.label}」没有字段「{item.key}」。"
            out.append(_refused("field", proposal.name, item.key, reason, item.evidenceQuote))
            continue
        if definition.key in fields or not item.value.strip():
            continue
        try:
            ref = locate_in(texts, chapters, item.evidenceQuote)
        except MuseError as err:
            out.append(
                _refused("field", proposal.name, definition.key, err.message, item.evidenceQuote)
            )
            continue
        value: str | list[str] = [item.value] if definition.list else item.value
        fields[definition.key] = CardField(value=value, since_chapter=ref.chapter, refs=[ref])
    for definition in kind.fields:
        if definition.required and definition.key not in fields:
            fields[definition.key] = CardField(doubt=UNSTATED)
    return fields


def _aliases(
    chapters: Sequence[int], proposal: ExtractedCard, texts: ChapterTexts, out: list[ExtractionItem]
) -> list[Alias]:
    aliases = []
    for name in dict.fromkeys(a.strip() for a in proposal.aliases):
        if not name or name == proposal.name:
            continue
        found = [n for n in chapters if name in texts.get(n).text]
        if not found:
            where = f"第 {chapters[0]} 章" if len(chapters) == 1 else "本批各章"
            reason = f"别名「{name}」不在{where}的原文中。"
            out.append(_refused("alias", proposal.name, name, reason, None))
            continue
        aliases.append(Alias(name=name, since_chapter=found[0]))
    return aliases


def build_spec(
    conn: Connection,
    work_id: int,
    chapter: int,
    proposal: ExtractedCard,
    texts: ChapterTexts,
    out: list[ExtractionItem],
    *,
    batch: Sequence[int] | None = None,
) -> CardSpec | None:
    """The anchored spec of ``proposal``; None (and a refusal in ``out``) when it has no anchor.
    With ``batch`` (the chapters of a 拆书 batch) every quote is looked for in those chapters and
    each part is dated to the chapter its quote is in; ``chapter`` is then ignored."""
    chapters = list(batch) if batch else [chapter]
    try:
        kind = card_type(proposal.type)
        anchor = locate_in(texts, chapters, proposal.evidenceQuote)
    except MuseError as err:
        out.append(
            _refused("card", proposal.name, proposal.type, err.message, proposal.evidenceQuote)
        )
        return None
    spec = CardSpec(
        type=kind.key,
        name=proposal.name.strip(),
        aliases=_aliases(chapters, proposal, texts, out),
        fields=_fields(kind, chapters, proposal, texts, out),
        refs=[anchor],
    )
    if find_target(conn, work_id, spec) is None:
        debut = Milestone(
            chapter=anchor.chapter,
            step="登场",
            cycle=Cycle.debut,
            description="章后抽取",
            refs=[anchor],
        )
        spec = spec.model_copy(update={"milestones": [debut]})
    return spec


def _without_evidence(spec: CardSpec) -> CardSpec:
    """The content of ``spec`` without references and dates: what it says, not where."""
    fields = {
        k: v.model_copy(update={"refs": [], "since_chapter": None}) for k, v in spec.fields.items()
    }
    aliases = [Alias(name=a.name) for a in spec.aliases]
    return spec.model_copy(update={"refs": [], "fields": fields, "aliases": aliases})


def _only_mentions(conn: Connection, work_id: int, spec: CardSpec) -> bool:
    target = find_target(conn, work_id, spec)
    if target is None:
        return False
    merged, contradictions = compare_cards(spec_of(target), _without_evidence(spec))
    return not contradictions and spec_sha256(merged) == spec_sha256(spec_of(target))


def _stored_draft(conn: Connection, work_id: int, payload: str) -> str | None:
    return conn.execute(
        select(card_drafts.c.id).where(
            card_drafts.c.work_id == work_id,
            card_drafts.c.origin == "extract",
            card_drafts.c.payload_sha256 == payload,
        )
    ).scalar()


def propose_card(
    conn: Connection,
    work_id: int,
    chapter: int,
    proposal: ExtractedCard,
    texts: ChapterTexts,
    origin_detail: Mapping[str, Any],
) -> list[ExtractionItem]:
    """Submit ``proposal`` as a draft; every part refused or skipped is reported."""
    items: list[ExtractionItem] = []
    spec = build_spec(conn, work_id, chapter, proposal, texts, items)
    if spec is None:
        return items
    item = ExtractionItem(
        kind="card", name=spec.name, detail=spec.type, status="new", quote=proposal.evidenceQuote
    )
    try:
        spec = require_valid(spec)
    except MuseError as err:
        items.append(item.model_copy(update={"status": "rejected", "reason": err.message}))
        return items
    if _only_mentions(conn, work_id, spec):
        items.append(item.model_copy(update={"status": "mention"}))
        return items
    stored = _stored_draft(conn, work_id, spec_sha256(spec))
    if stored:
        items.append(item.model_copy(update={"status": "duplicate", "id": stored}))
        return items
    detail = {**dict(origin_detail), "confidence": proposal.confidence}
    outcome = submit_draft(conn, work_id, spec, origin="extract", origin_detail=detail)
    items.append(
        item.model_copy(
            update={
                "status": outcome.status,
                "id": outcome.draft_id,
                "conflicts": list(outcome.conflicts),
            }
        )
    )
    return items
