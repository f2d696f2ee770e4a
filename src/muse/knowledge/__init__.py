"""Typed cards, aliases, milestones, relations, state-as-of, drafts, conflicts, fact ledger."""

from __future__ import annotations

from typing import TYPE_CHECKING

from muse.core.faces import lazy_face

if TYPE_CHECKING:
    from muse.knowledge.aliases import alias_collisions, tokenizer_terms
    from muse.knowledge.as_of_rules import BookTerms, debut_of
    from muse.knowledge.book_drafts import BatchReport, StaleBatch, apply_batch
    from muse.knowledge.book_extraction import (
        BATCH_INPUT_SCHEMA,
        BATCH_JOB,
        DEFAULT_BATCH_CHAPTERS,
        DEFAULT_BATCH_TOKENS,
        Estimate,
        batch_input,
        canonical_names,
        enqueue_batches,
        estimate,
        known_entities,
        payload_chapters,
        plan_batches,
        unify_names,
    )
    from muse.knowledge.card_book import cache_overview, drop_book
    from muse.knowledge.card_import import import_cards_yaml
    from muse.knowledge.card_state import state_as_of, work_state_as_of
    from muse.knowledge.card_types import card_type
    from muse.knowledge.cards import find_card, get_card, load_cards
    from muse.knowledge.conflicts import RESOLUTION_LABELS, list_conflicts, resolve_conflict
    from muse.knowledge.contracts import (
        Card,
        CardField,
        CardSpec,
        CardState,
        CardStatus,
        Cycle,
        PlannedStep,
        SourceRef,
        StateAsOf,
    )
    from muse.knowledge.discovery import discover
    from muse.knowledge.discovery_drafts import DiscoveryReport, discover_work, parse_chapter_range
    from muse.knowledge.draft_review import (
        confirm_groups,
        group_drafts,
        merge_drafts,
        reject_groups,
        select_groups,
    )
    from muse.knowledge.drafts import (
        confirm_all,
        confirm_draft,
        list_drafts,
        reject_draft,
        submit_draft,
    )
    from muse.knowledge.extraction import (
        ROLE,
        TASK,
        StaleChapter,
        apply_extraction,
        propose_extracted_fact,
        run_extractor,
        stale_reason,
        text_extraction_input,
    )
    from muse.knowledge.extraction_contracts import (
        INPUT_SCHEMA,
        ChapterExtraction,
        ExtractionItem,
        ExtractionReport,
    )
    from muse.knowledge.fact_types import FACT_TYPE_LABELS, FactDelta, LedgerEntry
    from muse.knowledge.facts import (
        ShadowText,
        approve_fact_delta,
        fact_delta_candidate,
        fact_ledger_entries,
        list_fact_deltas,
        reject_fact_delta,
        shadow_delta_hashes,
        shadow_fact_deltas,
    )
    from muse.knowledge.first_appearance import TermAppearance, term_appearances
    from muse.knowledge.setting_gates import arc_problems, setting_ledger
    from muse.knowledge.source_refs import refs_into_chapter, revalidate_source_refs
    from muse.knowledge.terms import TermMatcher
    from muse.knowledge.yaml_export import export_cards_yaml

