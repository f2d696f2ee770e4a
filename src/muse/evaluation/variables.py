"""The variables an offline optimisation round may change (spec 000 §10).

A preregistered set declares, under ``variables``, which of these it lets rounds change and
their values for round 0 (the set as registered); a variable it does not declare keeps its
default and can never be changed by a round. Each variable is applied for real by the replay:

* ``maxRewrites`` — the production arm C's automatic rewrite budget (the production policy's
  default is 2, ``flow.rewrite``); A and B stay single-attempt diagnostics;
* ``cardTokens`` / ``historicalEvidenceTokens`` / ``patternTokens`` /
  ``consecutiveProseTokens`` — the retrieval budget of the frozen context
  (``context.retrieval_plan.DEFAULT_BUDGET``), the same for all three arms.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from muse.context import DEFAULT_BUDGET, TokenBudget
from muse.flow import DEFAULT_MAX_REWRITES, UPPER_LIMIT, RewritePolicy


@dataclass(frozen=True)
class Variable:
    name: str
    label: str  # Chinese, for the report
    minimum: int
    maximum: int
    default: int


VARIABLES: dict[str, Variable] = {
    v.name: v
    for v in (
        Variable("maxRewrites", "C 臂自动返修轮数上限", 0, UPPER_LIMIT, DEFAULT_MAX_REWRITES),
        Variable("cardTokens", "卡片证据预算（token）", 0, 200_000, DEFAULT_BUDGET.cards),
        Variable(
            "historicalEvidenceTokens",
            "历史原文证据预算（token）",
            0,
            200_000,
            DEFAULT_BUDGET.historical_evidence,
        ),
        Variable("patternTokens", "范式预算（token）", 0, 200_000, DEFAULT_BUDGET.patterns),
        Variable(
            "consecutiveProseTokens",
            "连续原文基线预算（token）",
            0,
            400_000,
            DEFAULT_BUDGET.consecutive_prose,
        ),
    )
}


def variable_problem(name: str, value: object) -> str | None:
    """Why ``name = value`` is not a valid declared variable (Chinese), or None."""
    known = VARIABLES.get(name)
    if known is None:
        return f"未知的优化变量「{name}」（可用：{'、'.join(VARIABLES)}）"
    if isinstance(value, bool) or not isinstance(value, int):
        return f"变量 {name} 的值必须是整数，收到 {value!r}"
    if not known.minimum <= value <= known.maximum:
        return f"变量 {name} 的值必须在 {known.minimum}–{known.maximum} 之间，收到 {value}"
    return None


@dataclass(frozen=True)
class Settings:
    """The values the replay runs with: the declared variables over the defaults."""

    values: Mapping[str, int]

    @classmethod
    def of(cls, declared: Mapping[str, int]) -> Settings:
        return cls({name: declared.get(name, v.default) for name, v in VARIABLES.items()})

    @property
    def rewrite_policy(self) -> RewritePolicy:
        return RewritePolicy(self.values["maxRewrites"])

    @property
    def budget(self) -> TokenBudget:
        return TokenBudget(
            cards=self.values["cardTokens"],
            consecutive_prose=self.values["consecutiveProseTokens"],
            historical_evidence=self.values["historicalEvidenceTokens"],
            patterns=self.values["patternTokens"],
        )
