"""Chapter length target and its two bands (spec 000 §8.1; spec 001 "生成篇幅与机械接受底线分层合同").

The whole of spec 000 §8.1, as one pure function, :func:`compute_length_target`:

1. Han characters are code points of Script=Han after NFC/LF (:func:`muse.core.text.count_han`);
   callers pass the counts in :class:`ChapterLength`.
2. A valid chapter is canonical, has at least 500 Han characters, is not empty, and its number is
   below the target chapter. Nothing from the target chapter or later is ever read (replay rule).
3. An explicit ``targetChars`` from the fine outline is used as given, clamped to 2000–10000.
4. Otherwise the base is the median Han count of the latest min(20, n) valid chapters by number
   (even count: mean of the middle two, decimal ROUND_HALF_UP); with fewer than 3 valid chapters
   the base is the work's default.
5. density = hardEventCount + 0.5 × foreshadowingActionCount + 0.5 × requiredSceneCount.
6. factor = clamp(0.85 + 0.05 × (density − 3), 0.85, 1.15).
7. target = round_to_100(base × factor), clamped to 2000–10000; range endpoints are rounded the
   same way.

Decisions where the spec leaves room (the lead's brief asked for them to be written down):

* Explicit target, no factor, no rounding to 100. Rule 3 says "使用该值，但仍执行 2000-10000
  限幅" and rule 4 opens with "否则", so rules 4–7 are the other branch: the author's number is
  already the author's intent for this chapter's content. ``density`` and ``factor`` are still
  computed and recorded (rule 6 defines the factor from density alone) but not applied; the
  ``source`` field says which branch ran.
* Work default, with factor. Rule 4 defines where ``medianChars`` comes from, including "不足 3
  章时使用作品初始化默认值"; rule 7 then multiplies ``medianChars`` by the factor. So the default
  takes the median's place and goes through factor, round_to_100 and the clamp; ``median_chars``
  records the default that stood in for the median.
* Bands. Rule 7 "范围端点同样半入取整" speaks of a range whose endpoints are rounded like the
  target, and spec 001 describes two nested bands: the band the writer is asked for (its example
  4000–7000) and the wider band the mechanical gate enforces (rejects below 3001 or above 10000).
  Here, every endpoint goes through round_to_100 (ROUND_HALF_UP), as rule 7 asks:

  - generation band = [round_to_100(0.85 × target), round_to_100(1.15 × target)], each end
    clamped to 2000–10000 (±15 %, the same span as the density factor);
  - acceptance band = [round_to_100(0.75 × generation.low), 10000]: 75 % of the writer's floor
    (spec 001's example: writer floor 4000, gate floor about 3000), and the 2000–10000 ceiling
    as the hard upper limit (spec 001: "超过 10000 汉字的异常输出"). The gate is inclusive, so
    the example's gate floor is 3000 here, not 3001.

  :class:`LengthTarget` refuses (``ValueError``) a generation band that does not contain the
  target or an acceptance band that does not contain the generation band.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from muse.core.rounding import median_half_up, round_to_100

POLICY_VERSION = "length-v1"

LENGTH_MIN = 2000  # rules 3 and 7: every target and band endpoint clamp
LENGTH_MAX = 10000
MIN_VALID_HAN = 500  # rule 2
SAMPLE_SIZE = 20  # rule 4: the latest min(20, n) valid chapters
MIN_SAMPLE = 3  # rule 4: fewer valid chapters → the work default

HALF = Decimal("0.5")  # rule 5 weights of foreshadowing actions and required scenes
FACTOR_BASE = Decimal("0.85")  # rule 6
FACTOR_STEP = Decimal("0.05")
DENSITY_PIVOT = 3
FACTOR_MIN = Decimal("0.85")
FACTOR_MAX = Decimal("1.15")

GENERATION_LOW_RATIO = Decimal("0.85")  # the band the writer is asked for
GENERATION_HIGH_RATIO = Decimal("1.15")
ACCEPTANCE_FLOOR_RATIO = Decimal("0.75")  # the gate's floor, relative to the writer's floor
ACCEPTANCE_CEILING = LENGTH_MAX

SOURCE_EXPLICIT = "explicit"
SOURCE_MEDIAN = "median"
SOURCE_WORK_DEFAULT = "work_default"


def _require_int(name: str, value: object, *, minimum: int | None = None) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")


@dataclass(frozen=True)
class ChapterLength:
    """One earlier chapter as the length rule sees it."""

    number: int
    han_count: int
    canonical: bool = True
    empty: bool = False  # no body: never valid, whatever han_count says

    def __post_init__(self) -> None:
        _require_int("number", self.number)
        _require_int("han_count", self.han_count, minimum=0)

    def is_valid_before(self, target_chapter: int) -> bool:
        """Rule 2: canonical, at least 500 Han characters, not empty, before the target."""
        return (
            self.canonical
            and not self.empty
            and self.han_count >= MIN_VALID_HAN
            and self.number < target_chapter
        )


@dataclass(frozen=True)
class Density:
    """Counts from the fine outline that drive the factor (rule 5)."""

    hard_event_count: int
    foreshadowing_action_count: int
    required_scene_count: int

    def __post_init__(self) -> None:
        _require_int("hard_event_count", self.hard_event_count, minimum=0)
        _require_int("foreshadowing_action_count", self.foreshadowing_action_count, minimum=0)
        _require_int("required_scene_count", self.required_scene_count, minimum=0)

    def value(self) -> Decimal:
        return (
            Decimal(self.hard_event_count)
            + HALF * self.foreshadowing_action_count
            + HALF * self.required_scene_count
        )


@dataclass(frozen=True)
class Band:
    """A closed range of Han character counts, ``low <= n <= high``."""

    low: int
    high: int

    def __post_init__(self) -> None:
        _require_int("low", self.low, minimum=0)
        _require_int("high", self.high, minimum=self.low)

    def contains(self, other: Band) -> bool:
        return self.low <= other.low and other.high <= self.high

    def admits(self, han_count: int) -> bool:
        return self.low <= han_count <= self.high

    def to_dict(self) -> dict[str, int]:
        return {"low": self.low, "high": self.high}


@dataclass(frozen=True)
class LengthTarget:
    """The frozen outcome of spec 000 §8.1, stored in the WriterContext."""

    target: int
    source: str
    median_chars: int | None  # the median, or the work default standing in; None when explicit
    sample_chapters: tuple[int, ...]  # chapters whose counts made the median, ascending
    density: Decimal
    factor: Decimal  # computed from density; applied unless source == "explicit"
    generation_band: Band
    acceptance_band: Band
    policy_version: str = POLICY_VERSION

    def __post_init__(self) -> None:
        if self.source not in (SOURCE_EXPLICIT, SOURCE_MEDIAN, SOURCE_WORK_DEFAULT):
            raise ValueError(f"unknown length target source: {self.source!r}")
        if not LENGTH_MIN <= self.target <= LENGTH_MAX:
            raise ValueError(f"target {self.target} outside {LENGTH_MIN}–{LENGTH_MAX}")
        if not self.generation_band.admits(self.target):
            raise ValueError(f"generation band {self.generation_band} misses target {self.target}")
        if not self.acceptance_band.contains(self.generation_band):
            raise ValueError(
                f"acceptance band {self.acceptance_band} does not contain "
                f"generation band {self.generation_band}"
            )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form for hashing into the WriterContext; Decimals as plain strings."""
        return {
            "policyVersion": self.policy_version,
            "source": self.source,
            "targetChars": self.target,
            "medianChars": self.median_chars,
            "sampleChapters": list(self.sample_chapters),
            "density": _plain(self.density),
            "factor": _plain(self.factor),
            "generationBand": self.generation_band.to_dict(),
            "acceptanceBand": self.acceptance_band.to_dict(),
        }


