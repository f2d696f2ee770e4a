"""The check step of a run: mechanical gate → semantic detector → evidence gaps (spec 000 §9).

One function checks a candidate, whoever wrote it — the writer (attempt 1), an automatic
rewrite (attempt N) or the author (edit-and-merge: ``edited_candidate`` → ``detecting``):

    verdict = check_candidate(engine, run_id=…, attempt=…, frozen_or_context=…, output=…,
                              provider=…, model=…, timeout_s=…)

It moves no state and writes nothing but the detector's model-call receipt; the verdict says
what should happen, and :func:`commit_verdict` applies it — candidate CHECKING → PASSED/REJECTED
with the report, the run's move out of ``detecting``, the evidence rows and the node events, in
the caller's transaction, by compare-and-set on run id + attempt + candidate version + candidate
sha256 (spec 001 §3). A verdict of an attempt that is no longer current is discarded there.

It only orchestrates: it runs each step (reading the lexicons and searching the gaps through
the database, calling the detector) and hands each result to the verdict policy, which is
quality's and pure (``quality.verdict``: the outcome, the reason, the stored report, the
revision list). Order and outcomes:

1. mechanical gate (``quality.mechanical``): any ``high`` finding rejects; the detector is skipped;
2. semantic detector (``quality.semantic``): a forged report → ``forged`` (run ``failed``); a call
   that fails → ``detector_failed`` (run ``failed``); verified blocking issues → ``rejected``;
3. evidence gaps (``flow.evidence_gaps``): found material → ``authorization_required``; canon in
   conflict → ``canon_conflict`` (fail closed); nothing anywhere → new-setting candidates and
   ``passed`` — except for a gap that stands for an unverifiable rejection (a blocking issue
   with a blank quote or no evidence, a "rejected" verdict without an issue): never a pass,
   always ``authorization_required``.

A ``rejected`` verdict carries a structured revision list (what to fix, where, quoting the text)
for the rewrite loop (``flow.rewrite``); the author sees the same list.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from sqlalchemy import Engine

from muse.context import (
    DraftClaim,
    FrozenContext,
    UnlocatedClaim,
    WriterContext,
    WriterDraft,
    WriterOutput,
    build_output,
)
from muse.core.errors import MuseError
from muse.flow.evidence_gaps import resolve_gaps
from muse.knowledge import term_appearances
from muse.quality import (
    EntityLexicon,
    GapResolution,
    LeakLexicon,
    SemanticReport,
    Verdict,
    book_chapters_as_of,
    detector_failed,
    entity_lexicon_from,
    gap_verdict,
    introduced_names,
    leak_lexicon_from,
    mechanical_verdict,
    run_semantic_detector,
    semantic_verdict,
)
from muse.quality import check as mechanical_check
from muse.store.engine import reading

StepObserver = Callable[[str, str, int], None]  # (step, running|ok|failed|blocked, elapsed ms)


Lexicons = tuple[LeakLexicon, EntityLexicon]


def check_lexicons(
    engine: Engine, context: WriterContext, leak_terms: Sequence[tuple[str, int] | str] = ()
) -> Lexicons:
    """The future-leak and known-entity lexicons of the context's freeze point, from one read of
    the work's term appearances; the book so far is read on the known-entity lexicon's first
    question about it (most candidates ask none). They are built beside the context, never in it (the writer must
    not see later names); ``leak_terms`` is a replay harness's lexicon."""
    work_id, as_of = context.work_id, context.as_of
    with reading(engine) as conn:
        appearances = term_appearances(conn, work_id)

    def read_book() -> tuple[bytes, ...]:  # on the first question about the book
        with reading(engine) as conn:
            return book_chapters_as_of(conn, work_id, as_of)

    leak = leak_lexicon_from(appearances, work_id, as_of, leak_terms)
    entities = entity_lexicon_from(appearances, work_id, as_of, read_book=read_book)
    return leak, replace(entities, introduced=introduced_names(context, leak))


