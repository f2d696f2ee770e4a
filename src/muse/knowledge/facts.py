"""Fact deltas → the fact ledger (spec 001 §6): only the author's approval makes a fact canonical.

A proposal is refused unless its evidence quote occurs verbatim (after NFC) in the canonical text
of its chapter; the quote's place is stored as a source reference, so a later edit of the chapter
marks it stale (source_refs.revalidate_source_refs). Approval checks the quote again against the
text as it is then, and writes the ledger entry in the caller's transaction: the accept flow
approves the deltas of a chapter in the same transaction that makes its text canonical.

A proposal can also be made against a :class:`ShadowText` (a chapter candidate, not canonical
yet): the quote is checked against that text, the proposal has origin ``candidate`` and no source
reference, because a reference may only point at canonical text. Its reference is made when it is
approved, against the canonical text as it is then (normally inside the accept transaction, right
after the candidate's text became canonical); a quote that is not there refuses the approval.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError
from sqlalchemy import Connection, Row, bindparam, select

from muse.core.canonical import hash_value
from muse.core.clock import iso, utc_now
from muse.core.errors import ContractViolation, InvalidInput, NotFound
from muse.core.ids import new_id
from muse.core.text import normalize_text
from muse.knowledge.contracts import SourceRef
from muse.knowledge.fact_types import (
    COMMON_KEYS,
    PROPOSAL,
    FactDelta,
    FactDeltaProposal,
    LedgerEntry,
)
from muse.knowledge.source_refs import ChapterTexts, delete_refs, load_refs, locate_quote, save_refs
from muse.knowledge.tables import fact_deltas, fact_ledger
from muse.store.cas import compare_and_set
from muse.store.prepared import Prepared

ORIGINS = ("extract", "manual", "candidate")


@dataclass(frozen=True)
class ShadowText:
    """A chapter text that is not canonical yet: the body of a chapter candidate."""

    candidate_id: str
    sha256: str  # candidateSha256
    chapter: int
    text: str


def parse_proposal(data: Mapping[str, Any] | FactDeltaProposal) -> FactDeltaProposal:
    if not isinstance(data, Mapping):
        return data
    try:
        return PROPOSAL.validate_python(dict(data))
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ContractViolation(
            f"事实增量不合格式（{where}）：{first['msg']}。",
            hint="类型只能是 entity_state / relation / location / possession / "
            "knowledge / ability_cost 之一。",
        ) from None


def propose_fact_delta(
    conn: Connection,
    work_id: int,
    proposal: Mapping[str, Any] | FactDeltaProposal,
    *,
    origin: str = "extract",
    origin_detail: Mapping[str, Any] | None = None,
    shadow: ShadowText | None = None,
) -> FactDelta:
    """Store a proposed delta; a quote not found verbatim in its chapter is refused (nothing stored).

    With ``shadow``, the quote is checked against that candidate text instead and the proposal is
    stored with origin ``candidate`` and no source reference (see the module docstring).
    """
    if origin not in ORIGINS or (origin == "candidate") != (shadow is not None):
        raise ValueError(f"fact delta origin {origin!r} with shadow={shadow is not None}")
    delta = parse_proposal(proposal)
    detail = dict(origin_detail or {})
    evidence = None
    if shadow is None:
        evidence = locate_quote(ChapterTexts(conn, work_id), delta.chapter, delta.evidence_quote)
        quote = evidence.quote
    else:
        quote, start = _locate_in_shadow(shadow, delta)
        detail.update(
            candidateId=shadow.candidate_id,
            candidateSha256=shadow.sha256,
            chapter=shadow.chapter,
            quoteStart=start,
            quoteEnd=start + len(quote),
        )
    document = delta.model_dump(mode="json")
    delta_id = new_id("fact")
    conn.execute(
        fact_deltas.insert().values(
            id=delta_id,
            work_id=work_id,
            type=delta.type,
            chapter=delta.chapter,
            subject=delta.subject,
            payload={k: v for k, v in document.items() if k not in COMMON_KEYS},
            evidence_quote=quote,
            delta_sha256=proposal_sha256(delta),
            origin=origin,
            origin_detail=detail,
            status="proposed",
            created_at=utc_now(),
        )
    )
    if evidence is not None:
        save_refs(conn, work_id, "fact_delta", delta_id, "evidence", [evidence])
    return get_fact_delta(conn, delta_id)


def _locate_in_shadow(shadow: ShadowText, delta: FactDeltaProposal) -> tuple[str, int]:
    """The NFC quote and its first code point offset in the candidate text, or refuse."""
    if delta.chapter != shadow.chapter:
        raise ContractViolation(
            f"事实增量写的是第 {delta.chapter} 章，但候选 {shadow.candidate_id} "
            f"是第 {shadow.chapter} 章的。"
        )
    quote = normalize_text(delta.evidence_quote)
    start = shadow.text.find(quote) if quote else -1
    if start < 0:
        short = quote if len(quote) <= 24 else quote[:24] + "…"
        raise ContractViolation(
            f"引文「{short}」不在候选 {shadow.candidate_id} 的正文中（须逐字一致）。"
        )
    return quote, start


def _to_delta(
    row: Row[*tuple[Any, ...]], refs: Mapping[tuple[str, str], list[SourceRef]]
) -> FactDelta:
    found = refs.get((row.id, "evidence"))
    if found:
        start, end, stale = found[0].start, found[0].end, found[0].stale
    else:  # a candidate proposal not approved yet: offsets in the candidate text
        detail = row.origin_detail
        start, end, stale = detail["quoteStart"], detail["quoteEnd"], False
    return FactDelta(
        id=row.id,
        work_id=row.work_id,
        type=row.type,
        chapter=row.chapter,
        subject=row.subject,
        payload=row.payload,
        evidence_quote=row.evidence_quote,
        evidence_start=start,
        evidence_end=end,
        evidence_stale=stale,
        status=row.status,
        origin=row.origin,
        created_at=iso(row.created_at) or "",
        decided_at=iso(row.decided_at),
    )


def get_fact_delta(conn: Connection, delta_id: str) -> FactDelta:
    row = conn.execute(select(fact_deltas).where(fact_deltas.c.id == delta_id)).first()
    if row is None:
        raise NotFound(f"事实增量 {delta_id} 不存在。", hint="用 muse facts 查看。")
    return _to_delta(row, load_refs(conn, "fact_delta", owner_ids=[delta_id]))


def list_fact_deltas(
    conn: Connection, work_id: int, *, status: str | None = None
) -> list[FactDelta]:
    query = (
        select(fact_deltas)
        .where(fact_deltas.c.work_id == work_id)
        .order_by(fact_deltas.c.chapter, fact_deltas.c.created_at, fact_deltas.c.id)
    )
    if status is not None:
        query = query.where(fact_deltas.c.status == status)
    rows = conn.execute(query).all()
    refs = load_refs(conn, "fact_delta", work_id=work_id)
    return [_to_delta(row, refs) for row in rows]


def _shadow_rows(conn: Connection, work_id: int, candidate_id: str) -> list[Row[*tuple[Any, ...]]]:
    rows = conn.execute(
        select(fact_deltas)
        .where(fact_deltas.c.work_id == work_id, fact_deltas.c.origin == "candidate")
        .order_by(fact_deltas.c.created_at, fact_deltas.c.id)
    ).all()
    # filtered here, not in SQL: JSON path syntax differs between SQLite and PostgreSQL
    return [r for r in rows if r.origin_detail.get("candidateId") == candidate_id]


def shadow_fact_deltas(conn: Connection, work_id: int, candidate_id: str) -> list[FactDelta]:
    """The deltas proposed against candidate ``candidate_id`` (any status), in creation order."""
    mine = _shadow_rows(conn, work_id, candidate_id)
    refs = load_refs(conn, "fact_delta", owner_ids=[r.id for r in mine])
    return [_to_delta(row, refs) for row in mine]


def shadow_delta_hashes(conn: Connection, work_id: int, candidate_id: str) -> dict[str, str]:
    """delta_sha256 → id of the candidate's proposals: the same fact is proposed once."""
    return {r.delta_sha256: r.id for r in _shadow_rows(conn, work_id, candidate_id)}


