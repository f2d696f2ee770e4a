"""The five pre-writing stages, their schemas and gates (spec 001 §1A)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from muse.core.faces import lazy_face

if TYPE_CHECKING:
    from muse.planning.batches import (
        BatchItem,
        batch_items,
        create_outline_batch,
        get_batch,
        resume_batch,
        run_batch,
        start_outline_batch,
    )
    from muse.planning.checking import CheckReport, check_plan
    from muse.planning.confirming import confirm_and_record, confirm_section
    from muse.planning.contracts import FineOutline, OutlineItem
    from muse.planning.editing import export_text, import_file, save_edited_text, stage_revision
    from muse.planning.findings import Finding
    from muse.planning.fine_outlines import load_confirmed, save_fine_outline
    from muse.planning.planner import draft_stage
    from muse.planning.planner_io import SettingProposal
    from muse.planning.reviews import Review, open_reviews
    from muse.planning.saving import Saved, build_signoff, save_stage_section
    from muse.planning.sections import (
        confirmed_section,
        discard_section,
        get_section,
        list_sections,
    )
    from muse.planning.stage_contracts import Assembly, WorkFoundation, WorkOutline
    from muse.planning.stages import FINE_OUTLINE, STAGES, stage_of
    from muse.planning.status import plan_status
    from muse.planning.variants import compare_sections

__all__ = [
    "Assembly",
    "BatchItem",
    "batch_items",
    "create_outline_batch",
    "get_batch",
    "run_batch",
    "save_edited_text",
    "stage_revision",
    "Finding",
    "FineOutline",
    "OutlineItem",
    "SettingProposal",
    "WorkFoundation",
    "WorkOutline",
    "build_signoff",
    "check_plan",
    "compare_sections",
    "confirm_and_record",
    "confirm_section",
    "discard_section",
    "draft_stage",
    "export_text",
    "get_section",
    "import_file",
    "list_sections",
    "load_confirmed",
    "plan_status",
    "resume_batch",
    "save_fine_outline",
    "save_stage_section",
    "stage_of",
    "start_outline_batch",
    "STAGES",
    "FINE_OUTLINE",
    "confirmed_section",
    "CheckReport",
    "Saved",
    "Review",
    "open_reviews",
]

_FACE: dict[str, tuple[str, ...]] = {
    "batches": (
        "BatchItem",
        "batch_items",
        "create_outline_batch",
        "get_batch",
        "resume_batch",
        "run_batch",
        "start_outline_batch",
    ),
    "checking": ("check_plan", "CheckReport"),
    "reviews": ("Review", "open_reviews"),
    "confirming": ("confirm_and_record", "confirm_section"),
    "contracts": ("FineOutline", "OutlineItem"),
    "editing": ("export_text", "import_file", "save_edited_text", "stage_revision"),
    "findings": ("Finding",),
    "fine_outlines": ("load_confirmed", "save_fine_outline"),
    "planner": ("draft_stage",),
    "planner_io": ("SettingProposal",),
    "saving": ("build_signoff", "save_stage_section", "Saved"),
    "sections": ("discard_section", "get_section", "list_sections", "confirmed_section"),
    "stage_contracts": ("Assembly", "WorkFoundation", "WorkOutline"),
    "stages": ("stage_of", "STAGES", "FINE_OUTLINE"),
    "status": ("plan_status",),
    "variants": ("compare_sections",),
}

__getattr__, __dir__ = lazy_face(globals(), _FACE)
