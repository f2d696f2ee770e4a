"""Post-chapter extraction (章后抽取): accepted prose → card drafts, conflicts, fact deltas.

After a chapter becomes canonical, the extractor (spec 003: one role, one call) reads it and
proposes knowledge. Nothing it says becomes canonical here (ARCHITECTURE.md principle 2):

* a proposed card becomes a *draft* through :func:`muse.knowledge.drafts.submit_draft`, so its
  contradictions with a confirmed card go to the conflict queue, never into the card;
* a proposed fact becomes a *fact delta* (``proposed``) through
  :func:`muse.knowledge.facts.propose_fact_delta`; the author approves it with ``muse facts``;
* every item must be anchored by a quote found verbatim in the chapter. An item whose quote is
  not there is refused and recorded in the report with the reason, never stored.

Two steps, so that the slow model call holds no transaction: :func:`run_extractor` freezes the
input (the chapter text and the confirmed cards as of that chapter, principle 4) and dispatches;
:func:`apply_extraction` writes the results in the caller's transaction, re-checking that the
chapter is still at the extracted revision. Applying the same output twice stores nothing new:
drafts are recognised by their payload hash, deltas by theirs (per chapter).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Engine, select

from muse.agents import dispatch
from muse.core.errors import MuseError
from muse.knowledge.card_state import work_state_as_of
from muse.knowledge.card_types import registry
from muse.knowledge.extraction_cards import propose_card
from muse.knowledge.extraction_contracts import (
    INPUT_SCHEMA,
    ChapterExtraction,
    ExtractedFact,
    ExtractionItem,
    ExtractionReport,
)
from muse.knowledge.fact_types import FACT_TYPE_LABELS
from muse.knowledge.facts import ShadowText, parse_proposal, proposal_sha256, propose_fact_delta
from muse.knowledge.source_refs import ChapterTexts
from muse.knowledge.tables import fact_deltas
from muse.store.engine import reading
from muse.works import get_chapter_text

ROLE, TASK = "extractor", "extract"


class StaleChapter(MuseError):
    """The chapter is no longer at the revision the extraction was asked for."""


@dataclass(frozen=True)
class ExtractorCall:
    output: ChapterExtraction
    receipt_id: str
    revision: int


def extraction_input(conn: Connection, work_id: int, chapter: int) -> dict[str, Any]:
    """The frozen input: the chapter's canonical text and what the book knows as of it."""
    text = get_chapter_text(conn, work_id, chapter)
    return text_extraction_input(conn, work_id, chapter, text.revision, text.title, text.text)


def text_extraction_input(
    conn: Connection, work_id: int, chapter: int, revision: int | None, title: str, text: str
) -> dict[str, Any]:
    """The input for ``text`` as chapter ``chapter`` (revision None: a candidate's text)."""
    known = [
        {"name": s.name, "type": s.type, "aliases": list(s.aliases)}
        for s in work_state_as_of(conn, work_id, chapter).visible()
    ]
    return {
        "schemaVersion": INPUT_SCHEMA,
        "task": "章后抽取：只抽本章正文写出的新知识与状态变化，每条带逐字原句。",
        "workId": work_id,
        "chapter": chapter,
        "revision": revision,
        "title": title,
        "text": text,
        "knownCards": known,
        "cardTypes": [
            {"key": t.key, "label": t.label, "fields": [f.key for f in t.fields]}
            for t in registry().types
        ],
        "factTypes": [{"type": k.value, "label": v} for k, v in FACT_TYPE_LABELS.items()],
    }


def current_revision(conn: Connection, work_id: int, chapter: int) -> int | None:
    """The chapter's canonical revision; None when the work has no such chapter any more."""
    try:
        return get_chapter_text(conn, work_id, chapter).revision
    except MuseError:
        return None


def stale_reason(conn: Connection, work_id: int, chapter: int, revision: int) -> str | None:
    """Why an extraction of (chapter, revision) no longer applies; None when it does."""
    current = current_revision(conn, work_id, chapter)
    if current is None:
        return f"第 {chapter} 章已不在作品中，抽取取消。"
    if current != revision:
        return (
            f"第 {chapter} 章已有修订版 {current}，本次抽取针对的修订版 {revision} 已过时，"
            "跳过（不是错误）。"
        )
    return None


