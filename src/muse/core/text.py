"""Text normalisation and Han counting (spec 000 §8.1).

All text that is hashed, counted or addressed by offsets is first normalised: BOM stripped,
CRLF/CR turned into LF, Unicode NFC. Never NFKC: it folds full-width Chinese punctuation
(，。！？：；) into ASCII and would change the author's text.

Offsets everywhere in Muse are Unicode code point offsets into normalised text (Python ``str``
indices), half-open ``[start, end)``.
"""

from __future__ import annotations

import unicodedata

import regex

_HAN = regex.compile(r"\p{Script=Han}")
_HAN_RUNS = regex.compile(r"\p{Script=Han}+")
_BOM = "\ufeff"


def normalize_text(text: str) -> str:
    """Return ``text`` with leading BOMs stripped, LF line ends and Unicode NFC.

    Every leading BOM goes, not just the first, so that normalising twice changes nothing.
    """
    if type(text) is str and text.isascii() and "\r" not in text:
        return text  # no BOM, no CR, and ASCII is its own NFC: nothing to do
    text = text.lstrip(_BOM)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return unicodedata.normalize("NFC", text)


def count_han(text: str) -> int:
    """Number of code points whose Unicode Script is Han, after NFC/LF normalisation.

    Punctuation, whitespace, Latin letters and digits are not counted (spec 000 §8.1). Summing
    the lengths of maximal Han runs gives the same count as matching code point by code point,
    ~4x faster on prose (one match object per run, not per character).
    """
    return sum(map(len, _HAN_RUNS.findall(normalize_text(text))))


def is_han(char: str) -> bool:
    return bool(_HAN.fullmatch(char))


def all_han(text: str) -> bool:
    """``all(is_han(c) for c in text)`` in one match (True for the empty string, like ``all``)."""
    return not text or _HAN_RUNS.fullmatch(text) is not None
