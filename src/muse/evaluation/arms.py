"""The three arms of a replay, derived from one frozen context (spec 000 §3.2, §10).

All three arms share the fine outline, the freeze point, the model, the length algorithm and the
maximum budget; they differ only in the evidence the writer sees:

* A — prose only: the consecutive-prose baseline and prose evidence; no card facts, no card hits.
* B — cards only: card and setting facts and the card hits; no prose evidence, no previous-
  chapter tail, no prose sources.
* C — both, exactly the frozen production context.

A and B run ``diagnostic_only``: a coverage row that loses its evidence becomes a gap
(``card_gap`` / ``style_gap``) instead of blocking, which is the production sufficiency gate
they may skip. C keeps the production policy: a blocking coverage row ends the sample.
Authorization, freeze, future-leak and candidate-structure gates run on every arm. Each arm's
context is validated (references, hashes) and stored with its own snapshot hash.
"""

from __future__ import annotations

from sqlalchemy import Connection

from muse.context import (
    EvidenceCoverage,
    FrozenContext,
    WriterContext,
    build_manifest,
    store_context,
    validate_references,
)
from muse.evaluation.contracts import ARM_MODES, EVAL_POLICY_VERSION

_CARD_FACTS = frozenset({"confirmed_card", "confirmed_setting", "fact_ledger"})
_PROSE_FACTS = frozenset({"canonical_prose"})
_PROSE_SOURCES = frozenset({"chapter", "prose_excerpt"})
_GAP_OF_ARM = {"A": "card_gap", "B": "style_gap"}


def _coverage(rows, known: set[str], arm: str) -> tuple[EvidenceCoverage, ...]:
    out = []
    for row in rows:
        ids = tuple(e for e in row.evidence_ids if e in known)
        state = row.state
        if arm in _GAP_OF_ARM and row.evidence_ids and not ids and state == "supported":
            state = _GAP_OF_ARM[arm]
        if arm in _GAP_OF_ARM and state in ("unsupported",):
            state = _GAP_OF_ARM[arm]  # diagnostic_only: the sufficiency gate does not block
        out.append(row.model_copy(update={"evidence_ids": ids, "state": state}))
    return tuple(out)


def arm_context(full: WriterContext, arm: str, run_id: str) -> WriterContext:
    """The context arm ``arm`` writes from, for its own run ``run_id`` (unhashed draft)."""
    facts, prose, sources, hits = (
        full.fact_evidence,
        full.prose_evidence,
        full.manifest.sources,
        full.manifest.card_hits,
    )
    narrative = full.narrative_state
    if arm == "A":
        facts = tuple(f for f in facts if f.source_type not in _CARD_FACTS)
        sources = tuple(s for s in sources if s.kind != "card")
        hits = ()
    elif arm == "B":
        facts = tuple(f for f in facts if f.source_type not in _PROSE_FACTS)
        prose = ()
        sources = tuple(s for s in sources if s.kind not in _PROSE_SOURCES)
        narrative = narrative.model_copy(
            update={"previous_chapter_tail": "", "provenance": "卡线（B 臂）：不提供原文。"}
        )
    known = {f.id for f in facts} | {p.id for p in prose}
    manifest = build_manifest(
        full.manifest.plan_id, list(sources), list(full.manifest.omitted_sources), list(hits)
    )
    materials = tuple(m for m in full.replayed_materials if set(m.evidence_ids) <= known)
    draft = full.model_copy(
        update={
            "run_id": run_id,
            "mode": ARM_MODES[arm],
            "quality_policy_version": EVAL_POLICY_VERSION,
            "fact_evidence": facts,
            "prose_evidence": prose,
            "manifest": manifest,
            "narrative_state": narrative,
            "evidence_coverage": _coverage(full.evidence_coverage, known, arm),
            "replayed_materials": materials,
        }
    )
    return WriterContext.model_validate(draft.wire())


def freeze_arm(conn: Connection, full: WriterContext, arm: str, run_id: str) -> FrozenContext:
    """Validate and store the arm's context; its snapshot hash is its own."""
    draft = arm_context(full, arm, run_id)
    validate_references(draft)
    return store_context(conn, draft, {}, True)
