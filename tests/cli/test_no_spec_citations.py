"""Text an author reads never cites the spec ("spec 000 §5.3"): those stay in code comments."""

import ast
import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "muse"
CITATION = re.compile(r"spec \d{3}|§")
CJK = re.compile(r"[\u4e00-\u9fff]")


def _docstrings(tree: ast.AST) -> set[int]:
    """Docstrings outside the CLI are engineering documentation, never shown to an author."""
    ids = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        first = body[0] if isinstance(body, list) and body else None
        value = first.value if isinstance(first, ast.Expr) else None
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            ids.add(id(value))
    return ids


def test_no_chinese_string_in_src_cites_the_spec():
    found = []
    for path in SRC.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        # a CLI command's docstring is its help text: an author reads it
        skip = set() if path.parts[-2] == "cli" else _docstrings(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                text = node.value
                if id(node) in skip or not CJK.search(text) or not CITATION.search(text):
                    continue
                if path.parts[-2] == "cli" and node.lineno == 1:
                    continue  # a CLI module's own docstring is not shown
                found.append(f"{path.relative_to(SRC)}:{node.lineno}: {text[:60]}")
    assert found == []


def test_no_prompt_template_or_yaml_message_cites_the_spec():
    found = [
        f"{p.relative_to(SRC)}:{n}"
        for p in [*SRC.rglob("*.j2"), *SRC.rglob("*.md")]
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if CITATION.search(line)
    ]
    assert found == []
