"""Production state machine, candidates, decisions, accept preflight, canonical commit (spec 05)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from muse.core.faces import lazy_face

if TYPE_CHECKING:
    from muse.flow.accept import accept_candidate
    from muse.flow.author_edit import load_context
    from muse.flow.book_import import (
        SOURCE_CHOICES,
        ImportLimits,
        already_imported,
        import_and_index,
        source_kind_of,
    )
    from muse.flow.candidate_detail import candidate_view, context_summary, version_diff
    from muse.flow.candidate_facts import (
        CandidateFacts,
        list_candidate_facts,
        propose_candidate_facts,
    )
    from muse.flow.chapter_edit import edit_chapter, revert_chapter
    from muse.flow.checking import check_candidate, check_lexicons, with_attempt
    from muse.flow.decisions import (
        CANDIDATE_STATE_LABELS,
        DecisionOutcome,
        discard_candidate,
        load,
        previous_outcome,
        run_label,
    )
    from muse.flow.diff import diff_texts
    from muse.flow.edit_merge import edit_candidate
    from muse.flow.eligibility import insert_candidate, insert_run
    from muse.flow.menu import decision_menu
    from muse.flow.production import RunSummary, write_chapter
    from muse.flow.queries import (
        candidate_of_version,
        candidate_row,
        chapter_token_caches,
        is_production_row,
        last_accepted_run,
        list_candidates,
        list_runs,
        newest_candidate_of_run,
        newest_run_since,
        run_row,
        show_run,
    )
    from muse.flow.rebuilding import rebuild
    from muse.flow.revise import ReviseOutcome, revise_candidate
    from muse.flow.rewrite import (
        DEFAULT_MAX_REWRITES,
        UPPER_LIMIT,
        Decision,
        RewritePolicy,
        rewrite_loop,
        writer_input,
    )
    from muse.flow.run_detail import show_run_detail
    from muse.flow.run_steps import NodeEvent, Observer
    from muse.flow.states import OUTCOME_LABELS, RUN_STATE_LABELS, STEP_LABELS, WORKING_NODES
    from muse.flow.sweep_probe import sweep_may_move, sweep_may_move_plain
    from muse.flow.sweeping import SweepReport, orphaned_runs, sweep, sweep_on_startup
    from muse.flow.transitions import move_candidate, move_run
    from muse.flow.triggers import is_state_machine_refusal
    from muse.flow.verdicts import commit_verdict
    from muse.flow.warming import WarmUp, warm_up
    from muse.flow.zones import ZONE_OPTION, zone

__all__ = [
    "UPPER_LIMIT",
    "DEFAULT_MAX_REWRITES",
    "rewrite_loop",
    "RewritePolicy",
    "Decision",
    "CANDIDATE_STATE_LABELS",
    "CandidateFacts",
    "DecisionOutcome",
    "ImportLimits",
    "NodeEvent",
    "OUTCOME_LABELS",
    "Observer",
    "RUN_STATE_LABELS",
    "ReviseOutcome",
    "RunSummary",
    "SOURCE_CHOICES",
    "STEP_LABELS",
    "SweepReport",
    "WORKING_NODES",
    "ZONE_OPTION",
    "accept_candidate",
    "already_imported",
    "candidate_of_version",
    "candidate_row",
    "candidate_view",
    "chapter_token_caches",
    "check_candidate",
    "check_lexicons",
    "commit_verdict",
    "context_summary",
    "decision_menu",
    "diff_texts",
    "discard_candidate",
    "edit_candidate",
    "edit_chapter",
    "import_and_index",
    "insert_candidate",
    "insert_run",
    "is_production_row",
    "is_state_machine_refusal",
    "last_accepted_run",
    "list_candidate_facts",
    "list_candidates",
    "list_runs",
    "load",
    "load_context",
    "move_candidate",
    "move_run",
    "newest_candidate_of_run",
    "newest_run_since",
    "propose_candidate_facts",
    "rebuild",
    "revert_chapter",
    "revise_candidate",
    "run_label",
    "run_row",
    "show_run",
    "show_run_detail",
    "source_kind_of",
    "orphaned_runs",
    "previous_outcome",
    "sweep",
    "sweep_may_move",
    "sweep_may_move_plain",
    "sweep_on_startup",
    "version_diff",
    "WarmUp",
    "warm_up",
    "with_attempt",
    "write_chapter",
    "writer_input",
    "zone",
]

_FACE: dict[str, tuple[str, ...]] = {
    "accept": ("accept_candidate",),
    "author_edit": ("load_context",),
    "book_import": (
        "ImportLimits",
        "SOURCE_CHOICES",
        "already_imported",
        "import_and_index",
        "source_kind_of",
    ),
    "candidate_detail": ("candidate_view", "context_summary", "version_diff"),
    "candidate_facts": ("CandidateFacts", "list_candidate_facts", "propose_candidate_facts"),
    "chapter_edit": ("edit_chapter", "revert_chapter"),
    "checking": ("check_candidate", "check_lexicons", "with_attempt"),
    "decisions": (
        "CANDIDATE_STATE_LABELS",
        "DecisionOutcome",
        "discard_candidate",
        "load",
        "previous_outcome",
        "run_label",
    ),
    "diff": ("diff_texts",),
    "edit_merge": ("edit_candidate",),
    "eligibility": ("insert_candidate", "insert_run"),
    "menu": ("decision_menu",),
    "production": ("RunSummary", "write_chapter"),
    "queries": (
        "candidate_of_version",
        "candidate_row",
        "chapter_token_caches",
        "is_production_row",
        "last_accepted_run",
        "list_candidates",
        "list_runs",
        "newest_candidate_of_run",
        "newest_run_since",
        "run_row",
        "show_run",
    ),
    "rebuilding": ("rebuild",),
    "revise": ("ReviseOutcome", "revise_candidate"),
    "rewrite": (
        "writer_input",
        "Decision",
        "RewritePolicy",
        "rewrite_loop",
        "DEFAULT_MAX_REWRITES",
        "UPPER_LIMIT",
    ),
    "run_detail": ("show_run_detail",),
    "run_steps": ("NodeEvent", "Observer"),
    "states": ("OUTCOME_LABELS", "RUN_STATE_LABELS", "STEP_LABELS", "WORKING_NODES"),
    "sweep_probe": ("sweep_may_move", "sweep_may_move_plain"),
    "sweeping": ("SweepReport", "orphaned_runs", "sweep", "sweep_on_startup"),
    "transitions": ("move_candidate", "move_run"),
    "triggers": ("is_state_machine_refusal",),
    "verdicts": ("commit_verdict",),
    "warming": ("WarmUp", "warm_up"),
    "zones": ("ZONE_OPTION", "zone"),
}

__getattr__, __dir__ = lazy_face(globals(), _FACE)
