"""Answering the writer's evidence requests within a budget (spec 000 §3.1, §7.2 evidenceRequests).

The generation call has no tools; when the writer lacks a fact it returns ``evidenceRequests``.
Muse answers them by searching inside the same as-of view (a card by name or alias, then the
prose index), appends what it found as factEvidence to a NEW frozen context (new snapshot id and
sha256, stored), and enforces the limits of spec 000 ("受预算补证"):

* at most ``MAX_REQUESTS`` requests per run in total (``used_requests`` says how many earlier
  rounds of this run already spent) — a request past it is not searched: gap ``limit_requests``;
* at most ``BUDGET_SHARE`` of the retrieval budget (the plan's tokenBudget total) in added
  context over the whole run — what was added by earlier rounds is counted from the context
  itself (``fe-req-`` evidence); a request that does not fit is a gap ``limit_budget``;
* a request with no hit is a gap ``no_hits`` (the writer may then declare a new setting; spec
  001 §6 "零命中不禁止写手发明新设定").

A request counts toward the limit once it is searched (answered, no_hits, or nothing fitted the
budget); requests refused by a limit before searching do not. The gaps are also recorded in the
new context's omittedSources, so the stored snapshot shows every request and its outcome.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from sqlalchemy import Connection

from muse.context.as_of import AsOfView
from muse.context.card_hits import find_state, summarize
from muse.context.contracts import FactEvidence, ManifestSource, OmittedSource, WriterContext
from muse.context.manifest import build_manifest
from muse.context.output_contracts import EvidenceRequest
from muse.context.tokens import estimate_tokens
from muse.context.validation import validate_references
from muse.context.writer_context import FrozenContext, store_context
from muse.core.canonical import sha256_hex
from muse.core.contract import Contract

MAX_REQUESTS: Final = 3
BUDGET_SHARE: Final = 0.30
HITS_PER_REQUEST: Final = 2
REQUEST_PREFIX: Final = "fe-req-"
GapCode = Literal["limit_requests", "limit_budget", "no_hits"]


class EvidenceGap(Contract):
    index: int  # the request's number within the run, from 1
    query: str
    reason: str  # the writer's reason for asking
    code: GapCode
    detail: str


class AnsweredRequest(Contract):
    index: int
    query: str
    evidence_ids: tuple[str, ...]
    tokens: int


@dataclass(frozen=True)
class EvidenceRound:
    frozen: FrozenContext  # the new context (or the given one when there were no requests)
    answered: tuple[AnsweredRequest, ...]
    gaps: tuple[EvidenceGap, ...]
    requests_used: int  # in the run, after this round
    tokens_added: int  # by this round
    budget_limit: int  # tokens the run may add in total


def budget_limit(context: WriterContext) -> int:
    return int(context.token_budget.total * BUDGET_SHARE)


def tokens_added_so_far(context: WriterContext) -> int:
    return sum(
        estimate_tokens(f.text) for f in context.fact_evidence if f.id.startswith(REQUEST_PREFIX)
    )


@dataclass
class _Round:
    context: WriterContext
    limit: int
    spent: int
    used: int
    facts: list[FactEvidence]
    sources: list[ManifestSource]
    answered: list[AnsweredRequest]
    gaps: list[EvidenceGap]

    def known(self, fact_id: str) -> bool:
        return any(f.id == fact_id for f in (*self.context.fact_evidence, *self.facts))


def fulfil_evidence_requests(
    conn: Connection,
    frozen: FrozenContext,
    requests: Sequence[EvidenceRequest],
    *,
    used_requests: int,
    store: bool = True,
) -> EvidenceRound:
    """Answer ``requests`` inside the as-of view, within the run's limits (see module doc)."""
    context = frozen.context
    if not requests:
        return EvidenceRound(frozen, (), (), used_requests, 0, budget_limit(context))
    view = AsOfView(conn, context.work_id, context.as_of)
    state = _Round(
        context, budget_limit(context), tokens_added_so_far(context), used_requests, [], [], [], []
    )
    for offset, request in enumerate(requests, start=1):
        _answer(view, state, used_requests + offset, request)
    new = _refreeze(conn, frozen, state, store)
    return EvidenceRound(
        new,
        tuple(state.answered),
        tuple(state.gaps),
        state.used,
        state.spent - tokens_added_so_far(context),
        state.limit,
    )


def _gap(state: _Round, index: int, request: EvidenceRequest, code: GapCode, detail: str) -> None:
    state.gaps.append(
        EvidenceGap(
            index=index, query=request.query, reason=request.reason, code=code, detail=detail
        )
    )


