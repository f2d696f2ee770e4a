"""Gate A and Gate B (spec 000 §10.1), as pure functions over measured facts.

The verdict order of §10.1 is implemented as an ordered table of rules: the first rule whose
condition holds decides, so every run of a gate ends in exactly one verdict and a case that meets
two conditions gets the one listed first. Each verdict names the rule that decided it.

One rule precedes the spec's table: a dry run (the offline model judged) can never yield a Gate
verdict other than ``insufficient_evidence`` (spec 000 §10; issue 16).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

MIN_GATE_A_SAMPLES = 5
MIN_BOOKS, MIN_PER_BOOK = 2, 5
SCENE_CLASS_COUNT = 5
MAX_UNSTABLE_SHARE = Fraction(1, 5)
FIDELITY_MEAN_MIN = Fraction(1, 4)
FIDELITY_POSITIVE_SHARE_MIN = Fraction(3, 5)
REGRESSION_MEAN_MIN = Fraction(-1, 4)
DROP_LIMIT = Fraction(1, 2)
MAX_DROP_SHARE = Fraction(1, 5)


@dataclass(frozen=True)
class SampleDeltas:
    """C − A of one valid sample, per dimension that the gates read."""

    fidelity: Fraction  # 设定与实体保真
    style: Fraction  # 文风一致
    tension: Fraction  # 叙事完整与张力


@dataclass(frozen=True)
class GateFacts:
    """What the gates read, measured over a whole evaluation set."""

    dry_run: bool = False
    valid_samples: int = 0  # authorization/freeze passed and judges stable (or adjudicated)
    schema_invalid: int = 0  # contract failures: writer or judge output outside its schema
    future_leaks: int = 0  # future-leak findings in any arm
    system_failures: int = 0  # samples ended in failed_* other than contract failures
    c_high_severity: int = 0  # C-arm detector findings of high severity, at the end
    c_hard_coverage: Fraction = Fraction(1)  # C-arm hard-constraint coverage, 0..1
    books_valid: dict[str, int] = field(default_factory=dict)  # work → valid samples
    scene_classes_valid: frozenset[str] = frozenset()
    samples_total: int = 0  # preregistered samples
    unstable_samples: int = 0  # invalid_unstable
    deltas: tuple[SampleDeltas, ...] = ()  # one per valid sample


@dataclass(frozen=True)
class GateVerdict:
    verdict: str
    rule: str  # machine name of the deciding rule
    reason: str  # Chinese, for the author


Rule = tuple[str, str, Callable[[GateFacts], bool], Callable[[GateFacts], str]]


def _share(count: int, total: int) -> Fraction:
    return Fraction(count, total) if total else Fraction(0)


def _mean(values: Sequence[Fraction]) -> Fraction:
    return sum(values, Fraction(0)) / len(values) if values else Fraction(0)


def fmt(value: Fraction) -> str:
    return f"{float(value):.2f}"


GATE_A_RULES: tuple[Rule, ...] = (
    (
        "dry_run",
        "insufficient_evidence",
        lambda f: f.dry_run,
        lambda f: "离线模型评审的演练（dry run）不能得出验收结论。",
    ),
    (
        "valid_samples",
        "insufficient_evidence",
        lambda f: f.valid_samples < MIN_GATE_A_SAMPLES,
        lambda f: f"有效样本 {f.valid_samples} 个，不足 {MIN_GATE_A_SAMPLES} 个。",
    ),
    (
        "schema_invalid",
        "failed",
        lambda f: f.schema_invalid > 0,
        lambda f: f"{f.schema_invalid} 处输出不符合合同（schema 非法）。",
    ),
    (
        "future_leak",
        "failed",
        lambda f: f.future_leaks > 0,
        lambda f: f"发现 {f.future_leaks} 处未来泄漏。",
    ),
    (
        "system_failure",
        "failed",
        lambda f: f.system_failures > 0,
        lambda f: f"{f.system_failures} 个样本系统失败。",
    ),
    (
        "c_high_severity",
        "failed",
        lambda f: f.c_high_severity > 0,
        lambda f: f"C 臂检测最终仍有 {f.c_high_severity} 个高严重度问题。",
    ),
    (
        "hard_coverage",
        "failed",
        lambda f: f.c_hard_coverage < 1,
        lambda f: f"细纲硬约束覆盖率 {fmt(f.c_hard_coverage * 100)}%，未达 100%。",
    ),
    (
        "gate_a_pass",
        "passed",
        lambda f: True,
        lambda f: f"{f.valid_samples} 个有效样本全部合法，无泄漏、无系统失败、无高严重度残留。",
    ),
)


def _decide(rules: Sequence[Rule], facts: GateFacts) -> GateVerdict:
    for name, verdict, holds, reason in rules:
        if holds(facts):
            return GateVerdict(verdict, name, reason(facts))
    raise AssertionError("the last rule always holds")  # pragma: no cover


def gate_a(facts: GateFacts) -> GateVerdict:
    """Gate A 链路可运行 (spec 000 §10.1, decision order item 1)."""
    return _decide(GATE_A_RULES, facts)


def fidelity_mean(f: GateFacts) -> Fraction:
    return _mean([d.fidelity for d in f.deltas])


def fidelity_positive_share(f: GateFacts) -> Fraction:
    return _share(sum(1 for d in f.deltas if d.fidelity > 0), len(f.deltas))


def style_mean(f: GateFacts) -> Fraction:
    return _mean([d.style for d in f.deltas])


def tension_mean(f: GateFacts) -> Fraction:
    return _mean([d.tension for d in f.deltas])


def drop_share(f: GateFacts, dim: str) -> Fraction:
    return _share(sum(1 for d in f.deltas if getattr(d, dim) < -DROP_LIMIT), len(f.deltas))


def _thin_book(f: GateFacts) -> bool:
    return any(n < MIN_PER_BOOK for n in f.books_valid.values())


def _gate_b_rules(a: GateVerdict) -> tuple[Rule, ...]:
    return (
        (
            "dry_run",
            "insufficient_evidence",
            lambda f: f.dry_run,
            lambda f: "离线模型评审的演练（dry run）不能得出验收结论。",
        ),
        (
            "gate_a_insufficient",
            "insufficient_evidence",
            lambda f: a.verdict == "insufficient_evidence",
            lambda f: f"Gate A 证据不足：{a.reason}",
        ),
        (
            "gate_a_failed",
            "failed",
            lambda f: a.verdict == "failed",
            lambda f: f"Gate A 未通过：{a.reason}",
        ),
        (
            "coverage_books",
            "insufficient_evidence",
            lambda f: len(f.books_valid) < MIN_BOOKS,
            lambda f: f"有效样本只覆盖 {len(f.books_valid)} 本书，至少需要 {MIN_BOOKS} 本。",
        ),
        (
            "coverage_per_book",
            "insufficient_evidence",
            _thin_book,
            lambda f: (
                "有的书有效样本不足 5 章："
                + "、".join(
                    f"{w} {n} 章" for w, n in sorted(f.books_valid.items()) if n < MIN_PER_BOOK
                )
            ),
        ),
        # ≥ 10 chapters in total follows from ≥ 2 books × ≥ 5 chapters: no rule of its own.
        (
            "coverage_scenes",
            "insufficient_evidence",
            lambda f: len(f.scene_classes_valid) < SCENE_CLASS_COUNT,
            lambda f: f"有效样本只覆盖 {len(f.scene_classes_valid)} 类场景，需要五类全覆盖。",
        ),
        (
            "unstable_share",
            "insufficient_evidence",
            lambda f: _share(f.unstable_samples, f.samples_total) > MAX_UNSTABLE_SHARE,
            lambda f: (
                f"评委不稳定样本占 "
                f"{fmt(_share(f.unstable_samples, f.samples_total) * 100)}%，超过 20%。"
            ),
        ),
        (
            "hard_error",
            "failed",
            lambda f: f.c_high_severity > 0 or f.c_hard_coverage < 1,
            lambda f: "C 臂存在硬错误（高严重度残留或硬约束覆盖率不足 100%）。",
        ),
        (
            "style_regression",
            "failed",
            lambda f: style_mean(f) < REGRESSION_MEAN_MIN,
            lambda f: f"C−A 文风一致平均增量 {fmt(style_mean(f))}，低于 −0.25（质量退化）。",
        ),
        (
            "tension_regression",
            "failed",
            lambda f: tension_mean(f) < REGRESSION_MEAN_MIN,
            lambda f: f"C−A 叙事张力平均增量 {fmt(tension_mean(f))}，低于 −0.25（质量退化）。",
        ),
        (
            "style_drop_share",
            "failed",
            lambda f: drop_share(f, "style") > MAX_DROP_SHARE,
            lambda f: (
                f"文风一致下降超过 0.5 的样本占 {fmt(drop_share(f, 'style') * 100)}%，"
                "超过 20%（质量退化）。"
            ),
        ),
        (
            "tension_drop_share",
            "failed",
            lambda f: drop_share(f, "tension") > MAX_DROP_SHARE,
            lambda f: (
                f"叙事张力下降超过 0.5 的样本占 {fmt(drop_share(f, 'tension') * 100)}%，"
                "超过 20%（质量退化）。"
            ),
        ),
        (
            "fidelity_gain",
            "passed",
            lambda f: (
                fidelity_mean(f) >= FIDELITY_MEAN_MIN
                and fidelity_positive_share(f) >= FIDELITY_POSITIVE_SHARE_MIN
            ),
            lambda f: (
                f"C−A 设定与实体保真平均增量 {fmt(fidelity_mean(f))}（≥ 0.25），"
                f"正增益样本 {fmt(fidelity_positive_share(f) * 100)}%（≥ 60%），且无退化。"
            ),
        ),
        (
            "no_fidelity_gain",
            "no_gain",
            lambda f: True,
            lambda f: (
                f"无明显保真增益：平均增量 {fmt(fidelity_mean(f))}，"
                f"正增益样本 {fmt(fidelity_positive_share(f) * 100)}%；未发现退化。"
            ),
        ),
    )


def gate_b(facts: GateFacts, a: GateVerdict | None = None) -> GateVerdict:
    """Gate B 正文层正式通过 (spec 000 §10.1, decision order item 2)."""
    return _decide(_gate_b_rules(a or gate_a(facts)), facts)
