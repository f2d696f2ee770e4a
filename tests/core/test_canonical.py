"""Identity hashes: RFC 8785 canonical JSON over NFC/LF strings (ARCHITECTURE §1 principle 5)."""

from __future__ import annotations

import hashlib
import unicodedata
from dataclasses import dataclass
from typing import Any

import pytest
import rfc8785
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from muse.core.canonical import canonical_json, hash_value, normalize_value, sha256_hex
from muse.core.errors import ContractViolation


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def nfd(text: str) -> str:
    return unicodedata.normalize("NFD", text)


def map_strings(value: Any, fn: Any) -> Any:
    """Apply ``fn`` to every string of a JSON-like value, keys included."""
    if isinstance(value, str):
        return fn(value)
    if isinstance(value, dict):
        return {fn(k): map_strings(v, fn) for k, v in value.items()}
    if isinstance(value, list):
        return [map_strings(v, fn) for v in value]
    return value


# Strings already in canonical form (NFC, no CR, no leading BOM), rich in characters that
# NFC/NFD change: Latin with combining marks, Hangul, CJK, full-width punctuation.
_ALPHABET = st.sampled_from(
    list('aeiouAEIOU \n"\\/')
    + list("éèçñüÅḱ\u0301\u0308가한글汉字，。！？：；０１")
    + ["😀", "\u20ac"]
)
canonical_text = (
    st.text(_ALPHABET, max_size=12).map(nfc).filter(lambda s: not s.startswith("\ufeff"))
)
scalars = st.none() | st.booleans() | st.integers(-(2**53) + 1, 2**53 - 1) | canonical_text
json_values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(canonical_text, children, max_size=4)
    ),
    max_leaves=12,
)


def reversed_key_order(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: reversed_key_order(value[k]) for k in reversed(list(value))}
    if isinstance(value, list):
        return [reversed_key_order(v) for v in value]
    return value


@given(json_values)
def test_key_order_does_not_change_the_hash(value: Any) -> None:
    assert hash_value(reversed_key_order(value)) == hash_value(value)


@given(json_values)
def test_nfd_and_nfc_spellings_hash_alike(value: Any) -> None:
    assert hash_value(map_strings(value, nfd)) == hash_value(value)
    assert canonical_json(map_strings(value, nfd)) == canonical_json(value)


@given(st.lists(st.text(_ALPHABET.filter(lambda c: c != "\n"), max_size=8), min_size=1, max_size=5))
def test_crlf_cr_and_lf_hash_alike(lines: list[str]) -> None:
    lf, crlf, cr = "\n".join(lines), "\r\n".join(lines), "\r".join(lines)
    assert hash_value({"body": crlf}) == hash_value({"body": lf})
    assert hash_value({"body": cr}) == hash_value({"body": lf})
    assert hash_value([crlf]) == hash_value([lf])
    assert sha256_hex(crlf) == sha256_hex(cr) == sha256_hex(lf)


@given(canonical_text)
def test_a_leading_bom_does_not_change_the_hash(text: str) -> None:
    assert hash_value({"body": "\ufeff" + text}) == hash_value({"body": text})
    assert sha256_hex("\ufeff" + text) == sha256_hex(text)


@given(json_values, json_values)
def test_different_content_hashes_differently(a: Any, b: Any) -> None:
    # Python equality treats True == 1 and skips such pairs; the examples below cover them.
    assume(normalize_value(a) != normalize_value(b))
    assert hash_value(a) != hash_value(b)


def test_different_content_hashes_differently_examples() -> None:
    assert hash_value({"a": 1}) != hash_value({"a": 2})
    assert hash_value({"a": "é"}) != hash_value({"a": "e"})
    assert hash_value({"a": "一"}) != hash_value({"a": "一 "})
    assert hash_value([1, 2]) != hash_value([2, 1])
    assert hash_value({"a": True}) != hash_value({"a": 1})


@dataclass(frozen=True)
class JcsCase:
    name: str
    value: Any
    expected: bytes


JCS_CASES = [
    JcsCase("1.0 is written 1", 1.0, b"1"),
    JcsCase("minus zero is 0", -0.0, b"0"),
    JcsCase("1e21 switches to exponent form", 1e21, b"1e+21"),
    JcsCase("1e20 stays integral", 1e20, b"100000000000000000000"),
    JcsCase("1e-7 exponent form", 1e-7, b"1e-7"),
    JcsCase("0.000001 plain", 0.000001, b"0.000001"),
    JcsCase("shortest round-trip", 333333333.33333329, b"333333333.3333333"),
    JcsCase("literals", [None, True, False], b"[null,true,false]"),
    JcsCase("no whitespace, sorted keys", {"b": [1, 2], "a": {"d": 1, "c": 2}}, b'{"a":{"c":2,"d":1},"b":[1,2]}'),
    JcsCase("non-ASCII as raw UTF-8", {"a": "é汉"}, b'{"a":"\xc3\xa9\xe6\xb1\x89"}'),
    JcsCase("control characters escaped, lowercase hex", "\x0f\n\"\\/", b'"\\u000f\\n\\"\\\\/"'),
    # code point order would put U+FF01 first; UTF-16 code units put U+1F600 (D83D DE00) first
    JcsCase("keys sort by UTF-16 code units", {"\uff01": 1, "\U0001f600": 2}, '{"\U0001f600":2,"\uff01":1}'.encode()),
    JcsCase("euro before emoji either way", {"\U0001f600": 1, "\u20ac": 2}, '{"\u20ac":2,"\U0001f600":1}'.encode()),
    # RFC 8785 §3.2.2 example (its strings carry no CR and are already NFC)
    JcsCase(
        "RFC 8785 §3.2.2",
        {
            "numbers": [333333333.33333329, 1e30, 4.50, 2e-3, 0.000000000000000000000000001],
            "string": "\u20ac$\u000f\nA'\u0042\u0022\u005c\\\"/",
            "literals": [None, True, False],
        },
        '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],'
        '"string":"\u20ac$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}'.encode(),
    ),
    JcsCase("strings are normalised before encoding", {"e\u0301": "a\r\nb"}, '{"\u00e9":"a\\nb"}'.encode()),
]  # fmt: skip


