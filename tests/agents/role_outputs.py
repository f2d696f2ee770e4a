"""The production output contract of every registered (role, task), for the agents tests.

The agents layer has no output contracts of its own: each domain owns its role's (writer →
context, explorer → context, planner → planning, extractor → knowledge, detector → quality,
judge → evaluation). The dispatch, prompt, structured-output and offline tests run every
(role, task) on the contract production passes, so the agents layer is tested on exactly the
shapes it carries. The planner has one contract per stage; the fine outline stands for them.
"""

from __future__ import annotations

from pydantic import BaseModel

from muse.context.explore.contracts import ExploreDraft
from muse.context.output_contracts import WriterDraft
from muse.evaluation.contracts import JudgeScores
from muse.knowledge.extraction_contracts import ChapterExtraction
from muse.planning.contracts import FineOutline
from muse.quality.contracts import DetectorReport

ROLE_OUTPUTS: dict[tuple[str, str], type[BaseModel]] = {
    ("writer", "explore"): ExploreDraft,
    ("writer", "generate"): WriterDraft,
    ("planner", "draft"): FineOutline,
    ("extractor", "extract"): ChapterExtraction,
    ("detector", "check"): DetectorReport,
    ("judge", "score"): JudgeScores,
}
