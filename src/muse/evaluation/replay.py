"""Replaying one sample's three arms (spec 000 §3.2, §10): the sample's context and its failure.

Each arm is a ``runs`` row of ``run_type = 'evaluation'`` that walks the production states
validating_context → retrieving → writing → detecting → shadow_ready | blocked_user_action |
failed, through the production helpers (freeze, writer dispatch, WriterOutput, check, verdict).
Generating the arms (authorization, freeze, the writer's candidate) is ``arm_generation``;
checking them through the production rewrite loop is ``arm_detection``. Every step commits what
it produced before the next begins, and every step first looks at what is stored: a killed
evaluation resumes where it stopped, and a writer or detector reply already receipted is reused
rather than requested again.

The oracle red line: the writer and detector read only the frozen arm context, built through
``AsOfView(work, as_of = N − 1)``; the replay lexicon (later names) goes to the mechanical
future-leak gate only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import Engine

from muse.evaluation.contracts import EvaluationSet, Sample
from muse.evaluation.sample_state import eval_row
from muse.store.engine import reading


class SampleFailed(Exception):
    """The sample ends in ``state`` (a failed_* state) for ``reason`` (Chinese)."""

    def __init__(self, state: str, reason: str) -> None:
        super().__init__(reason)
        self.state, self.reason = state, reason


Progress = Callable[[str, str, str], None]  # (sampleId, step, status)


@dataclass
class SampleCtx:
    engine: Engine  # the zone engine (muse.evaluation.sample_state.zone_engine)
    set_id: str
    evaluation_set: EvaluationSet
    sample: Sample
    eval_run_id: str
    work_id: int
    progress: Progress | None = None

    def emit(self, step: str, status: str) -> None:
        if self.progress is not None:
            self.progress(self.sample.sampleId, step, status)

    @property
    def as_of(self) -> int:
        return self.sample.as_of


def sample_ctx(
    engine: Engine,
    set_id: str,
    evaluation_set: EvaluationSet,
    eval_run_id: str,
    progress: Progress | None = None,
) -> SampleCtx:
    with reading(engine) as conn:
        row = eval_row(conn, eval_run_id)
    sample = next(s for s in evaluation_set.samples if s.sampleId == row["sample_key"])
    return SampleCtx(engine, set_id, evaluation_set, sample, eval_run_id, row["work_id"], progress)


__all__ = ["Progress", "SampleCtx", "SampleFailed", "sample_ctx"]
