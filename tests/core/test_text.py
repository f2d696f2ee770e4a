"""Text normalisation and Han counting (spec 000 §8.1 rule 1)."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

import pytest
from hypothesis import given
from hypothesis import strategies as st

from muse.core.text import count_han, is_han, normalize_text


@dataclass(frozen=True)
class NormalizeCase:
    name: str
    text: str
    expected: str


NORMALIZE_CASES = [
    NormalizeCase("BOM stripped", "\ufeff第一章", "第一章"),
    NormalizeCase("only a leading BOM is a BOM", "a\ufeffb", "a\ufeffb"),
    NormalizeCase("CRLF to LF", "一\r\n二\r\n", "一\n二\n"),
    NormalizeCase("lone CR to LF", "一\r二\r", "一\n二\n"),
    NormalizeCase("CR CR LF is two line ends", "一\r\r\n二", "一\n\n二"),
    NormalizeCase("LF untouched", "一\n\n二", "一\n\n二"),
    NormalizeCase("NFC composes e + acute", "e\u0301", "\u00e9"),
    NormalizeCase("NFC composes Hangul jamo", "\u1100\u1161", "\uac00"),
    NormalizeCase("BOM, CRLF and NFD together", "\ufeffcafe\u0301\r\n", "caf\u00e9\n"),
    # Never NFKC: these would all change under compatibility folding
    NormalizeCase("full-width punctuation kept", "，。！？：；（）", "，。！？：；（）"),
    NormalizeCase("full-width digits kept", "０１２３４５６７８９", "０１２３４５６７８９"),
    NormalizeCase("full-width Latin kept", "ＡＢＣ", "ＡＢＣ"),
    NormalizeCase("ideographic space kept", "他\u3000说", "他\u3000说"),
    NormalizeCase("ligature kept", "\ufb01", "\ufb01"),
    NormalizeCase("ellipsis and em dash kept", "……——", "……——"),
]


@pytest.mark.parametrize("case", NORMALIZE_CASES, ids=lambda c: c.name)
def test_normalize_text(case: NormalizeCase) -> None:
    assert normalize_text(case.text) == case.expected


@dataclass(frozen=True)
class HanCase:
    name: str
    text: str
    expected: int


HAN_CASES = [
    HanCase("Han only, not Latin, digits or punctuation", "汉字abc123，。", 2),
    HanCase("empty", "", 0),
    HanCase("ideographic zero 〇 counts", "二〇二四", 4),
    HanCase("iteration mark 々 counts", "人々", 2),
    HanCase("CJK Extension B counts", "\U00020000\U0002a6d6", 2),
    HanCase("compatibility ideograph counts", "\uf91d", 1),
    HanCase("hiragana and katakana do not count", "ひらがなカタカナ", 0),
    HanCase("full-width Latin and digits do not count", "ＡＢＣ０１２", 0),
    HanCase("whitespace does not count", " \t\n\u3000\r\n", 0),
    HanCase("Chinese punctuation does not count", "，。！？：；（）“”‘’《》……——", 0),
    HanCase("Hangul does not count", "한글", 0),
    HanCase("a typical line", "“走！”林远低声道，转身冲进了雨里。", 13),
]


@pytest.mark.parametrize("case", HAN_CASES, ids=lambda c: c.name)
def test_count_han(case: HanCase) -> None:
    assert count_han(case.text) == case.expected


@pytest.mark.parametrize(
    ("char", "expected"),
    [("汉", True), ("〇", True), ("々", True), ("\U00020000", True), ("あ", False), ("，", False)],
)
def test_is_han(char: str, expected: bool) -> None:
    assert is_han(char) is expected


_PIECES = list("汉字章节〇々\U00020000\uf91d，。！ \n\r\u3000abcAé") + ["e\u0301", "\ufeff", "あ"]
_MIXED = st.lists(st.sampled_from(_PIECES), max_size=40).map("".join)


@given(_MIXED)
def test_count_han_is_the_same_for_every_spelling(text: str) -> None:
    normalised = normalize_text(text)
    assert count_han(text) == count_han(normalised)
    assert count_han(unicodedata.normalize("NFD", text)) == count_han(normalised)
    assert count_han(text.replace("\n", "\r\n")) == count_han(normalised)


@given(st.text(max_size=40))
def test_normalize_text_is_idempotent_and_leaves_no_cr(text: str) -> None:
    once = normalize_text(text)
    assert normalize_text(once) == once
    assert "\r" not in once
    assert unicodedata.is_normalized("NFC", once)


@given(
    st.lists(st.sampled_from(["\ufeff", "\r", "\n", "e", "\u0301", "汉"]), max_size=12).map("".join)
)
def test_normalize_text_is_idempotent_on_bom_and_line_end_runs(text: str) -> None:
    # A stored, normalised body is normalised again whenever it is re-hashed; a second pass that
    # changed it (a doubled BOM losing one more) would change candidateSha256.
    once = normalize_text(text)
    assert normalize_text(once) == once
    assert not once.startswith("\ufeff")


@given(st.one_of(_MIXED, st.text(max_size=60)))
def test_count_han_equals_the_code_points_whose_script_is_han(text: str) -> None:
    """The run-length sum (one pass) counts exactly the Han code points of the normalised text."""
    assert count_han(text) == sum(1 for c in normalize_text(text) if is_han(c))
