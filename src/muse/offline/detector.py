"""The offline provider's detector: a structurally valid report that checks nothing.

For the demo, dry runs and tests (no network; same input, same output). It says ``passed`` with
no issues and labels itself offline in the summary; Muse's own checks (the mechanical gate,
anti-forgery, the verdict) still run on it, so it never stands in for checking logic.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from muse.agents import builtin_generator
from muse.offline.wire import OFFLINE_NOTE, emit
from muse.quality import DetectorReport


@builtin_generator("detector", "check")
def check(task_input: dict[str, Any], model: type[BaseModel]) -> dict[str, Any] | None:
    if model is not DetectorReport:
        return None
    report = DetectorReport(
        verdict="passed",
        issues=[],
        evidenceGaps=[],
        summary=f"{OFFLINE_NOTE}离线模式不做语义核查，仅返回结构合法的报告。",
    )
    return emit(report)
