"""Retrieval plan, as-of view, prose re-read, manifest, evidence, WriterContext (spec 000 §5–§8)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from muse.core.faces import lazy_face

if TYPE_CHECKING:
    from muse.context.as_of import AsOfView
    from muse.context.budget_view import budget_usage
    from muse.context.card_hits import summarize
    from muse.context.contracts import CoverageState, EvidenceCoverage, TokenBudget, WriterContext
    from muse.context.evidence_requests import fulfil_evidence_requests
    from muse.context.explore import (
        EXPLORE_INPUT_VERSION,
        AsOfToolReader,
        ExplorationManifest,
        ExploreDraft,
        ExploreDraftRead,
        ReplayedRead,
        explore_whitelist,
        from_draft,
        merge_reads,
        planned_reads,
        replay,
        replay_bytes,
    )
    from muse.context.manifest import build_manifest
    from muse.context.output_contracts import (
        ClaimLedgerEntry,
        DraftClaim,
        EvidenceRequest,
        NewSettingDeclaration,
        SelfCheck,
        WriterDraft,
        WriterOutput,
    )
    from muse.context.retrieval_plan import DEFAULT_BUDGET
    from muse.context.round_order import round_inputs, writer_input
    from muse.context.search import (
        REFRESH_JOB,
        Hit,
        IndexStatus,
        built_version,
        chapter_chunks,
        index_chapter,
        index_overview,
        index_status,
        rebuild_index,
        refresh_index,
        run_refresh_job,
        search_query,
    )
    from muse.context.snapshots import (
        SnapshotRow,
        latest_snapshot,
        run_snapshots,
        snapshot_payload,
        snapshot_revisions,
        snapshot_row,
    )
    from muse.context.validation import validate_references
    from muse.context.writer_context import (
        QUALITY_POLICY_VERSION,
        FrozenContext,
        freeze_context,
        store_context,
    )
    from muse.context.writer_output import UnlocatedClaim, build_output

__all__ = [
    "DEFAULT_BUDGET",
    "TokenBudget",
    "AsOfToolReader",
    "AsOfView",
    "ClaimLedgerEntry",
    "DraftClaim",
    "EvidenceRequest",
    "EXPLORE_INPUT_VERSION",
    "EvidenceCoverage",
    "ExplorationManifest",
    "ExploreDraft",
    "ExploreDraftRead",
    "FrozenContext",
    "Hit",
    "IndexStatus",
    "QUALITY_POLICY_VERSION",
    "REFRESH_JOB",
    "ReplayedRead",
    "SelfCheck",
    "UnlocatedClaim",
    "WriterContext",
    "WriterDraft",
    "WriterOutput",
    "budget_usage",
    "build_manifest",
    "build_output",
    "built_version",
    "chapter_chunks",
    "explore_whitelist",
    "freeze_context",
    "from_draft",
    "fulfil_evidence_requests",
    "index_chapter",
    "index_overview",
    "index_status",
    "latest_snapshot",
    "merge_reads",
    "planned_reads",
    "rebuild_index",
    "refresh_index",
    "replay",
    "replay_bytes",
    "round_inputs",
    "run_refresh_job",
    "run_snapshots",
    "search_query",
    "snapshot_payload",
    "snapshot_revisions",
    "snapshot_row",
    "SnapshotRow",
    "store_context",
    "summarize",
    "validate_references",
    "writer_input",
    "index_overview",
    "chapter_chunks",
    "NewSettingDeclaration",
    "EvidenceRequest",
    "CoverageState",
]

_FACE: dict[str, tuple[str, ...]] = {
    "retrieval_plan": ("DEFAULT_BUDGET",),
    "as_of": ("AsOfView",),
    "budget_view": ("budget_usage",),
    "card_hits": ("summarize",),
    "contracts": ("EvidenceCoverage", "WriterContext", "CoverageState", "TokenBudget"),
    "evidence_requests": ("fulfil_evidence_requests",),
    "explore": (
        "EXPLORE_INPUT_VERSION",
        "AsOfToolReader",
        "ExplorationManifest",
        "ExploreDraft",
        "ExploreDraftRead",
        "ReplayedRead",
        "explore_whitelist",
        "from_draft",
        "merge_reads",
        "planned_reads",
        "replay",
        "replay_bytes",
    ),
    "manifest": ("build_manifest",),
    "output_contracts": (
        "ClaimLedgerEntry",
        "DraftClaim",
        "EvidenceRequest",
        "SelfCheck",
        "WriterDraft",
        "WriterOutput",
        "NewSettingDeclaration",
        "EvidenceRequest",
    ),
    "round_order": ("round_inputs", "writer_input"),
    "search": (
        "Hit",
        "IndexStatus",
        "REFRESH_JOB",
        "built_version",
        "chapter_chunks",
        "index_chapter",
        "index_overview",
        "index_status",
        "rebuild_index",
        "refresh_index",
        "run_refresh_job",
        "search_query",
    ),
    "snapshots": (
        "SnapshotRow",
        "latest_snapshot",
        "run_snapshots",
        "snapshot_payload",
        "snapshot_revisions",
        "snapshot_row",
    ),
    "validation": ("validate_references",),
    "writer_context": (
        "FrozenContext",
        "QUALITY_POLICY_VERSION",
        "freeze_context",
        "store_context",
    ),
    "writer_output": ("UnlocatedClaim", "build_output"),
}

__getattr__, __dir__ = lazy_face(globals(), _FACE)