__all__ = [
    "BATCH_INPUT_SCHEMA",
    "BATCH_JOB",
    "BatchReport",
    "DEFAULT_BATCH_CHAPTERS",
    "DEFAULT_BATCH_TOKENS",
    "StaleBatch",
    "apply_batch",
    "payload_chapters",
    "BookTerms",
    "Card",
    "CardField",
    "CardSpec",
    "CardState",
    "CardStatus",
    "ChapterExtraction",
    "Cycle",
    "DiscoveryReport",
    "Estimate",
    "ExtractionItem",
    "ExtractionReport",
    "FACT_TYPE_LABELS",
    "FactDelta",
    "INPUT_SCHEMA",
    "LedgerEntry",
    "PlannedStep",
    "RESOLUTION_LABELS",
    "ROLE",
    "ShadowText",
    "SourceRef",
    "StaleChapter",
    "StateAsOf",
    "TASK",
    "TermAppearance",
    "TermMatcher",
    "alias_collisions",
    "apply_extraction",
    "approve_fact_delta",
    "arc_problems",
    "batch_input",
    "canonical_names",
    "card_type",
    "confirm_all",
    "confirm_draft",
    "confirm_groups",
    "debut_of",
    "discover",
    "discover_work",
    "drop_book",
    "enqueue_batches",
    "estimate",
    "export_cards_yaml",
    "fact_delta_candidate",
    "fact_ledger_entries",
    "find_card",
    "get_card",
    "group_drafts",
    "import_cards_yaml",
    "known_entities",
    "list_conflicts",
    "list_drafts",
    "list_fact_deltas",
    "load_cards",
    "merge_drafts",
    "parse_chapter_range",
    "plan_batches",
    "propose_extracted_fact",
    "refs_into_chapter",
    "reject_draft",
    "reject_fact_delta",
    "reject_groups",
    "resolve_conflict",
    "revalidate_source_refs",
    "run_extractor",
    "select_groups",
    "setting_ledger",
    "shadow_delta_hashes",
    "shadow_fact_deltas",
    "stale_reason",
    "state_as_of",
    "submit_draft",
    "term_appearances",
    "text_extraction_input",
    "tokenizer_terms",
    "unify_names",
    "work_state_as_of",
    "cache_overview",
]

_FACE: dict[str, tuple[str, ...]] = {
    "aliases": ("alias_collisions", "tokenizer_terms"),
    "as_of_rules": ("BookTerms", "debut_of"),
    "book_drafts": ("BatchReport", "StaleBatch", "apply_batch"),
    "book_extraction": (
        "BATCH_INPUT_SCHEMA",
        "BATCH_JOB",
        "DEFAULT_BATCH_CHAPTERS",
        "DEFAULT_BATCH_TOKENS",
        "Estimate",
        "batch_input",
        "canonical_names",
        "enqueue_batches",
        "estimate",
        "known_entities",
        "payload_chapters",
        "plan_batches",
        "unify_names",
    ),
    "card_book": ("drop_book", "cache_overview"),
    "card_import": ("import_cards_yaml",),
    "card_state": ("state_as_of", "work_state_as_of"),
    "card_types": ("card_type",),
    "cards": ("find_card", "get_card", "load_cards"),
    "conflicts": ("RESOLUTION_LABELS", "list_conflicts", "resolve_conflict"),
    "contracts": (
        "Card",
        "CardField",
        "CardSpec",
        "CardState",
        "CardStatus",
        "Cycle",
        "PlannedStep",
        "SourceRef",
        "StateAsOf",
    ),
    "discovery": ("discover",),
    "discovery_drafts": ("DiscoveryReport", "discover_work", "parse_chapter_range"),
    "draft_review": (
        "confirm_groups",
        "group_drafts",
        "merge_drafts",
        "reject_groups",
        "select_groups",
    ),
    "drafts": ("confirm_all", "confirm_draft", "list_drafts", "reject_draft", "submit_draft"),
    "extraction": (
        "ROLE",
        "StaleChapter",
        "TASK",
        "apply_extraction",
        "propose_extracted_fact",
        "run_extractor",
        "stale_reason",
        "text_extraction_input",
    ),
    "extraction_contracts": (
        "ChapterExtraction",
        "ExtractionItem",
        "ExtractionReport",
        "INPUT_SCHEMA",
    ),
    "fact_types": ("FACT_TYPE_LABELS", "FactDelta", "LedgerEntry"),
    "facts": (
        "ShadowText",
        "approve_fact_delta",
        "fact_delta_candidate",
        "fact_ledger_entries",
        "list_fact_deltas",
        "reject_fact_delta",
        "shadow_delta_hashes",
        "shadow_fact_deltas",
    ),
    "first_appearance": ("TermAppearance", "term_appearances"),
    "setting_gates": ("arc_problems", "setting_ledger"),
    "source_refs": ("refs_into_chapter", "revalidate_source_refs"),
    "terms": ("TermMatcher",),
    "yaml_export": ("export_cards_yaml",),
}

__getattr__, __dir__ = lazy_face(globals(), _FACE)
