"""The offline evaluation chain (spec 000 §3.2, §10, §10.1; spec 001 §7)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from muse.core.faces import lazy_face

if TYPE_CHECKING:
    from muse.evaluation.candidate_judge import candidate_judgements_of, judge_candidate
    from muse.evaluation.contracts import DIMENSIONS
    from muse.evaluation.invariants import check_invariants
    from muse.evaluation.preregistration import preregister, read_set_file
    from muse.evaluation.report import build_report, list_sets, sample_detail
    from muse.evaluation.runner import estimate, run_set
    from muse.evaluation.states import EVAL_STATE_LABELS

__all__ = [
    "DIMENSIONS",
    "EVAL_STATE_LABELS",
    "build_report",
    "candidate_judgements_of",
    "check_invariants",
    "estimate",
    "judge_candidate",
    "preregister",
    "read_set_file",
    "run_set",
    "list_sets",
    "sample_detail",
]

_FACE: dict[str, tuple[str, ...]] = {
    "candidate_judge": ("candidate_judgements_of", "judge_candidate"),
    "contracts": ("DIMENSIONS",),
    "invariants": ("check_invariants",),
    "preregistration": ("preregister", "read_set_file"),
    "report": ("build_report", "list_sets", "sample_detail"),
    "runner": ("estimate", "run_set"),
    "states": ("EVAL_STATE_LABELS",),
}

__getattr__, __dir__ = lazy_face(globals(), _FACE)
