"""Base class of every contract that crosses a boundary (ARCHITECTURE.md principle 5).

Strict (unknown fields fail), immutable, camelCase on the wire as in the spec's field lists
(``targetChapter``, ``candidateSha256``), snake_case in Python.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class Contract(BaseModel):
    model_config = ConfigDict(
        extra="forbid", frozen=True, alias_generator=to_camel, populate_by_name=True
    )

    def wire(self) -> dict[str, Any]:
        """The JSON-ready form with the spec's camelCase names."""
        return self.model_dump(mode="json", by_alias=True)
