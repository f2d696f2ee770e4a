"""Chapter numbers as written in headings: Arabic, full-width, or Chinese numerals.

Chinese numerals in chapter headings come in two grammars, told apart by whether a unit
character (十百千万) occurs:

* positional, with units: ``十二`` = 12, ``一百十九`` = 119, ``一百零八`` = 108,
  ``一千二百三十四`` = 1234, ``两百`` = 200, ``一万零五`` = 10005;
* digit by digit, without units: ``一〇八`` = ``一零八`` = 108, ``二〇二三`` = 2023.

Decisions, each forced by real text:

* A digit after a unit with no unit of its own counts as ones: ``一百一`` = 101, not the
  colloquial 110. The classics number this way: 三国演义 goes 第一百回, 第一百一回, 第一百二回 …
  第一百九回, 第一百十回, 第一百十一回, so ``一百一`` must be 101 and ``一百十`` must be 110.
  By the same rule ``一千二`` = 1002.
* ``十`` without a digit in front means one ten anywhere: ``十二`` = 12, ``一百十九`` = 119.
  ``百`` and ``千`` need their digit: a bare ``百`` is rejected as garbage.
* ``两`` is 2 (``两百`` = 200); ``〇`` and ``零`` are both zero.
* ``廿`` = 20, ``卅`` = 30, ``卌`` = 40, as in ``廿一`` = 21.
* Full-width digits are Arabic digits: ``１２`` = 12. Arabic and Chinese may not be mixed.
* Units must fall (``一百一千`` is garbage), each unit at most once, and at most one ``万``.

Anything else raises ``ValueError``: the heading parser uses that to decide that ``第X章``
is not a heading at all, so this module must never guess.
"""

from __future__ import annotations

_DIGITS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_ZEROS = frozenset("零〇")
_UNITS = {"十": 10, "百": 100, "千": 1000}
_TENS_SHORTHAND = str.maketrans({"廿": "二十", "卅": "三十", "卌": "四十"})
_FULL_WIDTH_DIGITS = str.maketrans("０１２３４５６７８９", "0123456789")
_DIGIT_BY_DIGIT = {**_DIGITS, "零": 0, "〇": 0}
_FORMAT_DIGITS = "零一二三四五六七八九"


def parse_chapter_number(token: str) -> int:
    """Return the integer a chapter heading writes as ``token``; ``ValueError`` if it is none.

    >>> [parse_chapter_number(t) for t in ("12", "１２", "十二", "一百十九", "一百一", "一〇八")]
    [12, 12, 12, 119, 101, 108]
    """
    text = token.strip().translate(_FULL_WIDTH_DIGITS)
    if not text:
        raise ValueError("empty chapter number")
    if text.isascii():
        if not text.isdigit():
            raise ValueError(f"not a chapter number: {token!r}")
        return int(text)
    text = text.translate(_TENS_SHORTHAND)
    if any(unit in text for unit in "十百千万"):
        return _parse_positional(text, token)
    return _parse_digit_by_digit(text, token)


def _parse_digit_by_digit(text: str, token: str) -> int:
    if "两" in text and len(text) > 1:  # 两 is a counting word, never a digit in a sequence
        raise ValueError(f"not a chapter number: {token!r}")
    try:
        digits = [_DIGIT_BY_DIGIT[ch] for ch in text]
    except KeyError:
        raise ValueError(f"not a chapter number: {token!r}") from None
    return int("".join(map(str, digits)))


def _parse_positional(text: str, token: str) -> int:
    high, sep, low = text.partition("万")
    if not sep:
        return _parse_section(text, token)
    if not high or "万" in low:
        raise ValueError(f"not a chapter number: {token!r}")
    if low[:1] in _ZEROS:  # 一万零五: the zero only says the thousands are empty
        low = low[1:]
        if not low:
            raise ValueError(f"not a chapter number: {token!r}")
    return _parse_section(high, token) * 10000 + (_parse_section(low, token) if low else 0)


def _parse_section(text: str, token: str) -> int:
    """Parse a positional numeral below 10,000 (no 万)."""
    value, digit, last_unit, after_zero = 0, None, 10000, False
    for ch in text:
        if ch in _DIGITS:
            if digit is not None:
                raise ValueError(f"not a chapter number: {token!r}")
            digit = _DIGITS[ch]
        elif ch in _ZEROS:
            # 零 only bridges a skipped unit: after a unit, before more digits.
            if digit is not None or after_zero or value == 0:
                raise ValueError(f"not a chapter number: {token!r}")
            after_zero = True
        elif ch in _UNITS:
            unit = _UNITS[ch]
            if unit >= last_unit or (digit is None and unit != 10):
                raise ValueError(f"not a chapter number: {token!r}")
            value += (1 if digit is None else digit) * unit
            digit, last_unit, after_zero = None, unit, False
        else:
            raise ValueError(f"not a chapter number: {token!r}")
    if after_zero and digit is None:
        raise ValueError(f"not a chapter number: {token!r}")
    return value + (digit or 0)


def format_chinese_number(number: int) -> str:
    """Write ``number`` (0 ≤ n < 100,000,000) the standard way: 12 → 十二, 110 → 一百一十.

    ``parse_chapter_number`` reads every output back to the same number.
    """
    if not 0 <= number < 100_000_000:
        raise ValueError(f"out of range: {number}")
    if number == 0:
        return "零"
    high, low = divmod(number, 10000)
    if not high:
        return _format_section(number, leading=True)
    text = _format_section(high, leading=True) + "万"
    if low:
        text += ("零" if low < 1000 else "") + _format_section(low, leading=False)
    return text


def _format_section(number: int, *, leading: bool) -> str:
    parts: list[str] = []
    pending_zero = False
    for unit, name in ((1000, "千"), (100, "百"), (10, "十"), (1, "")):
        digit, number = divmod(number, unit)
        if digit:
            if pending_zero:
                parts.append("零")
            pending_zero = False
            # 十二, not 一十二, but only at the very start of the numeral
            if not (unit == 10 and digit == 1 and leading and not parts):
                parts.append(_FORMAT_DIGITS[digit])
            parts.append(name)
        elif parts and number:
            pending_zero = True
    return "".join(parts)
