"""The detector's report: what ``detector/check`` returns (spec 000 §9, spec 003 detector).

Only locatable, verifiable problems block, so every issue carries a verbatim quote of the
candidate and the evidence it rests on; missing material is an evidence gap, never a pass.
Muse believes none of it before ``anti_forgery`` has verified it, and the verdict the run acts on
is Muse's own (``semantic``). Field names are the wire names (camelCase) and every field is
required, so the schema is also valid for strict ``json_schema`` structured output.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from muse.core.contract import UnaliasedContract

IssueCategory = Literal[
    "outline_hard_constraint",
    "fact_conflict",
    "evidence_missing",
    "timeline_location",
    "knowledge_scope",
    "ability_cost",
    "item_boundary",
    "future_leak",
    "output_contract",
    "style_advice",
]


class DetectorIssue(UnaliasedContract):
    category: IssueCategory
    severity: Literal["blocking", "advisory"]
    quote: str = Field(description="候选正文中逐字、连续的片段")
    explanation: str
    evidence: list[str] = Field(description="支撑判断的材料：依赖清单中的来源")


class EvidenceGap(UnaliasedContract):
    subject: str
    needed: str


class DetectorReport(UnaliasedContract):
    verdict: Literal["passed", "rejected", "needs_evidence"]
    issues: list[DetectorIssue]
    evidenceGaps: list[EvidenceGap]
    summary: str