def proposal_sha256(proposal: FactDeltaProposal) -> str:
    """The identity of a proposal (``delta_sha256``)."""
    return hash_value(proposal.model_dump(mode="json"))


def fact_delta_candidate(conn: Connection, delta_id: str) -> str | None:
    """The candidate a delta was proposed against; None for a delta of canonical text."""
    row = conn.execute(
        select(fact_deltas.c.origin, fact_deltas.c.origin_detail).where(
            fact_deltas.c.id == delta_id
        )
    ).first()
    if row is None:
        raise NotFound(f"事实增量 {delta_id} 不存在。", hint="用 muse facts 查看。")
    return row.origin_detail.get("candidateId") if row.origin == "candidate" else None


def _proposed_row(conn: Connection, delta_id: str) -> Row[*tuple[Any, ...]]:
    row = conn.execute(select(fact_deltas).where(fact_deltas.c.id == delta_id)).first()
    if row is None:
        raise NotFound(f"事实增量 {delta_id} 不存在。", hint="用 muse facts 查看。")
    if row.status != "proposed":
        raise InvalidInput(f"事实增量 {delta_id} 已处理（{row.status}）。")
    return row


def _decide(
    conn: Connection, delta_id: str, status: str, decided_by: str, note: str | None
) -> None:
    compare_and_set(
        conn,
        fact_deltas,
        where={"id": delta_id, "status": "proposed"},
        values={
            "status": status,
            "decided_by": decided_by,
            "decision_note": note,
            "decided_at": utc_now(),
        },
        message=f"事实增量 {delta_id} 已被其他操作处理。",
    )


