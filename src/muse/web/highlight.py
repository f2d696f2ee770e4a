"""Cutting a text into spans so findings and claims can be highlighted where they are located.

Presentation only: the locations come from the services (``candidate_view.locate_findings``,
the claim ledger's code point ranges). Overlapping marks are allowed: each span carries every
mark that covers it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Mark:
    start: int
    end: int
    css: str  # finding-high | finding-medium | finding-low | claim
    ref: str  # the anchor of the finding or claim it belongs to
    title: str


@dataclass(frozen=True)
class Segment:
    text: str
    marks: tuple[Mark, ...]

    @property
    def css(self) -> str:
        return " ".join(sorted({m.css for m in self.marks}))

    @property
    def title(self) -> str:
        return "；".join(m.title for m in self.marks)

    @property
    def refs(self) -> str:
        return " ".join(m.ref for m in self.marks)


def segments(text: str, marks: list[Mark]) -> list[Segment]:
    valid = [m for m in marks if 0 <= m.start < m.end <= len(text)]
    cuts = sorted({0, len(text), *(m.start for m in valid), *(m.end for m in valid)})
    out = []
    for start, end in zip(cuts, cuts[1:], strict=False):
        covering = tuple(m for m in valid if m.start <= start and end <= m.end)
        out.append(Segment(text[start:end], covering))
    return out


def finding_marks(findings: list[dict[str, Any]]) -> list[Mark]:
    marks = []
    for i, f in enumerate(findings):
        loc = f.get("location")
        if loc:
            severity = f.get("severity") or "low"
            title = f"[{severity}] {f.get('kind')}：{f.get('message')}"
            marks.append(
                Mark(loc["start"], loc["end"], f"finding-{severity}", f"finding-{i}", title)
            )
    return marks


def claim_marks(claims: list[dict[str, Any]]) -> list[Mark]:
    return [
        Mark(
            c["startCodePoint"],
            c["endCodePoint"],
            "claim",
            f"claim-{i}",
            f"断言 {c['claimId']}（{c.get('coverageState')}）",
        )
        for i, c in enumerate(claims)
        if c.get("startCodePoint") is not None and c.get("endCodePoint") is not None
    ]