def run_extractor(
    engine: Engine,
    work_id: int,
    chapter: int,
    revision: int,
    *,
    provider: str,
    model: str,
    run_id: str | None = None,
) -> ExtractorCall:
    """Freeze the input and call the extractor; raises :class:`StaleChapter` if it moved on."""
    with reading(engine) as conn:
        reason = stale_reason(conn, work_id, chapter, revision)
        if reason:
            raise StaleChapter(reason)
        task_input = extraction_input(conn, work_id, chapter)
    result = dispatch(
        engine,
        role=ROLE,
        task=TASK,
        provider=provider,
        model=model,
        task_input=task_input,
        output_model=ChapterExtraction,
        run_id=run_id,
    )
    assert isinstance(result.output, ChapterExtraction)
    return ExtractorCall(result.output, result.receipt_id, revision)


def apply_extraction(
    conn: Connection,
    work_id: int,
    chapter: int,
    revision: int,
    output: ChapterExtraction,
    *,
    receipt_id: str | None = None,
    origin_detail: Mapping[str, Any] | None = None,
) -> ExtractionReport:
    """Store the drafts and fact deltas of ``output`` in the caller's transaction."""
    reason = stale_reason(conn, work_id, chapter, revision)
    if reason:
        raise StaleChapter(reason)
    detail = {
        **dict(origin_detail or {}),
        "chapter": chapter,
        "revision": revision,
        "receiptId": receipt_id,
    }
    texts = ChapterTexts(conn, work_id)
    cards: list[ExtractionItem] = []
    for proposal in output.cards:
        cards += propose_card(conn, work_id, chapter, proposal, texts, detail)
    known = _known_deltas(conn, work_id, chapter)
    facts = [propose_extracted_fact(conn, work_id, chapter, f, detail, known) for f in output.facts]
    return ExtractionReport(
        work_id=work_id,
        chapter=chapter,
        revision=revision,
        receipt_id=receipt_id,
        cards=cards,
        facts=facts,
        findings=list(output.designFindings),
    )


def _known_deltas(conn: Connection, work_id: int, chapter: int) -> dict[str, str]:
    rows = conn.execute(
        select(fact_deltas.c.delta_sha256, fact_deltas.c.id).where(
            fact_deltas.c.work_id == work_id, fact_deltas.c.chapter == chapter
        )
    ).all()
    return {r.delta_sha256: r.id for r in rows}


def fact_document(chapter: int, fact: ExtractedFact) -> dict[str, Any]:
    """The fact delta proposal (facts.parse_proposal's input) for an extracted fact."""
    wire = fact.model_dump(exclude={"confidence", "evidenceQuote"})
    if "learnedFrom" in wire:
        wire["learned_from"] = wire.pop("learnedFrom")
    return {**wire, "chapter": chapter, "evidence_quote": fact.evidenceQuote}


def propose_extracted_fact(
    conn: Connection,
    work_id: int,
    chapter: int,
    fact: ExtractedFact,
    detail: Mapping[str, Any],
    known: dict[str, str],
    *,
    shadow: ShadowText | None = None,
) -> ExtractionItem:
    """Store one extracted fact as a proposed delta (``known``: sha256 → id of proposals already
    stored, updated here). With ``shadow`` the quote is checked against a shadow candidate's text
    (origin "candidate") instead of the canonical chapter. A refusal is reported, never raised."""
    item = ExtractionItem(
        kind="fact",
        name=fact.subject,
        detail=fact.type,
        status="rejected",
        quote=fact.evidenceQuote,
    )
    try:
        delta = parse_proposal(fact_document(chapter, fact))
        sha = proposal_sha256(delta)
        if sha in known:
            return item.model_copy(update={"status": "duplicate", "id": known[sha]})
        stored = propose_fact_delta(
            conn,
            work_id,
            delta,
            origin="extract" if shadow is None else "candidate",
            origin_detail={**detail, "confidence": fact.confidence},
            shadow=shadow,
        )
    except MuseError as err:  # a quote not found verbatim, a malformed delta: refused, recorded
        return item.model_copy(update={"reason": err.message})
    known[sha] = stored.id
    return item.model_copy(update={"status": "proposed", "id": stored.id})
