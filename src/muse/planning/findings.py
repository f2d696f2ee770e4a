"""What a gate reports: findings (error blocks, warning is reported), and the error that blocks.

Every check returns findings instead of raising, so that ``muse plan check`` can show all of
them at once; the callers that must stop (confirmation, loading for generation) raise
:class:`GateBlocked` with the blocking ones, each naming its stage, field and reason.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, replace
from typing import Any, Literal, TypedDict, Unpack

from muse.core.errors import InvalidInput

Severity = Literal["error", "warning"]


class Where(TypedDict, total=False):
    """Where a finding points (the keyword arguments of :func:`error` and :func:`warning`)."""

    stage: int | None
    field: str | None
    section_id: str | None


@dataclass(frozen=True)
class Finding:
    code: str  # stable identifier, e.g. "mainline_too_long"
    severity: Severity
    message: str  # Chinese, for the author
    stage: int | None = None
    field: str | None = None  # dotted path inside the payload
    section_id: str | None = None

    def wire(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}

    def line(self) -> str:
        where = f"阶段 {self.stage}" if self.stage is not None else ""
        if self.field:
            where += f"「{self.field}」"
        mark = "阻断" if self.severity == "error" else "提示"
        return f"[{mark}] {where + '：' if where else ''}{self.message}"


def error(code: str, message: str, **where: Unpack[Where]) -> Finding:
    return Finding(code, "error", message, **where)


def warning(code: str, message: str, **where: Unpack[Where]) -> Finding:
    return Finding(code, "warning", message, **where)


def errors(findings: Iterable[Finding]) -> list[Finding]:
    return [f for f in findings if f.severity == "error"]


def as_warnings(
    findings: Iterable[Finding], why: str, keep: frozenset[str] = frozenset()
) -> list[Finding]:
    """Errors turned into warnings, except those whose code is in ``keep``."""
    return [
        replace(f, severity="warning", message=f"{f.message}（{why}）")
        if f.severity == "error" and f.code not in keep
        else f
        for f in findings
    ]


def located(findings: Iterable[Finding], *, stage: int, section_id: str | None) -> list[Finding]:
    return [
        replace(
            f,
            stage=stage if f.stage is None else f.stage,
            section_id=section_id if f.section_id is None else f.section_id,
        )
        for f in findings
    ]


class GateBlocked(InvalidInput):
    """A planning gate refused: confirmation, a stage order, or feeding generation."""

    def __init__(self, headline: str, findings: Iterable[Finding], *, hint: str | None = None):
        self.findings = list(findings)
        lines = "\n".join(f"  · {f.line()}" for f in self.findings)
        super().__init__(f"{headline}\n{lines}" if lines else headline, hint=hint)
