"""The offline provider's judge: seeded scores in 0.5 steps for each candidate of the input.

For the demo, dry runs and tests (no network; same input, same output: the scores are drawn from
a generator seeded by the input and the sheet's schema). Every reason says it is offline; each
quote is the opening of its candidate.
"""

from __future__ import annotations

import random
from typing import Any

from pydantic import BaseModel

from muse.agents import builtin_generator, offline_seed
from muse.evaluation import CandidateScore, DimensionScore, JudgeDimensions, JudgeScores
from muse.offline.wire import OFFLINE_NOTE, emit


def _candidates(task_input: dict[str, Any]) -> list[tuple[str, str]]:
    """(label, text) of each candidate in a judge input; one anonymous candidate if none."""
    found = []
    for index, item in enumerate(task_input.get("candidates") or []):
        if isinstance(item, dict):
            label = item.get("label") or item.get("candidateLabel") or item.get("id")
            text = item.get("text") or item.get("body") or ""
            found.append((str(label or chr(ord("A") + index)), str(text)))
    return found or [("A", "")]


@builtin_generator("judge", "score")
def score(task_input: dict[str, Any], model: type[BaseModel]) -> dict[str, Any] | None:
    if model is not JudgeScores:
        return None
    rng = random.Random(offline_seed("judge", "score", task_input, model))
    candidates = []
    for label, text in _candidates(task_input):
        quote = text.strip()[:20]
        dimensions = {
            name: DimensionScore(
                score=rng.choice([3.0, 3.5, 4.0]),
                reason=OFFLINE_NOTE,
                quotes=[quote] if quote else [],
            )
            for name in JudgeDimensions.model_fields
        }
        candidates.append(
            CandidateScore(candidateLabel=label, dimensions=JudgeDimensions(**dimensions))
        )
    return emit(JudgeScores(candidates=candidates))
