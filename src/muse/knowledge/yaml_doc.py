"""YAML that remembers where things were written, so that every error names file, line and field.

PyYAML's composer gives nodes with start marks; :class:`Node` wraps one so a parser can walk a
document like plain data while keeping the line of each value. :class:`Problems` collects every
error of a file (an author fixes them all in one pass) and raises them together.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import yaml
from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, SequenceNode

from muse.core.errors import InvalidInput
from muse.core.text import normalize_text
from muse.core.yaml_safe import compose as bounded_compose

_KIND_NAMES = {"map": "键值表", "seq": "列表", "scalar": "单个值"}


class Problems:
    def __init__(self, filename: str) -> None:
        self.filename = filename
        self.items: list[tuple[int, str]] = []

    def add(self, line: int, message: str) -> None:
        self.items.append((line, message))

    def raise_if_any(self) -> None:
        if not self.items:
            return
        lines = [f"{self.filename}:{line}: {message}" for line, message in sorted(self.items)]
        raise InvalidInput(
            f"{self.filename} 有 {len(lines)} 处错误：\n" + "\n".join(lines),
            hint="格式见 docs/cards.md。",
        )


class Node:
    """One YAML value with its 1-based line."""

    def __init__(self, node: yaml.Node, line: int | None = None) -> None:
        self._node = node
        self.line = line if line is not None else node.start_mark.line + 1

    @property
    def kind(self) -> str:
        if isinstance(self._node, MappingNode):
            return "map"
        if isinstance(self._node, SequenceNode):
            return "seq"
        return "scalar"

    def value(self) -> Any:
        """The plain Python value (strings NFC/LF-normalised)."""
        return _normalise(SafeConstructor().construct_document(self._node))

    def items(self) -> Iterator[tuple[str, Node]]:
        """Entries of a mapping; each value's line is its key's (where the author wrote it)."""
        for key, value in self._node.value:
            yield str(SafeConstructor().construct_object(key)), Node(value, key.start_mark.line + 1)

    def children(self) -> list[Node]:
        return [Node(n) for n in self._node.value]


def _normalise(value: Any) -> Any:
    if isinstance(value, str):
        return normalize_text(value)
    if isinstance(value, list):
        return [_normalise(v) for v in value]
    if isinstance(value, dict):
        return {k: _normalise(v) for k, v in value.items()}
    return value


def compose(text: str, problems: Problems) -> Node | None:
    try:
        root = bounded_compose(normalize_text(text))
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        problems.add(
            mark.line + 1 if mark else 1, f"不是合法的 YAML：{getattr(err, 'problem', err)}"
        )
        return None
    if root is None:
        problems.add(1, "文件是空的。")
    return Node(root) if root is not None else None


def expect(node: Node, kind: str, what: str, problems: Problems) -> bool:
    if node.kind == kind:
        return True
    problems.add(node.line, f"「{what}」应为{_KIND_NAMES[kind]}，写成了{_KIND_NAMES[node.kind]}。")
    return False


def keyed(
    node: Node,
    synonyms: Mapping[str, Sequence[str]],
    what: str,
    problems: Problems,
) -> dict[str, Node]:
    """A mapping's entries under canonical keys; unknown and repeated keys are problems."""
    lookup = {s: key for key, names in synonyms.items() for s in (key, *names)}
    out: dict[str, Node] = {}
    if not expect(node, "map", what, problems):
        return out
    for name, child in node.items():
        key = lookup.get(name)
        if key is None:
            allowed = "、".join(names[0] if names else key for key, names in synonyms.items())
            problems.add(child.line, f"{what}里有未知的键「{name}」；可用：{allowed}。")
        elif key in out:
            problems.add(child.line, f"{what}里的「{name}」重复了。")
        else:
            out[key] = child
    return out


def text_of(
    node: Node | None,
    what: str,
    problems: Problems,
    *,
    required_at: int | None = None,
) -> str | None:
    """A scalar as text; with ``required_at`` (the parent's line) a missing or empty one is a problem."""
    required = required_at is not None
    if node is None:
        if required:
            problems.add(required_at, f"缺少「{what}」。")  # type: ignore[arg-type]
        return None
    if node.kind != "scalar" or node.value() is None:
        problems.add(node.line, f"「{what}」应为一段文字。")
        return None
    text = str(node.value()).strip()
    if required and not text:
        problems.add(node.line, f"「{what}」不能为空。")
    return text or None


def int_of(node: Node | None, what: str, problems: Problems) -> int | None:
    if node is None:
        return None
    value = node.value()
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        problems.add(node.line, f"「{what}」应为正整数（绝对章号），写成了「{value}」。")
        return None
    return value
