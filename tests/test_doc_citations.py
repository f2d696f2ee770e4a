"""Every architecture citation in the code leads somewhere: docs/architecture.md has the section.

Docstrings cite "ARCHITECTURE.md §N" and "ARCHITECTURE.md principle N"; both mean
docs/architecture.md (its §N, or principle N of its §1). Hints and docstrings also name other
pages under docs/; those must exist too.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"
CITATION = re.compile(
    r"ARCHITECTURE\.md\s+(?:§(?P<section>\d+[a-z]?)|principle\s+(?P<principle>\d+))"
)
DOC_PAGE = re.compile(r"\bdocs/(?P<page>[a-z_]+\.md)")


def citations(text: str) -> tuple[set[str], set[str]]:
    found = list(CITATION.finditer(text))
    sections = {m["section"] for m in found if m["section"]}
    principles = {m["principle"] for m in found if m["principle"]}
    return sections, principles


def headings(doc: str) -> tuple[set[str], set[str]]:
    sections = set(re.findall(r"^## (\d+[a-z]?)\. ", doc, flags=re.M))
    first = doc.split("\n## 2. ", 1)[0]
    principles = set(re.findall(r"^(\d+)\. \*\*", first, flags=re.M))
    return sections, principles


def _source_text() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted((ROOT / "src").rglob("*.py")))


def test_every_architecture_citation_has_its_section() -> None:
    sections, principles = citations(_source_text())
    have_sections, have_principles = headings(DOC.read_text(encoding="utf-8"))
    assert sections and principles  # the scan reads real citations
    assert sections <= have_sections, sorted(sections - have_sections)
    assert principles <= have_principles, sorted(principles - have_principles)


def test_every_docs_page_named_in_the_code_exists() -> None:
    pages = {m["page"] for m in DOC_PAGE.finditer(_source_text())}
    assert all((ROOT / "docs" / page).exists() for page in pages), sorted(pages)


@pytest.mark.parametrize(
    ("text", "missing"),
    [
        ("see ARCHITECTURE.md §5 and ARCHITECTURE.md\n    principle 4", set()),
        ("see ARCHITECTURE.md §42", {"42"}),
        ("see ARCHITECTURE.md principle 99", {"99"}),
    ],
)
def test_the_check_notices_a_citation_without_a_section(text, missing) -> None:
    sections, principles = citations(text)
    have_sections, have_principles = headings(DOC.read_text(encoding="utf-8"))
    assert (sections - have_sections) | (principles - have_principles) == missing
