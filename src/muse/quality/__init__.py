"""Mechanical gates, the semantic detector with anti-forgery checks and its report contract, and
the verdict policy (spec 06)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from muse.core.faces import lazy_face

if TYPE_CHECKING:
    from muse.quality.ai_flavor import ai_flavor_summary
    from muse.quality.anti_forgery import verify_binding
    from muse.quality.contracts import DetectorIssue, DetectorReport
    from muse.quality.entities import (
        EntityLexicon,
        book_chapters_as_of,
        entity_lexicon_from,
    )
    from muse.quality.findings import Finding
    from muse.quality.hard_events import detector_marks, event_checks
    from muse.quality.leak import LeakLexicon, leak_lexicon_from
    from muse.quality.mechanical import check
    from muse.quality.names import introduced_names
    from muse.quality.semantic import (
        EvidenceGap,
        SemanticReport,
        run_semantic_detector,
        settle_as_new_settings,
        unsettleable,
    )
    from muse.quality.verdict import (
        GapResolution,
        RevisionItem,
        Verdict,
        detector_failed,
        gap_verdict,
        mechanical_verdict,
        semantic_verdict,
    )

__all__ = [
    "DetectorIssue",
    "DetectorReport",
    "EntityLexicon",
    "EvidenceGap",
    "Finding",
    "GapResolution",
    "LeakLexicon",
    "RevisionItem",
    "SemanticReport",
    "Verdict",
    "ai_flavor_summary",
    "book_chapters_as_of",
    "check",
    "detector_failed",
    "detector_marks",
    "entity_lexicon_from",
    "event_checks",
    "gap_verdict",
    "introduced_names",
    "leak_lexicon_from",
    "mechanical_verdict",
    "run_semantic_detector",
    "semantic_verdict",
    "settle_as_new_settings",
    "unsettleable",
    "verify_binding",
]

_FACE: dict[str, tuple[str, ...]] = {
    "ai_flavor": ("ai_flavor_summary",),
    "anti_forgery": ("verify_binding",),
    "contracts": ("DetectorIssue", "DetectorReport"),
    "entities": (
        "EntityLexicon",
        "book_chapters_as_of",
        "entity_lexicon_from",
    ),
    "findings": ("Finding",),
    "hard_events": ("detector_marks", "event_checks"),
    "leak": ("LeakLexicon", "leak_lexicon_from"),
    "mechanical": ("check",),
    "names": ("introduced_names",),
    "semantic": (
        "EvidenceGap",
        "SemanticReport",
        "run_semantic_detector",
        "settle_as_new_settings",
        "unsettleable",
    ),
    "verdict": (
        "GapResolution",
        "RevisionItem",
        "Verdict",
        "detector_failed",
        "gap_verdict",
        "mechanical_verdict",
        "semantic_verdict",
    ),
}

__getattr__, __dir__ = lazy_face(globals(), _FACE)
