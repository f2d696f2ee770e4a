"""Anti-forgery checks on their own: locating quotes, evidence references, hash binding."""

from __future__ import annotations

import unicodedata
from datetime import UTC, datetime

from muse.agents.ledger import ToolRead
from muse.core.canonical import sha256_hex
from muse.quality.anti_forgery import (
    dependency_refs,
    locate_quote,
    verify_binding,
    verify_report,
)
from muse.quality.contracts import DetectorReport

BODY = "林远推开门，café 里空无一人。\n\n苏晴站在窗边，没有回头。"


def _read(tool: str, arguments: dict, status: str = "ok") -> ToolRead:
    return ToolRead(1, "run_x", None, tool, arguments, status, None, None, datetime.now(UTC))


def _report(*issues: dict) -> DetectorReport:
    return DetectorReport.model_validate(
        {"verdict": "rejected", "issues": list(issues), "evidenceGaps": [], "summary": ""}
    )


def _issue(quote: str, evidence: list[str]) -> dict:
    return {
        "category": "fact_conflict",
        "severity": "blocking",
        "quote": quote,
        "explanation": "",
        "evidence": evidence,
    }


def test_quotes_are_located_by_code_point_after_nfc():
    assert locate_quote(BODY, "苏晴站在窗边") == (BODY.index("苏晴"), BODY.index("苏晴") + 6)
    decomposed = unicodedata.normalize("NFD", "café 里")
    assert decomposed != "café 里"
    start, end = locate_quote(BODY, decomposed)
    assert BODY[start:end] == "café 里"
    assert locate_quote(BODY, "  没有回头。\n") == (len(BODY) - 5, len(BODY))  # ends trimmed
    assert locate_quote(BODY, "林远推开门，苏晴") is None  # not contiguous
    assert locate_quote(BODY, "") is None


def test_dependency_refs_name_only_successful_reads():
    reads = [
        _read("read_chapter", {"number": 3}),
        _read("get_card", {"name": "林远"}),
        _read("search_prose", {"query": "玉佩", "limit": 5}),
        _read("read_chapter", {"number": 9}, status="refused"),
        _read("get_outline", {}),
    ]
    assert dependency_refs(reads) == {
        "read_chapter",
        "read_chapter:3",
        "get_card",
        "get_card:林远",
        "search_prose",
        "search_prose:玉佩",
        "get_outline",
    }


def test_references_are_checked_against_context_and_dependencies():
    ok = _issue("苏晴站在窗边", ["fe-1", "read_chapter：3", " get_card:林远 "])
    bad = _issue("苏晴站在窗边", ["pe-unknown", "read_chapter:9"])
    result = verify_report(
        _report(ok, bad),
        body=BODY,
        candidate_sha256=sha256_hex(BODY),
        context_ids=frozenset({"fe-1"}),
        dependency=frozenset({"read_chapter:3", "get_card:林远"}),
    )
    assert [(p.code, p.issue_index) for p in result.problems] == [
        ("evidence_not_in_dependencies", 1),
        ("evidence_not_in_dependencies", 1),
    ]
    assert result.issues[0].evidence == ("fe-1", "read_chapter:3", "get_card:林远")


def test_binding_is_recomputed_from_the_body():
    stored = {"candidateSha256": sha256_hex(BODY), "candidateVersion": 2}
    assert verify_binding(stored, body=BODY, version=2)
    assert verify_binding(stored, body=unicodedata.normalize("NFD", BODY), version=2)
    assert not verify_binding({**stored, "candidateSha256": "0" * 64}, body=BODY, version=2)
    assert not verify_binding(stored, body=BODY.replace("苏晴", "某人"), version=2)
