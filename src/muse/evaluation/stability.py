"""The stability gate of blind judging (spec 000 §10).

Two independent judges score every anonymous candidate on five dimensions, in 0.5 steps. A
dimension whose two scores differ by more than 0.5 is unstable and calls for at most one third
judge. With three scores, the dimension's final score is the median of the three if at least one
pair differs by ≤ 0.5; otherwise no stable pair exists and the whole sample is
``invalid_unstable`` (it takes no part in any direction conclusion). Two stable scores give
their mean (the spec leaves it open; the mean keeps both judges' information).

Scores are handled as ``Fraction`` so that comparisons like "> 0.5" are exact.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from muse.core.errors import ContractViolation
from muse.evaluation.contracts import DIMENSIONS

STEP = Fraction(1, 2)
MIN_SCORE, MAX_SCORE = Fraction(1), Fraction(5)
STABLE_GAP = Fraction(1, 2)

Sheet = Mapping[str, Mapping[str, float]]  # candidate label → dimension → score


def score_of(value: float | str | Fraction) -> Fraction:
    """A judge's score as an exact fraction, or ContractViolation when it is off the 0.5 grid."""
    score = Fraction(str(value)) if not isinstance(value, Fraction) else value
    if not (MIN_SCORE <= score <= MAX_SCORE) or (score / STEP).denominator != 1:
        raise ContractViolation(f"评分 {value} 不合法：必须在 1–5 之间且以 0.5 为步长。")
    return score


def stable_pair_exists(scores: Sequence[Fraction]) -> bool:
    return any(abs(a - b) <= STABLE_GAP for i, a in enumerate(scores) for b in scores[i + 1 :])


def _mean(scores: Sequence[Fraction]) -> Fraction:
    return sum(scores, Fraction(0)) / len(scores)


def median(scores: Sequence[Fraction]) -> Fraction:
    ordered = sorted(scores)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


@dataclass(frozen=True)
class Outcome:
    """``state``: stable (two judges agree everywhere) | needs_third | adjudicated |
    invalid_unstable. ``final``: label → dimension → final score (None unless decided).
    ``unstable``: the (label, dimension) pairs the first two judges disagreed on;
    ``unresolved``: those without a stable pair after the third judge."""

    state: str
    final: dict[str, dict[str, Fraction]] | None
    unstable: tuple[tuple[str, str], ...]
    unresolved: tuple[tuple[str, str], ...] = ()


def _scores(sheets: Sequence[Sheet], label: str, dim: str) -> list[Fraction]:
    return [score_of(sheet[label][dim]) for sheet in sheets]


def _labels(sheets: Sequence[Sheet]) -> list[str]:
    labels = sorted(sheets[0])
    for sheet in sheets[1:]:
        if sorted(sheet) != labels:
            raise ContractViolation("评委评分的候选标签与任务输入不一致。")
    return labels


def assess(sheets: Sequence[Sheet]) -> Outcome:
    """Decide from two sheets (or three, when the first two were unstable)."""
    if len(sheets) not in (2, 3):
        raise ContractViolation(f"稳定性判断需要 2 或 3 份评分，收到 {len(sheets)} 份。")
    labels = _labels(sheets)
    unstable = tuple(
        (label, dim)
        for label in labels
        for dim in DIMENSIONS
        if abs(_scores(sheets[:2], label, dim)[0] - _scores(sheets[:2], label, dim)[1]) > STABLE_GAP
    )
    if not unstable:
        final = {
            label: {dim: _mean(_scores(sheets[:2], label, dim)) for dim in DIMENSIONS}
            for label in labels
        }
        return Outcome("stable", final, ())
    if len(sheets) == 2:
        return Outcome("needs_third", None, unstable)
    unresolved = tuple(pair for pair in unstable if not stable_pair_exists(_scores(sheets, *pair)))
    if unresolved:
        return Outcome("invalid_unstable", None, unstable, unresolved)
    final = {
        label: {
            dim: median(_scores(sheets, label, dim))
            if (label, dim) in unstable
            else _mean(_scores(sheets[:2], label, dim))
            for dim in DIMENSIONS
        }
        for label in labels
    }
    return Outcome("adjudicated", final, unstable)
