"""What the read-only tools read through: a view of one work frozen at ``as_of``.

``AsOfReader`` is the interface the tools are built against (ARCHITECTURE.md principle 4: every
read that can reach a model goes through one as-of view). The production implementation is
``muse.context.explore.tool_reader`` over the real ``AsOfView``; the tests of the tools alone use a
minimal reader over canonical chapters (``tests/agents/minimal_reader.py``).

A read of a chapter after ``as_of`` raises ``AsOfViolation``; it is never silently empty.
"""

from __future__ import annotations

from typing import Any, Protocol


class AsOfReader(Protocol):
    """Read-only access to one work as of a freeze point. Every result is JSON-able."""

    as_of: int

    def read_chapter(self, number: int) -> dict[str, Any] | None: ...

    def search_prose(self, query: str, limit: int = 10) -> list[dict[str, Any]]: ...

    def get_card(self, name: str) -> dict[str, Any] | None: ...

    def get_outline(self) -> dict[str, Any] | None: ...

    def get_style(self) -> dict[str, Any] | None: ...

    def get_patterns(self) -> list[dict[str, Any]]: ...
