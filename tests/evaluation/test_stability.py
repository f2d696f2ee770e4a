"""The stability gate: two judges, > 0.5 apart → third judge → median or invalid_unstable."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction as F

import pytest

from muse.core.errors import ContractViolation
from muse.evaluation.contracts import DIMENSIONS
from muse.evaluation.stability import assess, score_of


def sheet(base: float, **overrides: float) -> dict:
    """Two candidates X and Y; every dimension ``base`` unless overridden (``X_settingFidelity``)."""
    out = {}
    for label in ("X", "Y"):
        out[label] = {d: overrides.get(f"{label}_{d}", base) for d in DIMENSIONS}
    return out


@dataclass(frozen=True)
class Case:
    name: str
    sheets: tuple[dict, ...]
    state: str
    final_x_fidelity: F | None = None


CASES = [
    Case("identical", (sheet(3), sheet(3)), "stable", F(3)),
    Case("0.5 apart is stable", (sheet(3), sheet(3.5)), "stable", F(13, 4)),
    Case("1.0 apart needs a third", (sheet(3), sheet(4)), "needs_third"),
    Case(
        "one dimension apart needs a third", (sheet(3), sheet(3, Y_proseQuality=4.5)), "needs_third"
    ),
    Case("third agrees with one: median", (sheet(2), sheet(4), sheet(3.5)), "adjudicated", F(7, 2)),
    Case(
        "third between, stable pair with both",
        (sheet(2), sheet(3), sheet(2.5)),
        "adjudicated",
        F(5, 2),
    ),
    Case("no stable pair", (sheet(1), sheet(3), sheet(5)), "invalid_unstable"),
    Case(
        "stable dims keep the mean of two",
        (sheet(3, X_proseQuality=1), sheet(3.5, X_proseQuality=4), sheet(3, X_proseQuality=4)),
        "adjudicated",
        F(13, 4),
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_assess(case: Case):
    outcome = assess(case.sheets)
    assert outcome.state == case.state
    if case.final_x_fidelity is not None:
        assert outcome.final is not None
        assert outcome.final["X"]["settingFidelity"] == case.final_x_fidelity
    if case.state in ("needs_third", "invalid_unstable"):
        assert outcome.final is None and outcome.unstable


def test_invalid_names_the_unresolved_dimensions():
    outcome = assess(
        (
            sheet(3, X_styleConsistency=1),
            sheet(3, X_styleConsistency=3),
            sheet(3, X_styleConsistency=5),
        )
    )
    assert outcome.state == "invalid_unstable"
    assert outcome.unresolved == (("X", "styleConsistency"),)


@pytest.mark.parametrize("bad", [0.5, 5.5, 3.3, 2.25, "x"])
def test_scores_off_the_half_step_grid_are_refused(bad):
    with pytest.raises((ContractViolation, ValueError)):
        score_of(bad)


def test_mismatched_labels_are_refused():
    with pytest.raises(ContractViolation):
        assess((sheet(3), {"X": sheet(3)["X"]}))
