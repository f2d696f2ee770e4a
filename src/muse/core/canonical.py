"""Canonical JSON and identity hashes.

Identity hashes are SHA-256 over RFC 8785 (JCS) canonical JSON of a value whose strings were
first normalised (NFC, LF, no BOM). Hash the canonical bytes in Python and store the hash; never
hash a value read back from the database (PostgreSQL JSONB reorders keys and drops duplicates).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

import rfc8785

from muse.core.errors import ContractViolation
from muse.core.text import normalize_text


def normalize_value(value: Any) -> Any:
    """Recursively normalise every string (keys included) of a JSON-like value."""
    if isinstance(value, str):
        return normalize_text(value)
    if isinstance(value, dict):
        return _normalize_mapping(value)
    if isinstance(value, (list, tuple)):
        return [normalize_value(v) for v in value]
    # The Mapping ABC check is ~10x slower than the ones above, and a context holds thousands of
    # numbers, booleans and nulls: only other values pay for it.
    if value is None or isinstance(value, (int, float)):
        return value
    if isinstance(value, Mapping):
        return _normalize_mapping(value)
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
    """RFC 8785 canonical JSON bytes of ``value`` after string normalisation.

    ``rfc8785`` is pure Python and a writer context has thousands of values, hashed several
    times per chapter. For a value of only strings, safe integers, non-integral floats between
    1e-4 and 1e16 in magnitude, booleans, nulls, lists and dicts whose keys sort the same by code
    point as by UTF-16 (no key holds a character beyond the BMP), the standard library's ``json`` with sorted keys and no spaces writes exactly the
    same bytes (same escapes: the short forms and lowercase ``\\u00xx``); anything else goes
    through ``rfc8785``. A property test compares the two.
    """
    normalized = normalize_value(value)
    plain = _plain(normalized)
    if plain is _INTEGRAL:
        normalized, plain = _integral_floats_as_ints(normalized), True
    if plain:
        try:
            text = json.dumps(normalized, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
            return text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: let rfc8785 raise its own error
            pass
    return rfc8785.dumps(normalized)


_SAFE_INT = 2**53 - 1  # RFC 8785 / I-JSON: integers beyond this are refused by rfc8785
_INTEGRAL = "integral"  # _plain's answer for a value that is plain once integral floats are ints


def _plain(value: Any) -> bool | str:
    """True when ``value`` holds only what the ``json`` shortcut writes exactly as JCS does;
    :data:`_INTEGRAL` when it also holds integral floats of at most 2**53 - 1 in magnitude (JCS
    writes ``1.0`` as ``1``, as ``json`` writes the int ``1``; a context's averages are such)."""
    integral = False
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str or item is None or kind is bool:
            continue
        if kind is int:
            if -_SAFE_INT <= item <= _SAFE_INT:
                continue
            return False
        if kind is float:
            # repr and ECMAScript's Number#toString agree on the shortest digits; they format
            # alike in fixed notation, which both use for a non-integral 1e-4 <= |x| < 1e16
            # (ECMAScript writes integral values without ".0", Python with it).
            if 1e-4 <= abs(item) < 1e16 and not item.is_integer():
                continue
            if item.is_integer() and abs(item) <= _SAFE_INT:
                integral = True
                continue
            return False
        if kind is dict:
            if not all(k.isascii() or max(k) <= "\uffff" for k in item):
                return False
            stack.extend(item.values())
        elif kind is list:
            stack.extend(item)
        else:
            return False
    return _INTEGRAL if integral else True


def _integral_floats_as_ints(value: Any) -> Any:
    """``value`` (a plain one) with every integral float turned into the int it equals."""
    kind = type(value)
    if kind is float and value.is_integer():
        return int(value)
    if kind is dict:
        return {k: _integral_floats_as_ints(v) for k, v in value.items()}
    if kind is list:
        return [_integral_floats_as_ints(v) for v in value]
    return value


def sha256_hex(data: bytes | str) -> str:
    """Lowercase hex SHA-256; a ``str`` is normalised and encoded as UTF-8 first."""
    if isinstance(data, str):
        data = normalize_text(data).encode("utf-8")
    return hashlib.sha256(data).hexdigest()


def hash_value(value: Any) -> str:
    """SHA-256 of the canonical JSON of ``value``."""
    return hashlib.sha256(canonical_json(value)).hexdigest()