def approve_fact_delta(
    conn: Connection,
    delta_id: str,
    *,
    decided_by: str = "author",
    note: str | None = None,
) -> LedgerEntry:
    """Approve a proposed delta into the fact ledger, inside the caller's transaction.

    The quote is checked again against the chapter's current canonical text (it may have been
    edited since the proposal, or, for a candidate's proposal, another candidate may have become
    the chapter); if it is not there, nothing is written. The source reference is (re)made here.
    """
    row = _proposed_row(conn, delta_id)
    try:
        evidence = locate_quote(ChapterTexts(conn, row.work_id), row.chapter, row.evidence_quote)
    except ContractViolation as err:
        hint = "原文已修改，请驳回这条增量。"
        if row.origin == "candidate":
            hint = (
                f"这条增量是针对候选 {row.origin_detail.get('candidateId')} 提出的，"
                "只有引文出现在正式正文中才能批准；该候选未被采纳时请驳回它。"
            )
        raise ContractViolation(f"无法批准：{err.message}", hint=hint) from None
    delete_refs(conn, "fact_delta", delta_id)
    save_refs(conn, row.work_id, "fact_delta", delta_id, "evidence", [evidence])
    _decide(conn, delta_id, "approved", decided_by, note)
    entry_id = new_id("ledg")
    now = utc_now()
    conn.execute(
        fact_ledger.insert().values(
            id=entry_id,
            work_id=row.work_id,
            delta_id=delta_id,
            type=row.type,
            chapter=row.chapter,
            subject=row.subject,
            payload=row.payload,
            evidence_quote=row.evidence_quote,
            delta_sha256=row.delta_sha256,
            approved_by=decided_by,
            approved_at=now,
        )
    )
    return LedgerEntry(
        id=entry_id,
        work_id=row.work_id,
        delta_id=delta_id,
        type=row.type,
        chapter=row.chapter,
        subject=row.subject,
        payload=row.payload,
        evidence_quote=row.evidence_quote,
        approved_by=decided_by,
        approved_at=iso(now) or "",
    )


def reject_fact_delta(
    conn: Connection,
    delta_id: str,
    *,
    decided_by: str = "author",
    note: str | None = None,
) -> FactDelta:
    _proposed_row(conn, delta_id)
    _decide(conn, delta_id, "rejected", decided_by, note)
    return get_fact_delta(conn, delta_id)


_LEDGER_QUERY = (
    select(fact_ledger)
    .where(fact_ledger.c.work_id == bindparam("work_id"))
    .order_by(fact_ledger.c.chapter, fact_ledger.c.approved_at, fact_ledger.c.id)
)
_LEDGER = Prepared(_LEDGER_QUERY)
_LEDGER_AS_OF = Prepared(_LEDGER_QUERY.where(fact_ledger.c.chapter <= bindparam("as_of")))


def fact_ledger_entries(
    conn: Connection, work_id: int, *, as_of: int | None = None
) -> list[LedgerEntry]:
    """The canonical facts of a work, in chapter order; with ``as_of``, none from a later chapter."""
    if as_of is None:
        rows = _LEDGER.run(conn, work_id=work_id)
    else:
        rows = _LEDGER_AS_OF.run(conn, work_id=work_id, as_of=as_of)
    return [
        LedgerEntry(
            id=r.id,
            work_id=r.work_id,
            delta_id=r.delta_id,
            type=r.type,
            chapter=r.chapter,
            subject=r.subject,
            payload=r.payload,
            evidence_quote=r.evidence_quote,
            approved_by=r.approved_by,
            approved_at=iso(r.approved_at) or "",
        )
        for r in rows
    ]