def _answer(view: AsOfView, state: _Round, index: int, request: EvidenceRequest) -> None:
    if state.used >= MAX_REQUESTS:
        _gap(
            state,
            index,
            request,
            "limit_requests",
            f"本次运行的补证请求已达上限（{MAX_REQUESTS} 次），不再检索。",
        )
        return
    if state.spent >= state.limit:
        _gap(
            state,
            index,
            request,
            "limit_budget",
            f"补证已用尽预算（检索预算的 {BUDGET_SHARE:.0%}，{state.limit} tokens），不再检索。",
        )
        return
    state.used += 1
    found = _candidates(view, request.query, index, {f.id for f in state.context.fact_evidence})
    if not found:
        _gap(
            state,
            index,
            request,
            "no_hits",
            f"冻结点（第 {view.as_of} 章）之前的正文与已确认设定中没有找到「{request.query}」。",
        )
        return
    ids: list[str] = []
    tokens = 0
    for fact, source in found:
        if state.known(fact.id):
            ids.append(fact.id)
            continue
        cost = estimate_tokens(fact.text)
        if state.spent + cost > state.limit:
            continue
        state.spent += cost
        tokens += cost
        state.facts.append(fact)
        state.sources.append(source)
        ids.append(fact.id)
    if not ids:
        _gap(
            state,
            index,
            request,
            "limit_budget",
            f"找到了「{request.query}」，但超出补证预算（剩余 {state.limit - state.spent} tokens）。",
        )
        return
    state.answered.append(
        AnsweredRequest(index=index, query=request.query, evidence_ids=tuple(ids), tokens=tokens)
    )


def _candidates(
    view: AsOfView, query: str, index: int, present: set[str]
) -> list[tuple[FactEvidence, ManifestSource]]:
    """A card named ``query`` (the context's own evidence id when it is already there), then
    the best prose hits, all as of the freeze."""
    found = []
    state = find_state(view.card_states, query.strip())
    if state is not None:
        text = summarize(state)
        in_context = f"fe-card-{state.card_id}"
        found.append(
            (
                FactEvidence(
                    id=in_context
                    if in_context in present
                    else f"{REQUEST_PREFIX}card-{state.card_id}",
                    source_type="confirmed_card",
                    source_ref={"cardId": state.card_id, "asOf": view.as_of, "request": index},
                    sha256=sha256_hex(text),
                    text=text,
                ),
                ManifestSource(
                    kind="card",
                    source_id=f"card:{view.work_id}:{state.type}:{state.name}",
                    source_version=f"asof:{view.as_of}",
                    chapter=None,
                    start=None,
                    end=None,
                    content_sha256=sha256_hex(text),
                    reason=f"补证请求 {index}「{query}」",
                    tokens=estimate_tokens(text),
                ),
            )
        )
    for hit in view.search_text(query, HITS_PER_REQUEST):
        ref = {"chapter": hit.chapter, "revision": hit.revision, "start": hit.start, "end": hit.end}
        found.append(
            (
                FactEvidence(
                    id=f"{REQUEST_PREFIX}{hit.chapter}-{hit.start}",
                    source_type="canonical_prose",
                    source_ref={**ref, "request": index},
                    sha256=sha256_hex(hit.text),
                    text=hit.text,
                ),
                ManifestSource(
                    kind="prose_excerpt",
                    source_id=f"chapter:{view.work_id}:{hit.chapter}",
                    source_version=f"r{hit.revision}",
                    chapter=hit.chapter,
                    start=hit.start,
                    end=hit.end,
                    content_sha256=sha256_hex(hit.text),
                    reason=f"补证请求 {index}「{query}」",
                    tokens=estimate_tokens(hit.text),
                ),
            )
        )
    return found


def _refreeze(conn: Connection, frozen: FrozenContext, state: _Round, store: bool) -> FrozenContext:
    """A new frozen context: the old one plus the answers as factEvidence, gaps as omitted."""
    old = frozen.context
    gaps = [
        OmittedSource(
            kind="evidence_request", source_id=f"request:{g.index}", reason=f"{g.code}：{g.detail}"
        )
        for g in state.gaps
    ]
    manifest = build_manifest(
        old.manifest.plan_id,
        [*old.manifest.sources, *state.sources],
        [*old.manifest.omitted_sources, *gaps],
        list(old.manifest.card_hits),
    )
    draft = old.model_copy(
        update={
            "fact_evidence": (*old.fact_evidence, *state.facts),
            "manifest": manifest,
            "omitted_sources": (*old.omitted_sources, *gaps),
        }
    )
    draft = WriterContext.model_validate(draft.wire())
    validate_references(draft)
    return store_context(conn, draft, _read_revisions(draft), store)


def _read_revisions(context: WriterContext) -> dict[int, int]:
    """chapter → revision of every prose source of the manifest (accept preflight re-checks)."""
    return {
        s.chapter: int(s.source_version[1:])
        for s in context.manifest.sources
        if s.chapter is not None and s.source_version.startswith("r")
    }
