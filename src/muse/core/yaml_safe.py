"""YAML for files the author gives Muse: the safe loader, with alias expansion bounded.

PyYAML's ``SafeLoader`` never runs code, but an anchor may be referenced any number of times and
an alias may point at a node that itself holds aliases: 432 bytes of nested aliases describe a
document of billions of nodes, and any walk over it (validation, normalisation, hashing) expands
them. :class:`BoundedLoader` composes the document as usual and then measures its size as if
every alias were expanded (memoised, linear in the composed graph); a document over
``MAX_EXPANDED_NODES`` nodes, or with more than ``MAX_ALIASES`` aliases, is refused with a
``ComposerError`` pointing at the line, before anything walks it.
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.composer import ComposerError
from yaml.events import AliasEvent
from yaml.nodes import MappingNode, Node, SequenceNode

MAX_ALIASES = 1_000
MAX_EXPANDED_NODES = 1_000_000


class BoundedLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that refuses alias bombs (see the module docstring)."""

    def __init__(self, stream: Any) -> None:
        super().__init__(stream)
        self._aliases = 0

    def compose_node(self, parent: Node | None, index: Any) -> Node | None:
        if self.check_event(AliasEvent):
            self._aliases += 1
            if self._aliases > MAX_ALIASES:
                event = self.peek_event()
                raise ComposerError(
                    None, None, f"别名（*引用）超过 {MAX_ALIASES} 个，拒绝展开。", event.start_mark
                )
        return super().compose_node(parent, index)

    def compose_document(self) -> Node | None:
        node = super().compose_document()
        if node is not None:
            refuse_expansion(node)
        return node


def refuse_expansion(root: Node, limit: int = MAX_EXPANDED_NODES) -> None:
    sizes: dict[int, int] = {}
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        if id(node) in sizes:
            continue
        children = _children(node)
        if not done:
            stack.append((node, True))
            stack.extend((c, False) for c in children if id(c) not in sizes)
            continue
        size = 1 + sum(sizes.get(id(c), 1) for c in children)
        sizes[id(node)] = size
        if size > limit:
            raise ComposerError(
                None,
                None,
                f"展开别名后超过 {limit:,} 个节点（疑似 YAML 炸弹），拒绝读取。",
                node.start_mark,
            )


def _children(node: Node) -> list[Node]:
    if isinstance(node, SequenceNode):
        return list(node.value)
    if isinstance(node, MappingNode):
        return [n for pair in node.value for n in pair]
    return []


def safe_load(text: str) -> Any:
    """``yaml.safe_load`` with alias expansion bounded."""
    return yaml.load(text, Loader=BoundedLoader)  # noqa: S506 - BoundedLoader is a SafeLoader


def compose(text: str) -> Node | None:
    return yaml.compose(text, Loader=BoundedLoader)
