"""Gate A and Gate B: every rule of spec 000 §10.1, and the order (first matching rule wins)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction as F

import pytest

from muse.evaluation.gates import GateFacts, GateVerdict, SampleDeltas, gate_a, gate_b

GAIN = SampleDeltas(fidelity=F(1, 2), style=F(0), tension=F(0))
FLAT = SampleDeltas(fidelity=F(0), style=F(0), tension=F(0))

PASSING = GateFacts(
    valid_samples=10,
    books_valid={"西游记": 5, "三国演义": 5},
    scene_classes_valid=frozenset({"battle", "dialogue", "emotion", "transition", "reveal"}),
    samples_total=10,
    deltas=(GAIN,) * 10,
)


@dataclass(frozen=True)
class Case:
    name: str
    facts: GateFacts
    verdict: str
    rule: str


A_CASES = [
    Case("passes", PASSING, "passed", "gate_a_pass"),
    Case(
        "dry run first",
        replace(PASSING, dry_run=True, future_leaks=3),
        "insufficient_evidence",
        "dry_run",
    ),
    Case("four valid", replace(PASSING, valid_samples=4), "insufficient_evidence", "valid_samples"),
    Case(
        "too few beats failures",
        replace(PASSING, valid_samples=0, future_leaks=1),
        "insufficient_evidence",
        "valid_samples",
    ),
    Case("schema", replace(PASSING, schema_invalid=1), "failed", "schema_invalid"),
    Case(
        "schema before leak",
        replace(PASSING, schema_invalid=1, future_leaks=1),
        "failed",
        "schema_invalid",
    ),
    Case("leak", replace(PASSING, future_leaks=2), "failed", "future_leak"),
    Case(
        "leak before system",
        replace(PASSING, future_leaks=1, system_failures=1),
        "failed",
        "future_leak",
    ),
    Case("system", replace(PASSING, system_failures=1), "failed", "system_failure"),
    Case("high severity", replace(PASSING, c_high_severity=1), "failed", "c_high_severity"),
    Case("coverage", replace(PASSING, c_hard_coverage=F(9, 10)), "failed", "hard_coverage"),
    Case(
        "high before coverage",
        replace(PASSING, c_high_severity=1, c_hard_coverage=F(0)),
        "failed",
        "c_high_severity",
    ),
]


@pytest.mark.parametrize("case", A_CASES, ids=lambda c: c.name)
def test_gate_a(case: Case):
    result = gate_a(case.facts)
    assert (result.verdict, result.rule) == (case.verdict, case.rule)
    assert result.reason


def _drops(n_drop: int, dim: str) -> tuple[SampleDeltas, ...]:
    drop = replace(GAIN, **{dim: F(-1)})
    lift = replace(GAIN, **{dim: F(1, 2)})  # keeps the mean above −0.25
    return (drop,) * n_drop + (lift,) * (10 - n_drop)


B_CASES = [
    Case("passes", PASSING, "passed", "fidelity_gain"),
    Case("dry run", replace(PASSING, dry_run=True), "insufficient_evidence", "dry_run"),
    Case(
        "gate a insufficient",
        replace(PASSING, valid_samples=3),
        "insufficient_evidence",
        "gate_a_insufficient",
    ),
    Case("gate a failed", replace(PASSING, future_leaks=1), "failed", "gate_a_failed"),
    Case(
        "gate a failed before coverage",
        replace(PASSING, future_leaks=1, books_valid={"西游记": 10}),
        "failed",
        "gate_a_failed",
    ),
    Case(
        "one book",
        replace(PASSING, books_valid={"西游记": 10}),
        "insufficient_evidence",
        "coverage_books",
    ),
    Case(
        "thin book",
        replace(PASSING, books_valid={"西游记": 6, "三国演义": 4}),
        "insufficient_evidence",
        "coverage_per_book",
    ),
    Case(
        "thin before scenes",
        replace(
            PASSING,
            books_valid={"西游记": 6, "三国演义": 4},
            scene_classes_valid=frozenset({"battle"}),
        ),
        "insufficient_evidence",
        "coverage_per_book",
    ),
    Case(
        "scenes",
        replace(PASSING, scene_classes_valid=frozenset({"battle", "dialogue"})),
        "insufficient_evidence",
        "coverage_scenes",
    ),
    Case(
        "unstable over 20%",
        replace(PASSING, samples_total=13, unstable_samples=3),
        "insufficient_evidence",
        "unstable_share",
    ),
    Case(
        "unstable exactly 20% is fine",
        replace(PASSING, samples_total=15, unstable_samples=3),
        "passed",
        "fidelity_gain",
    ),
    Case(
        "unstable before regression",
        replace(PASSING, samples_total=13, unstable_samples=3, deltas=_drops(10, "style")),
        "insufficient_evidence",
        "unstable_share",
    ),
    Case(
        "style mean",
        replace(PASSING, deltas=(replace(GAIN, style=F(-1, 2)),) * 10),
        "failed",
        "style_regression",
    ),
    Case(
        "style mean −0.25 is fine",
        replace(PASSING, deltas=(replace(GAIN, style=F(-1, 4)),) * 10),
        "passed",
        "fidelity_gain",
    ),
    Case(
        "style before tension",
        replace(PASSING, deltas=(replace(GAIN, style=F(-1), tension=F(-1)),) * 10),
        "failed",
        "style_regression",
    ),
    Case(
        "tension mean",
        replace(PASSING, deltas=(replace(GAIN, tension=F(-1, 2)),) * 10),
        "failed",
        "tension_regression",
    ),
    Case(
        "style drops 30%", replace(PASSING, deltas=_drops(3, "style")), "failed", "style_drop_share"
    ),
    Case(
        "style drops 20% is fine",
        replace(PASSING, deltas=_drops(2, "style")),
        "passed",
        "fidelity_gain",
    ),
    Case(
        "tension drops 30%",
        replace(PASSING, deltas=_drops(3, "tension")),
        "failed",
        "tension_drop_share",
    ),
    Case("no gain", replace(PASSING, deltas=(FLAT,) * 10), "no_gain", "no_fidelity_gain"),
    Case(
        "mean high but 50% positive",
        replace(PASSING, deltas=(replace(FLAT, fidelity=F(1)),) * 5 + (FLAT,) * 5),
        "no_gain",
        "no_fidelity_gain",
    ),
    Case(
        "60% positive, mean 0.3",
        replace(PASSING, deltas=(replace(FLAT, fidelity=F(1, 2)),) * 6 + (FLAT,) * 4),
        "passed",
        "fidelity_gain",
    ),
    Case(
        "mean just under 0.25",
        replace(
            PASSING,
            deltas=(replace(FLAT, fidelity=F(1, 2)),) * 2
            + (replace(FLAT, fidelity=F(1, 4)),) * 4
            + (FLAT,) * 4,
        ),
        "no_gain",
        "no_fidelity_gain",
    ),
]


@pytest.mark.parametrize("case", B_CASES, ids=lambda c: c.name)
def test_gate_b(case: Case):
    result = gate_b(case.facts)
    assert (result.verdict, result.rule) == (case.verdict, case.rule)
    assert result.reason


@pytest.mark.parametrize(
    ("facts", "rule"),
    [
        (replace(PASSING, c_high_severity=1), "hard_error"),
        (replace(PASSING, c_hard_coverage=F(4, 5)), "hard_error"),
        (replace(PASSING, c_high_severity=1, deltas=(FLAT,) * 10), "hard_error"),
    ],
)
def test_gate_b_hard_errors_come_before_gain(facts, rule):
    """Gate B's own hard-error rule, reached when Gate A is given as passed."""
    result = gate_b(facts, GateVerdict("passed", "gate_a_pass", ""))
    assert (result.verdict, result.rule) == ("failed", rule)


def test_every_rule_is_reached_by_a_case():
    from muse.evaluation.gates import GATE_A_RULES, _gate_b_rules

    a_rules = {r[0] for r in GATE_A_RULES}
    b_rules = {r[0] for r in _gate_b_rules(GateVerdict("passed", "x", ""))}
    assert a_rules == {c.rule for c in A_CASES}
    assert b_rules == {c.rule for c in B_CASES} | {"hard_error"}
