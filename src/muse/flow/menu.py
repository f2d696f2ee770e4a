"""The decision menu of a candidate (spec 001 §2.3 输出块「决策菜单」, §4): what the author may do now.

The menu never offers what the state does not allow. It is derived from the same rules the
decision services enforce (``accept._refuse_ineligible``, ``decisions.DISCARDABLE``,
``revise.REVISABLE``, edit-and-merge needing a PASSED candidate of a run in ``shadow_ready``), so
the workbench and the CLI agree; the services still check again when the decision arrives, and a
decision that has become stale in between is refused there.
"""

from __future__ import annotations

from muse.flow.decisions import DISCARDABLE
from muse.flow.revise import REVISABLE
from muse.flow.rows import CandidateRow, RunRow

# In the order the menu shows them.
DECISIONS = ("accept", "edit", "revise", "discard")


def decision_menu(candidate: CandidateRow, run: RunRow) -> tuple[str, ...]:
    """The decisions open on ``candidate`` (a candidates row) of ``run`` (its runs row)."""
    state, run_state = candidate.state, run.state
    production = run.run_type == "production" and run.mode == "production"
    waiting = state == "PASSED" and run_state == "shadow_ready"
    allowed = {
        "accept": waiting and production and bool(candidate.acceptance_eligible),
        "edit": waiting and production,
        "revise": state in REVISABLE and production,
        "discard": state in DISCARDABLE,
    }
    return tuple(d for d in DECISIONS if allowed[d])
