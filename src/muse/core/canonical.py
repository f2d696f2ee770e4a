"""Canonical JSON and identity hashes.

Identity hashes are SHA-256 over RFC 8785 (JCS) canonical JSON of a value whose strings were
first normalised (NFC, LF, no BOM). Hash the canonical bytes in Python and store the hash; never
hash a value read back from the database (PostgreSQL JSONB reorders keys and drops duplicates).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

import rfc8785

from muse.core.errors import ContractViolation
from muse.core.text import normalize_text


def normalize_value(value: Any) -> Any:
    """Recursively normalise every string (keys included) of a JSON-like value."""
    if isinstance(value, str):
        return normalize_text(value)
    if isinstance(value, Mapping):
        return _normalize_mapping(value)
    if isinstance(value, (list, tuple)):
        return [normalize_value(v) for v in value]
    return value


def _normalize_mapping(value: Mapping[Any, Any]) -> dict[str, Any]:
    # Two keys that become equal after normalisation ("e\u0301" and "é", 1 and "1") would
    # silently merge, the survivor depending on insertion order, and so would the hash.
    normalized: dict[str, Any] = {}
    for key, item in value.items():
        text = normalize_text(str(key))
        if text in normalized:
            raise ContractViolation(f"规范化后出现重复的键：{text!r}")
        normalized[text] = normalize_value(item)
    return normalized


def canonical_json(value: Any) -> bytes:
    """RFC 8785 canonical JSON bytes of ``value`` after string normalisation."""
    return rfc8785.dumps(normalize_value(value))


def sha256_hex(data: bytes | str) -> str:
    """Lowercase hex SHA-256; a ``str`` is normalised and encoded as UTF-8 first."""
    if isinstance(data, str):
        data = normalize_text(data).encode("utf-8")
    return hashlib.sha256(data).hexdigest()


def hash_value(value: Any) -> str:
    """SHA-256 of the canonical JSON of ``value``."""
    return hashlib.sha256(canonical_json(value)).hexdigest()