@pytest.mark.parametrize("case", JCS_CASES, ids=lambda c: c.name)
def test_canonical_json_matches_rfc8785(case: JcsCase) -> None:
    assert canonical_json(case.value) == case.expected


def test_hash_value_is_sha256_of_the_canonical_bytes() -> None:
    expected = hashlib.sha256('{"a":"\u00e9","b":1}'.encode()).hexdigest()
    assert hash_value({"b": 1, "a": "e\u0301"}) == expected


@dataclass(frozen=True)
class ShaCase:
    name: str
    data: str | bytes
    normalised_bytes: bytes


SHA_CASES = [
    ShaCase("plain", "汉字", "汉字".encode()),
    ShaCase("NFD composed", "e\u0301", "\u00e9".encode()),
    ShaCase("CRLF and BOM", "\ufeff第一章\r\n正文\r", "第一章\n正文\n".encode()),
    ShaCase("full-width punctuation kept", "，。！", "，。！".encode()),
    ShaCase("bytes are hashed as given", b"a\r\n", b"a\r\n"),
]


@pytest.mark.parametrize("case", SHA_CASES, ids=lambda c: c.name)
def test_sha256_hex(case: ShaCase) -> None:
    digest = sha256_hex(case.data)
    assert len(digest) == 64
    assert digest == digest.lower()
    assert int(digest, 16) >= 0
    assert digest == hashlib.sha256(case.normalised_bytes).hexdigest()


@given(st.text(max_size=30))
def test_sha256_hex_is_64_lowercase_hex(text: str) -> None:
    digest = sha256_hex(text)
    assert len(digest) == 64
    assert set(digest) <= set("0123456789abcdef")


@pytest.mark.parametrize(
    "value",
    [
        {"e\u0301": 1, "\u00e9": 2},  # NFD and NFC spellings of one key
        {"\u00e9": 2, "e\u0301": 1},
        {1: "a", "1": "b"},  # a non-string key that stringifies onto another
        {"outer": [{"a\r\nb": 1, "a\nb": 2}]},  # nested, line ends
    ],
    ids=["nfd-first", "nfc-first", "int-and-str", "nested-crlf"],
)
def test_keys_that_collide_after_normalisation_are_refused(value: dict[Any, Any]) -> None:
    # Silently merging them would make the hash depend on insertion order.
    with pytest.raises(ContractViolation):
        hash_value(value)


def test_tuples_hash_like_lists() -> None:
    assert hash_value({"a": (1, "x")}) == hash_value({"a": [1, "x"]})


_KEY_CHARS = st.sampled_from(list('ab\u00e9\u6c49\ue000\uffee\U0001f600\U00020000"\\\n\x01 '))
_JSON_LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**53) + 1, max_value=2**53 - 1),
    st.integers(min_value=2**53, max_value=2**60),  # rfc8785 refuses these: so must we
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
)
_JSON = st.recursive(
    _JSON_LEAVES,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.text(_KEY_CHARS, max_size=4), inner, max_size=4),
    ),
    max_leaves=20,
)


@settings(max_examples=500)
@given(_JSON)
def test_canonical_json_is_exactly_rfc8785(value) -> None:
    """The json shortcut of canonical_json writes RFC 8785's bytes, or fails the way it does."""
    try:
        expected = rfc8785.dumps(normalize_value(value))
    except Exception as err:  # noqa: BLE001 - the same error type is required below
        with pytest.raises(type(err)):
            canonical_json(value)
        return
    assert canonical_json(value) == expected


@settings(max_examples=500)
@given(st.floats(min_value=-1e17, max_value=1e17) | st.floats(min_value=-1e-3, max_value=1e-3))
def test_floats_near_the_shortcut_bounds_serialise_as_rfc8785(number: float) -> None:
    assert canonical_json({"x": [number]}) == rfc8785.dumps({"x": [number]})


@settings(max_examples=500)
@given(
    st.integers(min_value=-(2**53) - 4, max_value=2**53 + 4).map(float)
    | st.integers(min_value=-(10**6), max_value=10**6).map(float)
)
def test_integral_floats_take_the_shortcut_and_serialise_as_rfc8785(number: float) -> None:
    """An integral float (a context's average: 1.0) is written as JCS writes it, ``1``."""
    value = {"n": number, "nested": [number, {"m": number}], "s": "汉"}
    assert canonical_json(value) == rfc8785.dumps(value)
