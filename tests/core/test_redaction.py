"""The engines' JSON serializer: its shortcut (dump first, walk only when the dumped text shows
something to clean) writes what the walk writes, with and without registered secrets."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from muse.core import redaction

_SECRETS = ("sk-test-secret-42", "密钥é-secret-77", 'q"uote\\d-secret')
_CHARS = st.sampled_from(
    ["a", "z", "林", "远", "。", "\x00", "\ud800", "\udfff", "\U0001f600", "\\", '"', "\n", "é"]
    + ["ud8", "\\u0000", *_SECRETS]
    + [json.dumps(s)[1:-1] for s in _SECRETS]  # a secret's escaped form, written as text
)
_TEXT = st.lists(_CHARS, max_size=8).map("".join)
_LEAF = st.one_of(_TEXT, st.integers(), st.booleans(), st.none(), st.floats(allow_nan=False))
_VALUE = st.recursive(
    _LEAF,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.tuples(inner, inner),
        st.dictionaries(st.one_of(_TEXT, st.integers()), inner, max_size=4),
    ),
    max_leaves=12,
)


@pytest.fixture(autouse=True)
def _no_secrets():
    redaction.forget_secrets()
    yield
    redaction.forget_secrets()


_SOME_SECRETS = st.lists(st.sampled_from(_SECRETS), max_size=2, unique=True)


def _only(secrets: list[str]) -> None:
    """Exactly ``secrets`` registered (hypothesis reuses the process between examples)."""
    redaction.forget_secrets()
    for secret in secrets:
        redaction.register_secret(secret)


def _walked(value: object) -> str:
    return json.dumps(redaction.storable(value), ensure_ascii=False)


@settings(max_examples=400, deadline=None)
@given(value=_VALUE, secrets=_SOME_SECRETS)
def test_the_shortcut_writes_what_the_walk_writes(value, secrets):
    _only(secrets)
    assert redaction.json_dumps_storable(value) == _walked(value)


def test_a_secret_nul_and_a_lone_surrogate_are_still_cleaned():
    redaction.register_secret("sk-test-secret-42")
    value = {"k": ["x sk-test-secret-42 y", "a\x00b", "c\ud800d"], "林远": "正文"}
    stored = json.loads(redaction.json_dumps_storable(value))
    assert stored == {"k": ["x [已隐去] y", "a\ufffdb", "c\ufffdd"], "林远": "正文"}


def test_characters_beyond_ascii_are_stored_as_themselves():
    """A Chinese character is 3 bytes of UTF-8 in the stored text, not the 6 of an escape."""
    assert (
        redaction.json_dumps_storable({"正文": "林远走进青石镇。"})
        == '{"正文": "林远走进青石镇。"}'
    )
    assert redaction.json_dumps_storable({"t": "a\x00b"}) == '{"t": "a\ufffdb"}'
    assert redaction.json_dumps_storable(["c\ud800d"]) == '["c\ufffdd"]'


def _storable_text_by_scan(text: str) -> str:
    """storable_text without its ASCII shortcut: redact, NUL, then a scan for lone surrogates."""
    text = redaction.redact(text).replace("\x00", "\ufffd")
    return redaction._SURROGATE.sub("\ufffd", text)


@settings(max_examples=400, deadline=None)
@given(text=_TEXT, secrets=_SOME_SECRETS)
def test_the_ascii_shortcut_cleans_what_the_scan_cleans(text, secrets):
    _only(secrets)
    assert redaction.storable_text(text) == _storable_text_by_scan(text)
