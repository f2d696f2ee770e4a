"""The two-phase writer inside a production run (spec 001 §5) and the writer's evidence requests.

Phase 1, **explore** (inside the ``retrieving`` node): the writer role, with only the read-only
tools of its task package, says what it wants to read and why; the retrieval plan's reads are
always part of that manifest (``flow.exploration``). Its tool reads are ledgered against the
run. **Replay**: every read of the manifest is executed again by ``context.explore.replaying``, through the
as-of view and without a model; the replayed materials and the manifest are frozen into the
WriterContext (its hash covers them). Phase 2, **generate** (``writing``): one call with no
tools whose only input is the serialized WriterContext in the round's fixed order
(``context.round_order.writer_input``).

**Evidence requests** (spec 000 §7.2): when a generated draft asks for evidence, the requests
the run has not asked before are answered within the as-of view (``fulfil_evidence_requests``:
at most 3 per run, at most 30 % of the retrieval budget added), the answers are frozen into a
new stored context, and the writer generates again from it. Requests past a limit, or without
hits, are reported as gaps (in the run's events and the summary) and the run goes on with the
draft it has: the writer is never asked again for the same query.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from muse.context import (
    EvidenceRequest,
    ExplorationManifest,
    FrozenContext,
    ReplayedRead,
    WriterDraft,
    fulfil_evidence_requests,
    replay,
    replay_bytes,
)
from muse.core.canonical import sha256_hex
from muse.flow.exploration import explore
from muse.flow.run_steps import RunCtx
from muse.flow.transitions import record_event
from muse.planning import FineOutline
from muse.store.engine import reading


@dataclass(frozen=True)
class Exploration:
    manifest: ExplorationManifest
    replayed: list[ReplayedRead]

    def detail(self) -> dict[str, Any]:
        planned = sum(1 for r in self.manifest.reads if r.read_id.startswith("p"))
        return {
            "reads": len(self.manifest.reads),
            "plannedReads": planned,
            "exploredReads": len(self.manifest.reads) - planned,
            "dropped": len(self.manifest.dropped),
            "replaySha256": self.replay_sha256,
        }

    @cached_property
    def replay_sha256(self) -> str:
        """The replay's hash, computed once: the node event and the run's context detail both
        carry it (``replayed`` is not changed after the replay)."""
        return sha256_hex(replay_bytes(self.replayed))


def explore_and_replay(
    run: RunCtx, *, work_id: int, as_of: int, outline: FineOutline
) -> Exploration:
    """Phase 1 and the replay; both write ledger rows, so they run before the freeze's
    transaction (on SQLite the write lock is one per database). Raises MuseError on failure."""
    manifest = explore(
        run.engine,
        run_id=run.run_id,
        work_id=work_id,
        as_of=as_of,
        target_chapter=outline.target_chapter,
        outline=outline,
        provider=run.provider,
        model=run.model,
        timeout_s=run.deadline_left(),
    )
    with reading(run.engine) as conn:
        # ``outline`` is the run's, loaded and gated by ``load_confirmed`` when it began.
        replayed = replay(
            conn, manifest, engine=run.engine, run_id=run.run_id, confirmed_outline=outline
        )
    return Exploration(manifest, replayed)


@dataclass
class EvidenceLedger:
    """What the run asked for so far; one per run (the limits are per run)."""

    used: int = 0
    asked: set[str] = field(default_factory=set)
    answered: list[dict[str, Any]] = field(default_factory=list)
    gaps: list[dict[str, Any]] = field(default_factory=list)

    def new_requests(self, draft: WriterDraft) -> list[EvidenceRequest]:
        fresh = [r for r in draft.evidence_requests if r.query not in self.asked]
        self.asked.update(r.query for r in fresh)
        return fresh


def answer_requests(
    run: RunCtx, frozen: FrozenContext, draft: WriterDraft, ledger: EvidenceLedger, attempt: int
) -> FrozenContext | None:
    """Answer the draft's new evidence requests. Returns the new frozen context when at least
    one was answered (the writer should generate again), else None (go on with this draft)."""
    requests = ledger.new_requests(draft)
    if not requests:
        return None
    with run.engine.begin() as conn:
        rnd = fulfil_evidence_requests(conn, frozen, requests, used_requests=ledger.used)
        answered = [
            {"index": a.index, "query": a.query, "evidenceIds": list(a.evidence_ids)}
            for a in rnd.answered
        ]
        gaps = [
            {"index": g.index, "query": g.query, "code": g.code, "detail": g.detail}
            for g in rnd.gaps
        ]
        record_event(
            conn,
            run.run_id,
            attempt,
            "evidence_requests",
            "ok" if answered else "failed",
            0,
            {
                "requests": len(requests),
                "answered": answered,
                "gaps": gaps,
                "requestsUsed": rnd.requests_used,
                "tokensAdded": rnd.tokens_added,
                "budgetLimit": rnd.budget_limit,
                "contextSnapshotId": rnd.frozen.snapshot_id,
            },
        )
    ledger.used = rnd.requests_used
    ledger.answered += answered
    ledger.gaps += gaps
    return rnd.frozen if rnd.answered else None
