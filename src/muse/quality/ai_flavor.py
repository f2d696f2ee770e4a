"""AI 味 diagnosed (spec 001 §2.2 diagnose-ai-flavor, §2.3 output block 门与诊断报告).

The confirmed style profile's AI 味 blacklist was projected into the writer's context as item 5
(``context.prevention``); here the candidate is checked against the same list. Each hit is an
advisory finding (``ai_flavor``, severity ``low``) with its located quote, and the hits are counted
per phrase for the report shown with the candidate. It never blocks and never edits the text:
revising is the author's decision (revise-ai-flavor is a content change, spec 001 §2.1).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from muse.context import WriterContext
from muse.quality.findings import Finding


def ai_flavor_findings(context: WriterContext, body: str) -> list[Finding]:
    """One ``ai_flavor`` finding per occurrence of a blacklisted phrase, in text order."""
    if context.prevention is None:
        return []
    findings = []
    for phrase in context.prevention.ai_blacklist:
        at = body.find(phrase)
        while at >= 0:
            line = body.count("\n", 0, at) + 1
            message = f"AI 味：第 {line} 行用了黑名单中的「{phrase}」（只作提示，不改正文）。"
            findings.append(
                Finding("ai_flavor", "low", message, at, at + len(phrase), phrase, line)
            )
            at = body.find(phrase, at + len(phrase))
    return sorted(findings, key=lambda f: (f.start or 0, f.quote or ""))


def ai_flavor_summary(findings: list[Finding] | tuple[Finding, ...]) -> dict[str, Any]:
    """The per-chapter count of the report: total hits and hits per phrase."""
    counts = Counter(f.quote for f in findings if f.kind == "ai_flavor")
    return {"hits": sum(counts.values()), "phrases": dict(sorted(counts.items()))}