def _plain(number: Decimal) -> str:
    # One spelling per value ("4", not "4.0" or "4E+0"), so equal values hash equally.
    return format(number.normalize(), "f")


def _clamp_length(value: int) -> int:
    return max(LENGTH_MIN, min(LENGTH_MAX, value))


def density_factor(density: Decimal) -> Decimal:
    """Rule 6: clamp(0.85 + 0.05 × (density − 3), 0.85, 1.15)."""
    factor = FACTOR_BASE + FACTOR_STEP * (density - DENSITY_PIVOT)
    return max(FACTOR_MIN, min(FACTOR_MAX, factor))


def length_bands(target: int) -> tuple[Band, Band]:
    """The generation band and the acceptance band around ``target`` (see module docstring)."""
    generation = Band(
        _clamp_length(round_to_100(GENERATION_LOW_RATIO * target)),
        _clamp_length(round_to_100(GENERATION_HIGH_RATIO * target)),
    )
    acceptance = Band(round_to_100(ACCEPTANCE_FLOOR_RATIO * generation.low), ACCEPTANCE_CEILING)
    return generation, acceptance


def latest_valid_chapters(
    chapters: Iterable[ChapterLength], target_chapter: int
) -> list[ChapterLength]:
    """Rules 2 and 4: the valid chapters, latest first, at most 20 of them."""
    valid = [c for c in chapters if c.is_valid_before(target_chapter)]
    numbers = [c.number for c in valid]
    if len(set(numbers)) != len(numbers):
        repeated = sorted({n for n in numbers if numbers.count(n) > 1})
        raise ValueError(f"valid chapters repeat chapter numbers {repeated}")
    valid.sort(key=lambda c: c.number, reverse=True)
    return valid[:SAMPLE_SIZE]


def compute_length_target(
    chapters: Iterable[ChapterLength],
    target_chapter: int,
    *,
    work_default: int,
    density: Density,
    explicit_target_chars: int | None = None,
) -> LengthTarget:
    """Spec 000 §8.1 for ``target_chapter``; see the module docstring for the decisions taken."""
    _require_int("target_chapter", target_chapter)
    _require_int("work_default", work_default, minimum=1)
    density_value = density.value()
    factor = density_factor(density_value)
    if explicit_target_chars is not None:
        _require_int("explicit_target_chars", explicit_target_chars, minimum=1)
        return _length_target(
            _clamp_length(explicit_target_chars), SOURCE_EXPLICIT, None, (), density_value, factor
        )
    sample = latest_valid_chapters(chapters, target_chapter)
    numbers: tuple[int, ...] = ()
    source, base = SOURCE_WORK_DEFAULT, work_default
    if len(sample) >= MIN_SAMPLE:
        source = SOURCE_MEDIAN
        base = median_half_up([c.han_count for c in sample])
        numbers = tuple(sorted(c.number for c in sample))
    target = _clamp_length(round_to_100(base * factor))
    return _length_target(target, source, base, numbers, density_value, factor)


def _length_target(
    target: int,
    source: str,
    median_chars: int | None,
    sample_chapters: tuple[int, ...],
    density: Decimal,
    factor: Decimal,
) -> LengthTarget:
    generation, acceptance = length_bands(target)
    return LengthTarget(
        target=target,
        source=source,
        median_chars=median_chars,
        sample_chapters=sample_chapters,
        density=density,
        factor=factor,
        generation_band=generation,
        acceptance_band=acceptance,
    )
