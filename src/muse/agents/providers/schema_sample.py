"""A deterministic, schema-valid sample instance of a JSON schema (the offline fallback).

The offline provider must answer every role and task with output that validates, even for an
output model nobody wrote a specific generator for. This walks the pydantic JSON schema
(``$ref``/``$defs``, ``anyOf``, enums, bounds, ``multipleOf``, array sizes) and builds the
smallest sensible instance, with choices drawn from a ``random.Random`` seeded by the input hash:
same input, same output, on every machine (string seeds do not depend on PYTHONHASHSEED).
"""

from __future__ import annotations

import math
import random
from typing import Any

_FORMATS = {
    "date-time": "2000-01-01T00:00:00Z",
    "date": "2000-01-01",
    "time": "00:00:00",
    "email": "offline@example.com",
    "uri": "https://example.com/offline",
    "uuid": "00000000-0000-4000-8000-000000000000",
}
_MAX_DEPTH = 8


class _Sampler:
    def __init__(self, root: dict[str, Any], seed: str) -> None:
        self.root = root
        self.rng = random.Random(seed)

    def resolve(self, node: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in node:
            name = node["$ref"].rsplit("/", 1)[-1]
            node = {
                **self.root.get("$defs", {})[name],
                **{k: v for k, v in node.items() if k != "$ref"},
            }
        return node

    def value(self, node: dict[str, Any], name: str, depth: int = 0) -> Any:
        node = self.resolve(node)
        if "const" in node:
            return node["const"]
        if "enum" in node:
            return self.rng.choice(node["enum"])
        for key in ("anyOf", "oneOf"):
            if key in node:
                options = [o for o in node[key] if self.resolve(o).get("type") != "null"]
                return self.value((options or node[key])[0], name, depth)
        if "allOf" in node:
            return self.value(node["allOf"][0], name, depth)
        kind = node.get("type", "string")
        if isinstance(kind, list):
            kind = next((k for k in kind if k != "null"), "null")
        return getattr(self, f"_{kind}", self._string)(node, name, depth)

    def _object(self, node: dict[str, Any], name: str, depth: int) -> dict[str, Any]:
        props = node.get("properties", {})
        return {key: self.value(props[key], key, depth + 1) for key in node.get("required", [])}

    def _array(self, node: dict[str, Any], name: str, depth: int) -> list[Any]:
        if "prefixItems" in node:
            return [self.value(item, name, depth + 1) for item in node["prefixItems"]]
        low = node.get("minItems", 0)
        count = low if depth >= _MAX_DEPTH else max(low, 1)
        if "maxItems" in node:
            count = min(count, node["maxItems"])
        items = node.get("items", {})
        return [self.value(items, name, depth + 1) for _ in range(count)]

    def _string(self, node: dict[str, Any], name: str, depth: int) -> str:
        if node.get("format") in _FORMATS:
            return _FORMATS[node["format"]]
        text = f"离线示例·{name}·{self.rng.randrange(16**6):06x}"
        low, high = node.get("minLength", 0), node.get("maxLength")
        if len(text) < low:
            text += "文" * (low - len(text))
        return text[:high] if high is not None else text

    def _bounds(self, node: dict[str, Any], default_high: float) -> tuple[float, float]:
        low = node.get("minimum", node.get("exclusiveMinimum", 0))
        high = node.get("maximum", node.get("exclusiveMaximum", max(low, 0) + default_high))
        return low, high

    def _integer(self, node: dict[str, Any], name: str, depth: int) -> int:
        low, high = self._bounds(node, 100)
        start = math.floor(low) + (1 if "exclusiveMinimum" in node or low != math.floor(low) else 0)
        stop = math.ceil(high) - (1 if "exclusiveMaximum" in node or high != math.ceil(high) else 0)
        step = int(node.get("multipleOf", 1))
        first = math.ceil(start / step) * step
        choices = list(range(first, max(stop, first) + 1, step))
        return self.rng.choice(choices)

    def _number(self, node: dict[str, Any], name: str, depth: int) -> float:
        low, high = self._bounds(node, 100)
        step = node.get("multipleOf")
        if step:
            first = math.ceil(low / step) * step
            if "exclusiveMinimum" in node and first == low:
                first += step
            count = max(int((high - first) // step), 0)
            value = first + step * self.rng.randint(0, count)
            if "exclusiveMaximum" in node and value >= high:
                value -= step
            return float(value)
        value = round(self.rng.uniform(low, high), 2)
        return float(min(max(value, low), high))

    def _boolean(self, node: dict[str, Any], name: str, depth: int) -> bool:
        return self.rng.random() < 0.5

    def _null(self, node: dict[str, Any], name: str, depth: int) -> None:
        return None


def sample_instance(schema: dict[str, Any], seed: str) -> Any:
    """A deterministic instance of ``schema`` (pydantic JSON schema) for ``seed``."""
    return _Sampler(schema, seed).value(schema, schema.get("title", "value"))
