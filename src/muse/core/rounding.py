"""Decimal ROUND_HALF_UP rounding (spec 000 §8.1 rules 4 and 7).

The spec asks for decimal ROUND_HALF_UP, so every helper here works on :class:`~decimal.Decimal`
and refuses ``float``: a binary float cannot hold most decimal fractions exactly (``2.675`` is
stored as ``2.67499999…``), so half-way cases would round the wrong way. Python's built-in
``round`` is no substitute either: it rounds half to even (``round(2.5) == 2``).

ROUND_HALF_UP is Decimal's meaning: ties go away from zero (``2.5 → 3``, ``-2.5 → -3``). Every
length in Muse is non-negative, where that is the familiar "四舍五入".
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal, localcontext

_ONE = Decimal(1)
_HUNDRED = Decimal("1E2")


def _as_decimal(value: Decimal | int | str) -> Decimal:
    # bool is an int subclass and float is binary: both are refused rather than guessed at.
    if isinstance(value, bool) or not isinstance(value, (Decimal, int, str)):
        raise TypeError(f"expected Decimal, int or str, got {type(value).__name__}")
    number = Decimal(value)
    if not number.is_finite():
        raise ValueError(f"cannot round a non-finite number: {value!r}")
    return number


def _quantize_half_up(number: Decimal, exponent: Decimal) -> int:
    # Enough precision that quantize never raises or rounds twice, however large the value.
    with localcontext() as ctx:
        ctx.prec = max(28, len(number.as_tuple().digits) + 4)
        return int(number.quantize(exponent, rounding=ROUND_HALF_UP))


def round_half_up(value: Decimal | int | str) -> int:
    """Round to an integer, ties away from zero: ``2.5 → 3``, ``2.49 → 2``."""
    return _quantize_half_up(_as_decimal(value), _ONE)


def round_to_100(value: Decimal | int) -> int:
    """Round to a multiple of 100, ties away from zero: ``2450 → 2500``, ``2449.99 → 2400``."""
    if isinstance(value, str):
        raise TypeError("round_to_100 takes a Decimal or an int, not a str")
    return _quantize_half_up(_as_decimal(value), _HUNDRED)


def median_half_up(values: Sequence[int]) -> int:
    """Median of integers; for an even count the mean of the middle two, ROUND_HALF_UP.

    ``[2999, 3000] → 2999.5 → 3000``. Raises ``ValueError`` for an empty sequence.
    """
    for value in values:
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"median_half_up takes ints, got {type(value).__name__}")
    if not values:
        raise ValueError("median of an empty sequence")
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    total = ordered[middle - 1] + ordered[middle]
    with localcontext() as ctx:
        ctx.prec = max(28, len(str(abs(total))) + 4)  # the halving stays exact
        mean = Decimal(total) / 2
    return round_half_up(mean)
