"""Secrets redaction and storable strings: the one choke point every stored or printed string
passes through.

Every configured secret (the API key of a provider, from its environment variable or the config
file) is registered here (``register_secret``) as soon as Muse learns it. From then on:

- every string bound into a database statement and every JSON value written to a JSON column
  goes through :func:`storable` (``store.engine`` installs it on every engine), which replaces
  each registered secret (and its JSON-escaped form) with ``[已隐去]``, and makes the string
  storable on both backends: NUL (refused by PostgreSQL text and JSONB) and lone surrogates
  (refused by UTF-8 encoders) become U+FFFD;
- everything the CLI prints goes through :class:`RedactingStream` (``cli.main``);
- model reply text is redacted before it is parsed (``agents.structured``), so a key echoed
  inside a reply never reaches a candidate, its hash, canon or the export.

Values shorter than ``MIN_SECRET_LENGTH`` are not treated as secrets: redacting a two-letter
"key" everywhere would destroy the text it appears in, and no real provider issues such keys.
"""

from __future__ import annotations

import json
import re
import threading
from functools import lru_cache
from typing import Any

REDACTED = "[已隐去]"
MIN_SECRET_LENGTH = 6

_lock = threading.Lock()
_secrets: frozenset[str] = frozenset()
_forms: tuple[str, ...] = ()  # every registered secret and its JSON-escaped forms, longest first
_SURROGATE = re.compile("[\ud800-\udfff]")


def register_secret(value: str | None) -> None:
    """From now on, ``value`` never reaches the database or the terminal."""
    global _secrets, _forms
    if not value or len(value.strip()) < MIN_SECRET_LENGTH:
        return
    with _lock:
        if value in _secrets:
            return
        _secrets = _secrets | {value, value.strip()}
        forms = set(_secrets)
        for secret in _secrets:
            forms.add(json.dumps(secret)[1:-1])  # "\u00e9…" form in ASCII JSON
            forms.add(json.dumps(secret, ensure_ascii=False)[1:-1])
        _forms = tuple(sorted(forms, key=len, reverse=True))


def registered_secrets() -> frozenset[str]:
    return _secrets


def forget_secrets() -> None:
    """Tests only: start again with no registered secret."""
    global _secrets, _forms
    with _lock:
        _secrets, _forms = frozenset(), ()


def redact(text: str) -> str:
    """``text`` with every registered secret replaced by ``[已隐去]``."""
    for form in _forms:
        if form in text:
            text = text.replace(form, REDACTED)
    return text


def storable_text(text: str) -> str:
    """``text`` redacted, with NUL and lone surrogates replaced by U+FFFD."""
    text = redact(text)
    if "\x00" in text:
        text = text.replace("\x00", "\ufffd")
    if _has_surrogate(text):
        text = _SURROGATE.sub("\ufffd", text)
    return text


def _has_surrogate(text: str) -> bool:
    """Whether ``text`` holds a lone surrogate. An ASCII string holds none (``isascii`` is O(1)
    in CPython); any other is tried as UTF-8, which refuses one: a pass in C some three times
    faster than the regular expression's search (a stored writer context is ~130,000
    characters, and it is checked twice: as JSON, then as a bound string)."""
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def storable(value: Any) -> Any:
    """``value`` (a string or a JSON-like structure) with every string made storable."""
    if isinstance(value, str):
        return storable_text(value)
    if isinstance(value, dict):
        return {storable(k): storable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [storable(v) for v in value]
    return value


def json_dumps_storable(value: Any) -> str:
    """The engines' JSON serializer: storable strings, then ``json.dumps``, with characters
    beyond ASCII written as themselves (a Chinese character as its 3 UTF-8 bytes, not as the 6
    of ``\\u7ae0``: a writer context or a prompt is stored in half the space, and written and
    read back faster).

    ``json.dumps`` escapes NUL (as ``\\u0000``) and writes a lone surrogate, or a secret form
    made of characters it does not escape, as itself. So when the dumped text shows neither
    ``\\u0000`` nor a surrogate nor such a form (every string already storable, the common
    case), the dumped text is the answer: the same text, without walking the value first.
    Anything else, or a secret form that JSON would escape, takes the walk.
    """
    text = json.dumps(value, ensure_ascii=False)
    forms = _forms
    if (
        "\\u0000" not in text
        and not _has_surrogate(text)
        and all(_plain_form(form) for form in forms)
        and not any(form in text for form in forms)
    ):
        return text
    return json.dumps(storable(value), ensure_ascii=False)


@lru_cache(maxsize=256)
def _plain_form(form: str) -> bool:
    """Whether ``json.dumps`` writes the secret form unchanged (no quote, backslash or control
    character): then the form is in a string exactly when it is in the dumped text."""
    return json.dumps(form, ensure_ascii=False)[1:-1] == form


class RedactingStream:
    """A text stream wrapper that redacts every registered secret before writing."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def write(self, text: str) -> int:
        self._inner.write(redact(text) if isinstance(text, str) else text)
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)
