"""Chapter numbers as headings write them: Arabic, full-width, positional and digit-by-digit."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import given
from hypothesis import strategies as st

from muse.works.chinese_numerals import format_chinese_number, parse_chapter_number


@dataclass(frozen=True)
class NumberCase:
    token: str
    expected: int
    why: str


VALID = [
    NumberCase("12", 12, "Arabic"),
    NumberCase("0", 0, "chapter 0 (序章) exists in web novels"),
    NumberCase("007", 7, "zero-padded Arabic"),
    NumberCase("１２", 12, "full-width digits"),
    NumberCase("１２３４", 1234, "full-width digits, four places"),
    NumberCase("一", 1, "single digit"),
    NumberCase("十", 10, "bare ten"),
    NumberCase("十二", 12, "ten without a leading one"),
    NumberCase("二十", 20, "tens"),
    NumberCase("二十一", 21, "tens and ones"),
    NumberCase("一百", 100, "hundred"),
    NumberCase("一百一", 101, "三国演义 第一百一回 comes between 第一百回 and 第一百二回"),
    NumberCase("一百二", 102, "same rule as 一百一"),
    NumberCase("一百十", 110, "三国演义 第一百十回, the one after 第一百九回"),
    NumberCase("一百十一", 111, "三国演义 第一百十一回"),
    NumberCase("一百十九", 119, "ten without its one after a hundred"),
    NumberCase("一百一十九", 119, "the standard spelling of 119"),
    NumberCase("一百二十", 120, "三国演义's last 回"),
    NumberCase("一百零八", 108, "zero bridging the empty tens"),
    NumberCase("一〇八", 108, "digit by digit with 〇"),
    NumberCase("一零八", 108, "digit by digit with 零"),
    NumberCase("二〇二三", 2023, "digit by digit, four places"),
    NumberCase("〇五", 5, "digit by digit with a leading zero, like 05"),
    NumberCase("两百", 200, "两 as the digit two"),
    NumberCase("两千零二十", 2020, "两 before a thousand"),
    NumberCase("两", 2, "两 alone"),
    NumberCase("一千", 1000, "thousand"),
    NumberCase("一千零一", 1001, "zero across two empty places"),
    NumberCase("一千零十", 1010, "zero then a bare ten"),
    NumberCase("一千二", 1002, "a trailing digit is ones, as in 一百一"),
    NumberCase("一千二百三十四", 1234, "all four places"),
    NumberCase("九千九百九十九", 9999, "largest below ten thousand"),
    NumberCase("一万", 10000, "ten thousand"),
    NumberCase("一万零五", 10005, "zero after 万"),
    NumberCase("十万", 100000, "ten ten-thousands"),
    NumberCase("一万二千三百", 12300, "万 and a full lower section"),
    NumberCase("廿", 20, "廿 is twenty"),
    NumberCase("廿一", 21, "廿 with ones"),
    NumberCase("卅", 30, "卅 is thirty"),
    NumberCase("卅五", 35, "卅 with ones"),
    NumberCase("零", 0, "zero"),
    NumberCase(" 十二 ", 12, "surrounding spaces ignored"),
]

INVALID = [
    "",
    "   ",
    "abc",
    "12a",
    "一2",  # Arabic and Chinese mixed
    "1百",
    "百",  # a hundred needs its digit
    "千二",
    "十十",
    "一百一千",  # units must fall
    "一百百",
    "一二百",  # two digits before one unit
    "零五十",  # a positional numeral cannot start with zero
    "一百零",  # zero must bridge to something
    "一百零零一",
    "两两",  # 两 is not a digit in a digit-by-digit sequence
    "万",
    "一万万",
    "一万零",
    "章",
    "第一",
    "-1",
    "1.5",
]


@pytest.mark.parametrize("case", VALID, ids=lambda c: f"{c.token.strip()}={c.expected}")
def test_parses(case: NumberCase) -> None:
    assert parse_chapter_number(case.token) == case.expected, case.why


@pytest.mark.parametrize("token", INVALID)
def test_rejects_garbage(token: str) -> None:
    with pytest.raises(ValueError):
        parse_chapter_number(token)


def test_sanguoyanyi_heading_sequence_counts_up_by_one() -> None:
    # The numbering of 第一百回 … 第一百二十回 as the corpus writes it, in file order.
    written = ["一百"] + [f"一百{d}" for d in "一二三四五六七八九"] + ["一百十"]
    written += [f"一百十{d}" for d in "一二三四五六七八九"] + ["一百二十"]
    assert [parse_chapter_number(w) for w in written] == list(range(100, 121))


@dataclass(frozen=True)
class FormatCase:
    number: int
    expected: str


FORMAT = [
    FormatCase(0, "零"),
    FormatCase(7, "七"),
    FormatCase(10, "十"),
    FormatCase(12, "十二"),
    FormatCase(20, "二十"),
    FormatCase(101, "一百零一"),
    FormatCase(110, "一百一十"),
    FormatCase(119, "一百一十九"),
    FormatCase(1001, "一千零一"),
    FormatCase(1234, "一千二百三十四"),
    FormatCase(10005, "一万零五"),
    FormatCase(10010, "一万零一十"),
    FormatCase(110000, "十一万"),
]


@pytest.mark.parametrize("case", FORMAT, ids=lambda c: str(c.number))
def test_formats_the_standard_way(case: FormatCase) -> None:
    assert format_chinese_number(case.number) == case.expected


@pytest.mark.parametrize("number", [-1, 100_000_000])
def test_format_refuses_out_of_range(number: int) -> None:
    with pytest.raises(ValueError):
        format_chinese_number(number)


@given(st.integers(min_value=0, max_value=99_999_999))
def test_every_formatted_number_parses_back(number: int) -> None:
    assert parse_chapter_number(format_chinese_number(number)) == number


@given(st.integers(min_value=0, max_value=10**9))
def test_arabic_and_full_width_digits_parse(number: int) -> None:
    full_width = str(number).translate(str.maketrans("0123456789", "０１２３４５６７８９"))
    assert parse_chapter_number(str(number)) == parse_chapter_number(full_width) == number
