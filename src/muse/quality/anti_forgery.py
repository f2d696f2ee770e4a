"""Anti-forgery: what Muse verifies in a detector report before believing any of it.

Spec 001 §5: the detector's rules are prompts, but the system keeps the report's anti-forgery
checks — quotes must really occur in the candidate, the report is bound to the candidate's hash,
the report's structure is valid. Spec 003 (detector): every piece of evidence must point back to
the run's dependency list. Concretely:

* every non-empty quote occurs verbatim (after NFC/LF normalisation, surrounding whitespace
  ignored) in the candidate body; its code point range ``[start, end)`` is computed here;
* every evidence reference is a context id (a ``factEvidence`` or ``proseEvidence`` id, or the
  id of a fine-outline item the context was built from) or names a successful read of the run's
  dependency list (``agents.ledger.dependency_list``) as ``<tool>`` or ``<tool>:<argument>``,
  e.g. ``read_chapter:7``, ``get_card:林远``, ``search_prose:玉佩``, ``get_outline``;
* the body the report is about hashes to the candidate's ``candidateSha256``.

One failed check rejects the whole report (a model that invents one quote may invent others);
the problems say exactly what failed. The binding stored with a report is computed by Muse,
never taken from the model, and :func:`verify_binding` re-checks it at accept time.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from muse.agents import ToolRead
from muse.context import WriterContext
from muse.core.canonical import sha256_hex
from muse.core.text import normalize_text
from muse.planning import FineOutline
from muse.quality.contracts import DetectorIssue, DetectorReport

# The argument that names what a tool read, per tool (tools without one are cited by name).
_TOOL_ARGUMENT = {"read_chapter": "number", "search_prose": "query", "get_card": "name"}
EVIDENCE_REF_FORMAT = (
    "证据写法：factEvidence / proseEvidence 的 id（如 fe-outline-H1、pe-baseline-8）、细纲条目 id"
    "（如 H1），或本次运行依赖清单中的一次读取，写成「工具名:参数」（如 read_chapter:7、"
    "get_card:林远、search_prose:玉佩）或只写工具名（get_outline、get_style、get_patterns）。"
)


@dataclass(frozen=True)
class ForgeryProblem:
    code: str  # quote_not_in_candidate | evidence_not_in_dependencies | candidate_hash_mismatch
    message: str  # Chinese, for the author and the dashboard
    issue_index: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "issueIndex": self.issue_index}


@dataclass(frozen=True)
class LocatedIssue:
    index: int
    issue: DetectorIssue
    quote: str  # normalised; "" when the model gave none
    start: int | None
    end: int | None
    evidence: tuple[str, ...]

    @property
    def located(self) -> bool:
        return self.start is not None


@dataclass(frozen=True)
class Verification:
    issues: tuple[LocatedIssue, ...]
    problems: tuple[ForgeryProblem, ...]

    @property
    def ok(self) -> bool:
        return not self.problems


def normalize_quote(quote: str) -> str:
    return normalize_text(quote).strip()


def locate_quote(body: str, quote: str) -> tuple[int, int] | None:
    """Code point range of the first verbatim occurrence of ``quote`` in ``body`` (both NFC/LF)."""
    needle = normalize_quote(quote)
    if not needle:
        return None
    at = normalize_text(body).find(needle)
    return None if at < 0 else (at, at + len(needle))


def context_evidence_ids(context: WriterContext) -> frozenset[str]:
    """Ids the frozen context carries: fact and prose evidence, and fine-outline items."""
    ids = {f.id for f in context.fact_evidence} | {p.id for p in context.prose_evidence}
    outline = FineOutline.model_validate(context.fine_outline)
    hc = outline.hard_constraints
    ids |= set(hc.constraint_ids()) | {e.id for e in hc.required_entities}
    ids |= {s.id for s in hc.required_scenes} | {b.id for b in outline.adjustable_beats}
    ids |= {f.id for f in outline.new_canonical_facts}
    return frozenset(ids)


def dependency_refs(reads: Iterable[ToolRead]) -> frozenset[str]:
    """The references the run's successful reads allow: ``tool`` and ``tool:argument``."""
    refs: set[str] = set()
    for read in reads:
        if read.status != "ok":
            continue
        refs.add(read.tool)
        name = _TOOL_ARGUMENT.get(read.tool)
        if name is not None and name in read.arguments:
            refs.add(f"{read.tool}:{normalize_quote(str(read.arguments[name]))}")
    return frozenset(refs)


def _normalize_ref(ref: str) -> str:
    tool, sep, argument = normalize_quote(ref).partition(":")
    if not sep:
        tool, sep, argument = tool.partition("：")  # a full-width colon from a Chinese reply
    return f"{tool.strip()}:{argument.strip()}" if sep else tool.strip()


def verify_report(
    report: DetectorReport,
    *,
    body: str,
    candidate_sha256: str,
    context_ids: frozenset[str],
    dependency: frozenset[str],
) -> Verification:
    """Check every quote, every evidence reference and the hash binding of ``report``."""
    body = normalize_text(body)
    problems: list[ForgeryProblem] = []
    if sha256_hex(body) != candidate_sha256:
        problems.append(
            ForgeryProblem("candidate_hash_mismatch", "被检测的正文与候选的 candidateSha256 不符。")
        )
    allowed = context_ids | dependency
    issues = []
    for index, issue in enumerate(report.issues):
        quote = normalize_quote(issue.quote)
        span = locate_quote(body, quote) if quote else None
        if quote and span is None:
            problems.append(
                ForgeryProblem(
                    "quote_not_in_candidate",
                    f"第 {index + 1} 条问题的引文在候选正文中找不到（须逐字摘录）：「{quote[:60]}」",
                    index,
                )
            )
        evidence = tuple(_normalize_ref(ref) for ref in issue.evidence if ref.strip())
        for ref in evidence:
            if ref not in allowed:
                problems.append(
                    ForgeryProblem(
                        "evidence_not_in_dependencies",
                        f"第 {index + 1} 条问题引用的证据「{ref}」既不在本次上下文中，"
                        "也不在本次运行的依赖清单里。",
                        index,
                    )
                )
        start, end = span if span else (None, None)
        issues.append(LocatedIssue(index, issue, quote, start, end, evidence))
    return Verification(tuple(issues), tuple(problems))


def verify_binding(stored: Mapping[str, Any], *, body: str, version: int) -> bool:
    """Whether a stored semantic report (``SemanticReport.wire()``) is about exactly this body
    and candidate version — recomputed from the body, not read from the report alone."""
    return (
        stored.get("candidateSha256") == sha256_hex(body)
        and stored.get("candidateVersion") == version
    )
