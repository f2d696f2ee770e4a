"""Mechanical gates, the semantic detector with anti-forgery checks, and the judge (spec 06)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from muse.core.faces import lazy_face

if TYPE_CHECKING:
    from muse.quality.ai_flavor import ai_flavor_summary
    from muse.quality.anti_forgery import verify_binding
    from muse.quality.entities import EntityLexicon, book_text_as_of, entity_lexicon_from
    from muse.quality.findings import Finding
    from muse.quality.hard_events import detector_marks, event_checks
    from muse.quality.leak import LeakLexicon, leak_lexicon_from
    from muse.quality.mechanical import check
    from muse.quality.semantic import (
        EvidenceGap,
        SemanticReport,
        run_semantic_detector,
        settle_as_new_settings,
        unsettleable,
    )

__all__ = [
    "EntityLexicon",
    "EvidenceGap",
    "Finding",
    "LeakLexicon",
    "SemanticReport",
    "ai_flavor_summary",
    "book_text_as_of",
    "check",
    "detector_marks",
    "entity_lexicon_from",
    "event_checks",
    "leak_lexicon_from",
    "run_semantic_detector",
    "settle_as_new_settings",
    "unsettleable",
    "verify_binding",
]

_FACE: dict[str, tuple[str, ...]] = {
    "ai_flavor": ("ai_flavor_summary",),
    "anti_forgery": ("verify_binding",),
    "entities": ("EntityLexicon", "book_text_as_of", "entity_lexicon_from"),
    "findings": ("Finding",),
    "hard_events": ("detector_marks", "event_checks"),
    "leak": ("LeakLexicon", "leak_lexicon_from"),
    "mechanical": ("check",),
    "semantic": (
        "EvidenceGap",
        "SemanticReport",
        "run_semantic_detector",
        "settle_as_new_settings",
        "unsettleable",
    ),
}

__getattr__, __dir__ = lazy_face(globals(), _FACE)
