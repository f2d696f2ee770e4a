"""Decimal ROUND_HALF_UP helpers (spec 000 §8.1 rules 4 and 7)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from muse.core.rounding import median_half_up, round_half_up, round_to_100


@dataclass(frozen=True)
class RoundCase:
    name: str
    value: Decimal | int | str
    expected: int


ROUND_HALF_UP_CASES = [
    RoundCase("exact half goes up", Decimal("2.5"), 3),
    RoundCase("half of an even integer goes up, not to even", Decimal("4.5"), 5),
    RoundCase("just below half goes down", Decimal("2.4999999"), 2),
    RoundCase("just above half goes up", Decimal("2.5000001"), 3),
    RoundCase("integer unchanged", 7, 7),
    RoundCase("string input", "2999.5", 3000),
    RoundCase("float-trap value 2.675 as decimal text", "2.675", 3),
    RoundCase("negative half goes away from zero", Decimal("-2.5"), -3),
    RoundCase("zero", Decimal("0.4"), 0),
]


@pytest.mark.parametrize("case", ROUND_HALF_UP_CASES, ids=lambda c: c.name)
def test_round_half_up(case: RoundCase) -> None:
    assert round_half_up(case.value) == case.expected


ROUND_TO_100_CASES = [
    RoundCase("2450 is a tie and goes up", 2450, 2500),
    RoundCase("2449.99 goes down", Decimal("2449.99"), 2400),
    RoundCase("2349 goes down", 2349, 2300),
    RoundCase("2350 tie goes up", 2350, 2400),
    RoundCase("2250 tie goes up, not to even 2200", 2250, 2300),
    RoundCase("2351 goes up", 2351, 2400),
    RoundCase("multiple of 100 unchanged", 6700, 6700),
    RoundCase("decimal product 7015 * 0.95 = 6664.25", Decimal("6664.25"), 6700),
    RoundCase("small tie", 50, 100),
    RoundCase("below a small tie", 49, 0),
    RoundCase("beyond 28 digits stays exact", 10**40 + 50, 10**40 + 100),
]


@pytest.mark.parametrize("case", ROUND_TO_100_CASES, ids=lambda c: c.name)
def test_round_to_100(case: RoundCase) -> None:
    assert round_to_100(case.value) == case.expected


@dataclass(frozen=True)
class MedianCase:
    name: str
    values: tuple[int, ...]
    expected: int


MEDIAN_CASES = [
    MedianCase("single value", (4200,), 4200),
    MedianCase("odd count takes the middle", (3000, 1000, 2000), 2000),
    MedianCase("odd count ignores outliers", (1, 5000, 99999, 5001, 4999), 5000),
    MedianCase("even count, whole mean", (3000, 1000, 2000, 4000), 2500),
    MedianCase("even count, exact .5 goes up", (3000, 2999), 3000),
    MedianCase("even count, .5 with unsorted input", (5000, 2999, 1, 3000), 3000),
    MedianCase("even count, 4001 and 4002 -> 4001.5 -> 4002", (4002, 4001), 4002),
    MedianCase("duplicates", (3000, 3000, 3000, 3001), 3000),
    MedianCase("huge even pair stays exact", (10**40 + 1, 10**40 + 2), 10**40 + 2),
]


@pytest.mark.parametrize("case", MEDIAN_CASES, ids=lambda c: c.name)
def test_median_half_up(case: MedianCase) -> None:
    assert median_half_up(case.values) == case.expected


def test_median_of_nothing_is_an_error() -> None:
    with pytest.raises(ValueError):
        median_half_up([])


@pytest.mark.parametrize("value", [2.5, True, None, [1]], ids=repr)
def test_round_half_up_refuses_floats_and_non_numbers(value: object) -> None:
    with pytest.raises(TypeError):
        round_half_up(value)  # type: ignore[arg-type]


@pytest.mark.parametrize("value", [2450.0, "2450", True], ids=repr)
def test_round_to_100_refuses_floats_and_text(value: object) -> None:
    with pytest.raises(TypeError):
        round_to_100(value)  # type: ignore[arg-type]


@pytest.mark.parametrize("value", [Decimal("NaN"), Decimal("Infinity"), "-Infinity"])
def test_non_finite_values_are_refused(value: Decimal | str) -> None:
    with pytest.raises(ValueError):
        round_half_up(value)


def test_median_refuses_floats() -> None:
    with pytest.raises(TypeError):
        median_half_up([1.5, 2.5])  # type: ignore[list-item]


@given(st.integers(min_value=0, max_value=10**12))
def test_round_to_100_is_nearest_multiple_with_ties_up(n: int) -> None:
    rounded = round_to_100(n)
    assert rounded % 100 == 0
    # nearest multiple, and a remainder of exactly 50 rounds up
    assert rounded == n - n % 100 + (100 if n % 100 >= 50 else 0)


@given(st.lists(st.integers(min_value=0, max_value=10**9), min_size=1, max_size=41))
def test_median_is_order_free_and_between_the_middle_values(values: list[int]) -> None:
    ordered = sorted(values)
    lower, upper = ordered[(len(values) - 1) // 2], ordered[len(values) // 2]
    median = median_half_up(values)
    assert median == median_half_up(list(reversed(values)))
    # integer form of "mean of the middle two, ties up" for non-negative values
    assert median == (lower + upper + 1) // 2
