"""Fact deltas of a shadow candidate, approved into the fact ledger by the accept that commits it.

Spec 001 §6: the model proposes only the six delta types, each with a verbatim quote, and only
the deltas the author approves enter the ledger, in the same transaction as the prose. So the
author can ask the extractor for the facts of a candidate before deciding on it
(:func:`propose_candidate_facts`): each fact's quote is checked against the candidate's body and
stored as a ``candidate`` proposal (knowledge.facts.ShadowText), a forged quote is refused and
reported. ``muse accept --approve-fact`` then approves the chosen ones with
:func:`approve_candidate_facts`, inside the accept transaction, after the prose is written: the
quote is checked once more, now against the canonical text. Any refusal there aborts the whole
accept (nothing written). Proposals not chosen stay proposed; if another candidate becomes the
chapter, they can be approved only where their quote is in that text (the quote check decides).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, Engine, select

from muse.agents import dispatch
from muse.context import snapshot_payload
from muse.core.errors import InvalidInput, MuseError, NotFound
from muse.flow.rows import CandidateRow
from muse.flow.tables import candidates, runs
from muse.knowledge import (
    ROLE,
    TASK,
    ChapterExtraction,
    ExtractionItem,
    FactDelta,
    ShadowText,
    approve_fact_delta,
    fact_delta_candidate,
    propose_extracted_fact,
    shadow_delta_hashes,
    shadow_fact_deltas,
    text_extraction_input,
)
from muse.store.engine import reading


class FactApprovalRefused(InvalidInput):
    """A fact delta chosen at accept cannot be approved: the whole accept is rolled back."""


@dataclass(frozen=True)
class CandidateFacts:
    """The deltas proposed against one candidate, and what the last proposal round did."""

    candidate_id: str
    chapter: int
    deltas: list[FactDelta]
    items: list[ExtractionItem] = field(default_factory=list)  # empty unless just proposed
    receipt_id: str | None = None
    findings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "candidateId": self.candidate_id,
            "chapter": self.chapter,
            "deltas": [d.model_dump(mode="json") for d in self.deltas],
            "proposed": [i.model_dump(mode="json") for i in self.items],
            "receiptId": self.receipt_id,
            "findings": list(self.findings),
        }


def _candidate(conn: Connection, candidate_id: str) -> CandidateRow:
    row = conn.execute(select(candidates).where(candidates.c.id == candidate_id)).mappings().first()
    if row is None:
        raise NotFound(f"候选 {candidate_id} 不存在。", hint="用 muse candidates 查看候选。")
    return CandidateRow.from_row(row)


def _shadow(cand: CandidateRow) -> ShadowText:
    return ShadowText(cand.id, cand.sha256, cand.chapter, cand.body)


def list_candidate_facts(conn: Connection, candidate_id: str) -> CandidateFacts:
    cand = _candidate(conn, candidate_id)
    deltas = shadow_fact_deltas(conn, cand.work_id, candidate_id)
    return CandidateFacts(candidate_id, cand.chapter, deltas)


def _refuse_unproposable(conn: Connection, cand: CandidateRow) -> None:
    run_type = conn.execute(select(runs.c.run_type).where(runs.c.id == cand.run_id)).scalar()
    if run_type != "production" or not cand.acceptance_eligible:
        raise InvalidInput("评测或诊断候选永远不能成为正式正文，不为它提事实增量。")
    if cand.state != "PASSED":
        raise InvalidInput(
            f"候选状态是 {cand.state}，只能为通过检测（PASSED）、尚待采纳的候选提事实增量。",
            hint="已采纳的章节由章后抽取提出事实增量，用 muse facts 查看。",
        )


def _extraction_input(conn: Connection, cand: CandidateRow) -> dict[str, Any]:
    payload = snapshot_payload(conn, cand.context_snapshot_id)
    title = payload["fineOutline"].get("title", "")
    return text_extraction_input(conn, cand.work_id, cand.chapter, None, title, cand.body)


def propose_candidate_facts(
    engine: Engine, candidate_id: str, *, provider: str, model: str
) -> CandidateFacts:
    """Ask the extractor for the facts of a candidate's body and store them as its proposals.

    The model call holds no transaction; the proposals are stored in one transaction that first
    checks the candidate is still waiting for the author. Cards the extractor proposes are not
    stored here: card drafts come from the post-chapter extraction of the accepted text.
    """
    with reading(engine) as conn:
        cand = _candidate(conn, candidate_id)
        _refuse_unproposable(conn, cand)
        task_input = _extraction_input(conn, cand)
    result = dispatch(
        engine,
        role=ROLE,
        task=TASK,
        provider=provider,
        model=model,
        task_input=task_input,
        output_model=ChapterExtraction,
    )
    assert isinstance(result.output, ChapterExtraction)
    with engine.begin() as conn:
        cand = _candidate(conn, candidate_id)
        _refuse_unproposable(conn, cand)
        detail = {"receiptId": result.receipt_id, "provider": provider, "model": model}
        known = shadow_delta_hashes(conn, cand.work_id, candidate_id)
        shadow = _shadow(cand)
        items = [
            propose_extracted_fact(
                conn, cand.work_id, cand.chapter, fact, detail, known, shadow=shadow
            )
            for fact in result.output.facts
        ]
        deltas = shadow_fact_deltas(conn, cand.work_id, candidate_id)
    return CandidateFacts(
        candidate_id,
        cand.chapter,
        deltas,
        items,
        result.receipt_id,
        list(result.output.designFindings),
    )


def approve_candidate_facts(
    conn: Connection,
    cand: CandidateRow,
    chosen: Sequence[str],
    *,
    approve_all: bool = False,
    actor: str = "author",
) -> list[str]:
    """Approve the chosen proposals of ``cand`` into the ledger, in the accept transaction.

    Call after the candidate's text became canonical. ``approve_all`` adds every proposal of the
    candidate still ``proposed``. Returns the approved delta ids; raises
    :class:`FactApprovalRefused` (the caller's transaction must roll back) for a delta of another
    candidate or of canonical text, one already decided, or one whose quote is not in the text.
    """
    own = {d.id: d for d in shadow_fact_deltas(conn, cand.work_id, cand.id)}
    ids = list(dict.fromkeys(chosen))
    if approve_all:
        ids += [i for i, d in own.items() if d.status == "proposed" and i not in ids]
    for delta_id in ids:
        _check_owned(conn, cand, own.get(delta_id), delta_id)
        try:
            approve_fact_delta(conn, delta_id, decided_by=actor, note=f"随候选 {cand.id} 采纳批准")
        except MuseError as err:
            raise FactApprovalRefused(_REFUSED + err.message, hint=err.hint) from None
    return ids


_REFUSED = "采纳未执行，没有写入任何内容："


def _check_owned(
    conn: Connection, cand: CandidateRow, delta: FactDelta | None, delta_id: str
) -> None:
    if delta is None:
        try:
            other = fact_delta_candidate(conn, delta_id)
        except NotFound as err:
            raise FactApprovalRefused(_REFUSED + err.message, hint=err.hint) from None
        whose = f"候选 {other}" if other else "正式正文（请用 muse facts approve 批准）"
        raise FactApprovalRefused(
            _REFUSED + f"事实增量 {delta_id} 不是针对候选 {cand.id} 提出的，而是针对{whose}。",
            hint=f"用 muse candidate facts {cand.id} 查看本候选的事实增量。",
        )
    if delta.status != "proposed":
        raise FactApprovalRefused(
            _REFUSED + f"事实增量 {delta_id} 已处理（{delta.status}），不能再次批准。"
        )
