"""Length target and bands (spec 000 §8.1, spec 001 layered length contract).

Every expected number in the tables is worked out by hand in the case's comment.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from muse.core.canonical import hash_value
from muse.core.length_target import (
    Band,
    ChapterLength,
    Density,
    LengthTarget,
    compute_length_target,
    length_bands,
)

# density 6 gives factor 0.85 + 0.05 * 3 = 1.00, so target = round_to_100(median)
NEUTRAL = Density(6, 0, 0)


def chapters(*han_counts: int, start: int = 1) -> tuple[ChapterLength, ...]:
    """Canonical, non-empty chapters numbered from ``start`` with the given Han counts."""
    return tuple(ChapterLength(start + i, n) for i, n in enumerate(han_counts))


def _shuffled_25() -> tuple[ChapterLength, ...]:
    # ch 1-5: 1000, ch 6-15: 4000, ch 16-25: 5000, listed in a scrambled order (7k mod 25)
    by_number = {n: 1000 if n <= 5 else 4000 if n <= 15 else 5000 for n in range(1, 26)}
    order = sorted(range(1, 26), key=lambda n: (n * 7) % 25)
    return tuple(ChapterLength(n, by_number[n]) for n in order)


@dataclass(frozen=True)
class TargetCase:
    name: str
    chapters: tuple[ChapterLength, ...]
    target_chapter: int
    expected_target: int
    expected_source: str
    expected_median: int | None
    expected_sample: tuple[int, ...]
    density: Density = NEUTRAL
    work_default: int = 3000
    explicit: int | None = None


TARGET_CASES = [
    # --- median path, sample sizes
    TargetCase(
        "exactly 3 valid chapters use the median (odd: middle of 3000, 4000, 5000)",
        chapters(3000, 5000, 4000),
        4,
        4000,
        "median",
        4000,
        (1, 2, 3),
    ),
    TargetCase(
        "even sample: mean of 4000 and 5000 = 4500",
        chapters(3000, 5000, 4000, 6000),
        5,
        4500,
        "median",
        4500,
        (1, 2, 3, 4),
    ),
    TargetCase(
        "even sample with exact .5: (2999 + 3000) / 2 = 2999.5 -> 3000",
        chapters(2999, 3000, 1000, 5000),
        5,
        3000,
        "median",
        3000,
        (1, 2, 3, 4),
    ),
    TargetCase(
        "median .5 decides the hundred: 3049.5 -> 3050 -> 3100 (3049 would give 3000)",
        chapters(3049, 3050, 1000, 9000),
        5,
        3100,
        "median",
        3050,
        (1, 2, 3, 4),
    ),
    TargetCase(
        "round_to_100 tie: median 2450 -> 2500",
        chapters(2450, 2450, 2450),
        4,
        2500,
        "median",
        2450,
        (1, 2, 3),
    ),
    TargetCase(
        "round_to_100 down: median 2349 -> 2300",
        chapters(2349, 2349, 2349),
        4,
        2300,
        "median",
        2349,
        (1, 2, 3),
    ),
    TargetCase(
        "tie after the factor: 3000 * 0.85 = 2550 -> 2600",
        chapters(3000, 3000, 3000),
        4,
        2600,
        "median",
        3000,
        (1, 2, 3),
        density=Density(3, 0, 0),
    ),
    TargetCase(
        "decimal product: median 7015 (7014.5 up) * 0.95 = 6664.25 -> 6700",
        chapters(7014, 7015, 7000, 7100),
        5,
        6700,
        "median",
        7015,
        (1, 2, 3, 4),
        density=Density(5, 0, 0),
    ),
    # --- validity (rule 2)
    TargetCase(
        "fewer than 500 Han excluded, exactly 500 kept: median of 500, 4000, 5000",
        chapters(499, 500, 4000, 5000),
        5,
        4000,
        "median",
        4000,
        (2, 3, 4),  # with 499 it would be (500+4000)/2 -> 2300 target
    ),
    TargetCase(
        "non-canonical chapter excluded (with it: median 4500)",
        (ChapterLength(1, 9000, canonical=False), *chapters(3000, 4000, 5000, start=2)),
        5,
        4000,
        "median",
        4000,
        (2, 3, 4),
    ),
    TargetCase(
        "empty chapter excluded even with a Han count (with it: median 4500)",
        (ChapterLength(1, 9000, empty=True), *chapters(3000, 4000, 5000, start=2)),
        5,
        4000,
        "median",
        4000,
        (2, 3, 4),
    ),
    TargetCase(
        "the target chapter itself is never read (with it: median 4500)",
        (*chapters(3000, 4000, 5000), ChapterLength(4, 9000)),
        4,
        4000,
        "median",
        4000,
        (1, 2, 3),
    ),
    TargetCase(
        "chapters after the target are never read",
        (*chapters(3000, 4000, 5000), *chapters(9000, 9000, 9000, start=4)),
        4,
        4000,
        "median",
        4000,
        (1, 2, 3),
    ),
    TargetCase(
        "more than 20: only the latest 20 by number, input scrambled; 6-15 at 4000, "
        "16-25 at 5000 -> 4500 (all 25 or the first 20 would give 4000)",
        _shuffled_25(),
        26,
        4500,
        "median",
        4500,
        tuple(range(6, 26)),
    ),
    TargetCase(
        "the latest 20 counts valid chapters only: ch 25 non-canonical, sample 5-24 = "
        "1000, 10 x 4000, 9 x 5000 -> middle two 4000, 4000",
        tuple(
            ChapterLength(c.number, c.han_count, canonical=c.number != 25) for c in _shuffled_25()
        ),
        26,
        4000,
        "median",
        4000,
        tuple(range(5, 25)),
    ),
    # --- work default (rule 4), factor applied (rule 7)
    TargetCase(
        "no chapters: work default 3000 * 1.00",
        (),
        1,
        3000,
        "work_default",
        3000,
        (),
    ),
    TargetCase(
        "two valid chapters (third under 500): work default",
        chapters(5000, 6000, 400),
        4,
        3000,
        "work_default",
        3000,
        (),
    ),
    TargetCase(
        "work default gets the factor: 4000 * 1.15 = 4600",
        chapters(5000),
        2,
        4600,
        "work_default",
        4000,
        (),
        density=Density(9, 0, 0),
        work_default=4000,
    ),
    TargetCase(
        "work default gets the low factor: 4000 * 0.85 = 3400",
        (),
        1,
        3400,
        "work_default",
        4000,
        (),
        density=Density(3, 0, 0),
        work_default=4000,
    ),
    TargetCase(
        "work default above the ceiling: 50000 -> 10000",
        (),
        1,
        10000,
        "work_default",
        50000,
        (),
        work_default=50000,
    ),
    # --- explicit targetChars (rule 3): as given, clamped, no factor, no rounding
    TargetCase(
        "explicit 1500 clamps up to 2000",
        chapters(5000, 5000, 5000),
        4,
        2000,
        "explicit",
        None,
        (),
        explicit=1500,
    ),
    TargetCase(
        "explicit 12000 clamps down to 10000",
        chapters(5000, 5000, 5000),
        4,
        10000,
        "explicit",
        None,
        (),
        explicit=12000,
    ),
    TargetCase(
        "explicit 4321 used as given: no factor 1.15, no rounding to 100",
        chapters(3000, 3000, 3000),
        4,
        4321,
        "explicit",
        None,
        (),
        density=Density(9, 0, 0),
        explicit=4321,
    ),
    TargetCase(
        "explicit with no history at all",
        (),
        1,
        6000,
        "explicit",
        None,
        (),
        explicit=6000,
    ),
    # --- factor clamps (rule 6)
    TargetCase(
        "density 0: 0.85 - 0.15 = 0.70 clamps to 0.85; 4000 * 0.85 = 3400",
        chapters(4000, 4000, 4000),
        4,
        3400,
        "median",
        4000,
        (1, 2, 3),
        density=Density(0, 0, 0),
    ),
    TargetCase(
        "density 20: 0.85 + 0.85 = 1.70 clamps to 1.15; 4000 * 1.15 = 4600",
        chapters(4000, 4000, 4000),
        4,
        4600,
        "median",
        4000,
        (1, 2, 3),
        density=Density(20, 0, 0),
    ),
    TargetCase(
        "halves: density 2 + 0.5*3 + 0.5*2 = 4.5, factor 0.925; 4000 * 0.925 = 3700",
        chapters(4000, 4000, 4000),
        4,
        3700,
        "median",
        4000,
        (1, 2, 3),
        density=Density(2, 3, 2),
    ),
    # --- final clamp (rule 7)
    TargetCase(
        "short chapters: median 700 -> 700 clamps up to 2000",
        chapters(600, 700, 800),
        4,
        2000,
        "median",
        700,
        (1, 2, 3),
    ),
    TargetCase(
        "long chapters: median 20000 -> 20000 clamps down to 10000",
        chapters(20000, 20000, 20000),
        4,
        10000,
        "median",
        20000,
        (1, 2, 3),
    ),
    TargetCase(
        "rounding below the floor: 2300 * 0.85 = 1955 -> 2000",
        chapters(2300, 2300, 2300),
        4,
        2000,
        "median",
        2300,
        (1, 2, 3),
        density=Density(3, 0, 0),
    ),
]


@pytest.mark.parametrize("case", TARGET_CASES, ids=lambda c: c.name)
def test_length_target(case: TargetCase) -> None:
    result = compute_length_target(
        case.chapters,
        case.target_chapter,
        work_default=case.work_default,
        density=case.density,
        explicit_target_chars=case.explicit,
    )
    assert result.target == case.expected_target
    assert result.source == case.expected_source
    assert result.median_chars == case.expected_median
    assert result.sample_chapters == case.expected_sample
    assert result.policy_version == "length-v1"


@dataclass(frozen=True)
class FactorCase:
    name: str
    density: Density
    expected_density: Decimal
    expected_factor: Decimal


FACTOR_CASES = [
    FactorCase("zero clamps low", Density(0, 0, 0), Decimal("0"), Decimal("0.85")),
    FactorCase("pivot 3 is the floor", Density(3, 0, 0), Decimal("3"), Decimal("0.85")),
    FactorCase("3.5 just above the floor", Density(3, 1, 0), Decimal("3.5"), Decimal("0.875")),
    FactorCase("6 is neutral", Density(4, 2, 2), Decimal("6"), Decimal("1.00")),
    FactorCase("9 is the ceiling", Density(9, 0, 0), Decimal("9"), Decimal("1.15")),
    FactorCase("20 clamps high", Density(20, 0, 0), Decimal("20"), Decimal("1.15")),
    FactorCase("halves only", Density(0, 5, 5), Decimal("5"), Decimal("0.95")),
]


@pytest.mark.parametrize("case", FACTOR_CASES, ids=lambda c: c.name)
def test_density_and_factor(case: FactorCase) -> None:
    result = compute_length_target((), 1, work_default=3000, density=case.density)
    assert result.density == case.expected_density
    assert result.factor == case.expected_factor


@dataclass(frozen=True)
class BandCase:
    name: str
    target: int
    generation: Band
    acceptance: Band


BAND_CASES = [
    # generation = [r100(0.85 t), r100(1.15 t)] clamped 2000-10000; acceptance low = r100(0.75 gen.low)
    BandCase("typical 7000: 5950->6000, 8050->8100; 4500", 7000, Band(6000, 8100), Band(4500, 10000)),
    BandCase("6700: 5695->5700, 7705->7700; 4275->4300", 6700, Band(5700, 7700), Band(4300, 10000)),
    BandCase("ties at both ends, 3000: 2550->2600, 3450->3500; 1950->2000", 3000, Band(2600, 3500), Band(2000, 10000)),
    BandCase("floor 2000: 1700 clamps to 2000, 2300; 1500", 2000, Band(2000, 2300), Band(1500, 10000)),
    BandCase("2350: 1997.5->2000, 2702.5->2700; 1500", 2350, Band(2000, 2700), Band(1500, 10000)),
    BandCase("ceiling 10000: 8500, 11500 clamps to 10000; 6375->6400", 10000, Band(8500, 10000), Band(6400, 10000)),
    BandCase("explicit 4321: 3672.85->3700, 4969.15->5000; 2775->2800", 4321, Band(3700, 5000), Band(2800, 10000)),
]  # fmt: skip


@pytest.mark.parametrize("case", BAND_CASES, ids=lambda c: c.name)
def test_length_bands(case: BandCase) -> None:
    generation, acceptance = length_bands(case.target)
    assert generation == case.generation
    assert acceptance == case.acceptance
    assert acceptance.contains(generation)


def test_bands_are_stored_in_the_result() -> None:
    # median 7000, factor 1.00 -> target 7000 -> the typical bands above
    result = compute_length_target(
        chapters(7000, 7000, 7000), 4, work_default=3000, density=NEUTRAL
    )
    assert result.generation_band == Band(6000, 8100)
    assert result.acceptance_band == Band(4500, 10000)


@dataclass(frozen=True)
class ContainsCase:
    name: str
    outer: Band
    inner: Band
    expected: bool


CONTAINS_CASES = [
    ContainsCase("strictly inside", Band(3000, 10000), Band(4000, 7000), True),
    ContainsCase("equal bands", Band(4000, 7000), Band(4000, 7000), True),
    ContainsCase("shared low end", Band(4000, 10000), Band(4000, 7000), True),
    ContainsCase("inner low below", Band(4000, 10000), Band(3999, 7000), False),
    ContainsCase("inner high above", Band(3000, 7000), Band(4000, 7001), False),
    ContainsCase("disjoint", Band(1000, 2000), Band(3000, 4000), False),
    ContainsCase("inner wider on both ends", Band(4000, 7000), Band(3000, 10000), False),
]


@pytest.mark.parametrize("case", CONTAINS_CASES, ids=lambda c: c.name)
def test_band_contains(case: ContainsCase) -> None:
    assert case.outer.contains(case.inner) is case.expected


@pytest.mark.parametrize(
    ("han_count", "expected"),
    [(2999, False), (3000, True), (6500, True), (10000, True), (10001, False)],
)
def test_band_admits_is_inclusive(han_count: int, expected: bool) -> None:
    assert Band(3000, 10000).admits(han_count) is expected


def _target(**overrides: object) -> LengthTarget:
    fields: dict[str, object] = {
        "target": 7000,
        "source": "median",
        "median_chars": 7000,
        "sample_chapters": (1, 2, 3),
        "density": Decimal(6),
        "factor": Decimal("1.00"),
        "generation_band": Band(6000, 8100),
        "acceptance_band": Band(4500, 10000),
    }
    fields.update(overrides)
    return LengthTarget(**fields)  # type: ignore[arg-type]


def test_a_consistent_length_target_is_accepted() -> None:
    assert _target().acceptance_band == Band(4500, 10000)


@pytest.mark.parametrize(
    "overrides",
    [
        {"acceptance_band": Band(6100, 10000)},  # floor above the writer's floor
        {"acceptance_band": Band(4500, 8000)},  # ceiling below the writer's ceiling
        {"generation_band": Band(7100, 8100)},  # writer band misses the target
        {"target": 12000, "generation_band": Band(10000, 13000), "acceptance_band": Band(0, 20000)},
        {"source": "guess"},
    ],
    ids=["acceptance-floor", "acceptance-ceiling", "target-outside", "target-range", "source"],
)
def test_inconsistent_length_targets_are_refused(overrides: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        _target(**overrides)


def test_band_refuses_low_above_high() -> None:
    with pytest.raises(ValueError):
        Band(5000, 4000)


@pytest.mark.parametrize(
    "call",
    [
        lambda: Density(-1, 0, 0),
        lambda: ChapterLength(1, -5),
        lambda: compute_length_target((), 1, work_default=0, density=NEUTRAL),
        lambda: compute_length_target(
            (), 1, work_default=3000, density=NEUTRAL, explicit_target_chars=0
        ),
        # the same chapter number twice among valid chapters is ambiguous
        lambda: compute_length_target(
            chapters(3000, 4000, 5000) + (ChapterLength(2, 6000),),
            5,
            work_default=3000,
            density=NEUTRAL,
        ),
    ],
    ids=["negative-count", "negative-han", "default-zero", "explicit-zero", "duplicate-valid"],
)
def test_invalid_inputs_are_refused(call: object) -> None:
    with pytest.raises(ValueError):
        call()  # type: ignore[operator]


def test_duplicate_number_with_an_invalid_twin_is_fine() -> None:
    # chapter 2 has a non-canonical twin and an empty twin; only the canonical one counts
    twins = (ChapterLength(2, 9000, canonical=False), ChapterLength(2, 9000, empty=True))
    result = compute_length_target(
        chapters(3000, 4000, 5000) + twins, 4, work_default=3000, density=NEUTRAL
    )
    assert result.median_chars == 4000


def test_to_dict_is_json_ready_and_spells_decimals_once() -> None:
    # density 2 + 1.5 + 1 = 4.5, factor 0.925; median 4000 -> 3700; bands by hand:
    # 3145 -> 3100, 4255 -> 4300; 2325 -> 2300
    result = compute_length_target(
        chapters(4000, 4000, 4000), 4, work_default=3000, density=Density(2, 3, 2)
    )
    assert result.to_dict() == {
        "policyVersion": "length-v1",
        "source": "median",
        "targetChars": 3700,
        "medianChars": 4000,
        "sampleChapters": [1, 2, 3],
        "density": "4.5",
        "factor": "0.925",
        "generationBand": {"low": 3100, "high": 4300},
        "acceptanceBand": {"low": 2300, "high": 10000},
    }
    json.dumps(result.to_dict())


def test_equal_decimals_give_equal_dicts_and_hashes() -> None:
    # factor 1.00 computed vs a literal 1: the dict spelling (and so the hash) must agree
    a = _target(factor=Decimal("1.00"), density=Decimal("6.0"))
    b = _target(factor=Decimal("1"), density=Decimal("6"))
    assert a.to_dict()["factor"] == "1"
    assert a.to_dict()["density"] == "6"
    assert hash_value(a.to_dict()) == hash_value(b.to_dict())


# --- properties -------------------------------------------------------------------------

chapter_st = st.builds(
    ChapterLength,
    number=st.integers(min_value=1, max_value=60),
    han_count=st.integers(min_value=0, max_value=25000),
    canonical=st.booleans(),
    empty=st.booleans(),
)
chapters_st = st.lists(chapter_st, max_size=40, unique_by=lambda c: c.number)
density_st = st.builds(
    Density,
    st.integers(min_value=0, max_value=30),
    st.integers(min_value=0, max_value=30),
    st.integers(min_value=0, max_value=30),
)
defaults_st = st.integers(min_value=1, max_value=30000)
explicit_st = st.none() | st.integers(min_value=1, max_value=30000)


@given(chapters_st, st.integers(1, 70), defaults_st, density_st, explicit_st)
def test_target_is_clamped_and_bands_nest(
    chs: list[ChapterLength],
    target_chapter: int,
    default: int,
    density: Density,
    explicit: int | None,
) -> None:
    result = compute_length_target(
        chs, target_chapter, work_default=default, density=density, explicit_target_chars=explicit
    )
    assert 2000 <= result.target <= 10000
    if explicit is None:
        assert result.target % 100 == 0
    else:
        assert result.target == min(10000, max(2000, explicit))
    assert result.generation_band.admits(result.target)
    assert result.acceptance_band.contains(result.generation_band)
    assert 2000 <= result.generation_band.low <= result.generation_band.high <= 10000
    assert all(n < target_chapter for n in result.sample_chapters)
    assert len(result.sample_chapters) <= 20


@given(
    chapters_st,
    st.integers(1, 70),
    st.lists(chapter_st, max_size=10),
    defaults_st,
    density_st,
    explicit_st,
)
def test_chapters_from_the_target_on_never_matter(
    chs: list[ChapterLength],
    target_chapter: int,
    extra: list[ChapterLength],
    default: int,
    density: Density,
    explicit: int | None,
) -> None:
    def compute(items: list[ChapterLength]) -> LengthTarget:
        return compute_length_target(
            items,
            target_chapter,
            work_default=default,
            density=density,
            explicit_target_chars=explicit,
        )

    before = [c for c in chs if c.number < target_chapter]
    later = [c for c in chs if c.number >= target_chapter]
    # move the extra chapters to the target chapter or later
    moved = [
        ChapterLength(target_chapter + c.number - 1, c.han_count, c.canonical, c.empty)
        for c in extra
    ]
    expected = compute(before)
    assert compute(chs) == expected  # removing later chapters changes nothing
    assert compute(chs + moved) == expected  # adding later chapters changes nothing
    assert compute(later + moved + before) == expected


@given(chapters_st, st.integers(1, 70), defaults_st, density_st, st.randoms(use_true_random=False))
def test_input_order_does_not_matter(
    chs: list[ChapterLength], target_chapter: int, default: int, density: Density, rnd: object
) -> None:
    shuffled = list(chs)
    rnd.shuffle(shuffled)  # type: ignore[attr-defined]
    a = compute_length_target(chs, target_chapter, work_default=default, density=density)
    b = compute_length_target(shuffled, target_chapter, work_default=default, density=density)
    assert a == b
    assert a.to_dict() == b.to_dict()


@settings(max_examples=50)
@given(
    st.lists(st.integers(min_value=500, max_value=20000), min_size=20, max_size=30),
    st.lists(st.integers(min_value=0, max_value=20000), min_size=1, max_size=10),
    density_st,
)
def test_chapters_older_than_the_latest_20_valid_never_matter(
    recent: list[int], old: list[int], density: Density
) -> None:
    # old chapters get the lowest numbers; the latest 20 valid chapters are all in `recent`
    old_chapters = chapters(*old)
    recent_chapters = chapters(*recent, start=len(old) + 1)
    target_chapter = len(old) + len(recent) + 1
    with_old = compute_length_target(
        old_chapters + recent_chapters, target_chapter, work_default=3000, density=density
    )
    without_old = compute_length_target(
        recent_chapters, target_chapter, work_default=3000, density=density
    )
    assert with_old == without_old
    assert with_old.sample_chapters == tuple(range(target_chapter - 20, target_chapter))