def check_candidate(
    engine: Engine,
    *,
    run_id: str,
    attempt: int,
    frozen_or_context: FrozenContext | WriterContext,
    output: WriterOutput,
    provider: str,
    model: str,
    timeout_s: float | None = None,
    unlocated: list[UnlocatedClaim] | None = None,
    observe: StepObserver | None = None,
    leak_terms: Sequence[tuple[str, int] | str] = (),
    lexicons: Lexicons | None = None,
    reuse_stored: bool = False,
) -> Verdict:
    """Check ``output`` (attempt ``attempt`` of run ``run_id``) against its frozen context.

    ``unlocated`` are the claims whose quotes could not be found in the body (from
    :func:`~muse.context.writer_output.build_output` or :func:`output_for_body`). Model failures
    do not raise: they are the ``detector_failed`` outcome. Nothing is moved or stored here but
    the detector's receipt. ``lexicons``: built once per run by :func:`check_lexicons` (the
    freeze point does not change between attempts); None builds them here. ``reuse_stored``:
    the detector's receipted reply to this very input is used instead of a new call (resume).
    """
    context = _context(frozen_or_context)
    step = observe or (lambda name, status, ms: None)
    timings: dict[str, int] = {}
    started = time.perf_counter()
    step("mechanical_gate", "running", 0)
    leak, entities = lexicons or check_lexicons(engine, context, leak_terms)
    findings = tuple(
        mechanical_check(
            context, output, list(unlocated or []), leak_lexicon=leak, entity_lexicon=entities
        )
    )
    timings["mechanical_gate"] = _ms(started)
    rejected = mechanical_verdict(context, output, findings, known=entities)
    step("mechanical_gate", "failed" if rejected else "ok", timings["mechanical_gate"])
    if rejected:
        return replace(rejected, timings_ms=timings)
    started = time.perf_counter()
    step("semantic_detector", "running", 0)
    try:
        semantic = run_semantic_detector(
            engine,
            context=context,
            output=output,
            run_id=run_id,
            provider=provider,
            model=model,
            timeout_s=timeout_s,
            reuse_stored=reuse_stored,
            known=entities,
        )
    except MuseError as err:
        timings["semantic_detector"] = _ms(started)
        step("semantic_detector", "failed", timings["semantic_detector"])
        failed = detector_failed(context, output, findings, str(err), known=entities)
        return replace(failed, timings_ms=timings)
    timings["semantic_detector"] = _ms(started)
    step("semantic_detector", "ok" if semantic.passed else "failed", timings["semantic_detector"])
    verdict = semantic_verdict(context, output, findings, semantic, known=entities)
    if verdict is None:  # needs_evidence: search the as-of view for every gap (spec 001 §6)
        started = time.perf_counter()
        step("evidence_search", "running", 0)
        gaps = _search_gaps(engine, context, output, semantic)
        timings["evidence_search"] = _ms(started)
        verdict = gap_verdict(context, output, findings, semantic, gaps, known=entities)
        status = "ok" if verdict.outcome == "passed" else "blocked"
        step("evidence_search", status, timings["evidence_search"])
    return replace(verdict, timings_ms=timings)


def _search_gaps(
    engine: Engine, context: WriterContext, output: WriterOutput, semantic: SemanticReport
) -> tuple[GapResolution, ...]:
    with reading(engine) as conn:
        return tuple(
            resolve_gaps(
                conn,
                work_id=context.work_id,
                as_of=context.as_of,
                gaps=semantic.gaps,
                output=output,
            )
        )


def output_for_body(
    frozen_or_context: FrozenContext | WriterContext,
    snapshot_id: str,
    body: str,
    *,
    candidate_version: int,
    attempt: int,
    based_on: WriterOutput | None = None,
) -> tuple[WriterOutput, list[UnlocatedClaim]]:
    """A WriterOutput for a body that did not come from the writer (an author's edit).

    The claims of ``based_on`` (the candidate the edit started from) are located again in the
    new body by their quoted text; a claim whose sentence the author removed or changed comes
    back unlocated and the mechanical gate flags it. New-setting declarations carry over.
    """
    context = _context(frozen_or_context)
    claims: list[DraftClaim] = []
    if based_on is not None:
        old = based_on.candidate_body
        for c in based_on.claim_ledger:
            claims.append(
                DraftClaim(
                    constraint_id=c.claim_id.split(":", 1)[1],
                    quote=old[c.start_code_point : c.end_code_point],
                    fact_evidence_id=c.fact_evidence_id,
                    prose_evidence_id=c.prose_evidence_id,
                )
            )
    draft = WriterDraft(
        paragraphs=(body,),
        claims=tuple(claims),
        new_setting_declarations=based_on.new_setting_declarations if based_on else (),
    )
    return with_attempt(*build_output(context, snapshot_id, draft, candidate_version), attempt)


def with_attempt(
    output: WriterOutput, unlocated: list[UnlocatedClaim], attempt: int
) -> tuple[WriterOutput, list[UnlocatedClaim]]:
    """The output stamped with the run's current attempt (the frozen context keeps attempt 1:
    a rewrite reuses the same frozen context, spec 000 §3.1)."""
    return output.model_copy(update={"attempt": attempt}), unlocated


def located(
    body: str, start: int | None, end: int | None, margin: int = 12
) -> dict[str, Any] | None:
    """Where ``[start, end)`` is in ``body``, for the author: paragraph number (from 1) and the
    quote with a little text around it."""
    if start is None or end is None or not 0 <= start <= end <= len(body):
        return None
    paragraph = body[:start].count("\n\n") + 1
    before = body[max(0, start - margin) : start].split("\n")[-1]
    after = body[end : end + margin].split("\n")[0]
    return {"paragraph": paragraph, "excerpt": f"{before}【{body[start:end]}】{after}"}


def _context(frozen_or_context: FrozenContext | WriterContext) -> WriterContext:
    if isinstance(frozen_or_context, FrozenContext):
        return frozen_or_context.context
    return frozen_or_context


def _ms(started: float) -> int:
    return int((time.perf_counter() - started) * 1000)
