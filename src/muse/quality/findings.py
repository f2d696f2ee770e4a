"""A finding of a quality check: what, how severe, where (spec 000 §9).

Only locatable, verifiable problems are ``high`` (they block); ``medium`` and ``low`` are advice.
A location is a code point range ``[start, end)`` of the candidate body and its 1-based line.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class Finding:
    kind: str
    severity: str  # high (blocks) | medium | low (advice)
    message: str
    start: int | None = None
    end: int | None = None
    quote: str | None = None
    line: int | None = None  # 1-based line of ``start`` in the candidate body

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
