"""Decoding book files: UTF-8 (± BOM), GB18030/GBK, UTF-16; never a silent guess."""

from __future__ import annotations

import codecs
from dataclasses import dataclass
from pathlib import Path

import pytest

from muse.core.errors import ImportFailed
from muse.works.book_decoding import decode_book

TEXT = "第一章 开端\n\n　　“你来了。”他说，声音很轻。\n\n第二章 风起\n\n　　天色渐暗。\n"
# 䶮 (U+4DAE) and 𠀀 (U+20000) are not in GBK: GB18030 writes them with four bytes.
GB18030_ONLY = "第一章 䶮与𠀀\n\n　　他叫刘䶮，这是一个很少见的字。\n"


@dataclass(frozen=True)
class DecodeCase:
    name: str
    data: bytes
    text: str
    encoding: str


DECODES = [
    DecodeCase("UTF-8 without BOM", TEXT.encode("utf-8"), TEXT, "utf-8"),
    DecodeCase("UTF-8 with BOM", codecs.BOM_UTF8 + TEXT.encode("utf-8"), TEXT, "utf-8-sig"),
    DecodeCase("GBK bytes", TEXT.encode("gbk"), TEXT, "gb18030"),
    DecodeCase("GB18030 bytes", GB18030_ONLY.encode("gb18030"), GB18030_ONLY, "gb18030"),
    DecodeCase("UTF-16 LE with BOM", TEXT.encode("utf-16"), TEXT, "utf-16"),
    DecodeCase(
        "UTF-16 BE with BOM", codecs.BOM_UTF16_BE + TEXT.encode("utf-16-be"), TEXT, "utf-16"
    ),
    DecodeCase("CRLF becomes LF", TEXT.replace("\n", "\r\n").encode("utf-8"), TEXT, "utf-8"),
    DecodeCase("CR only becomes LF", TEXT.replace("\n", "\r").encode("utf-8"), TEXT, "utf-8"),
    DecodeCase("GBK with CRLF", TEXT.replace("\n", "\r\n").encode("gbk"), TEXT, "gb18030"),
    DecodeCase(
        "BOM and CRLF together",
        codecs.BOM_UTF8 + TEXT.replace("\n", "\r\n").encode("utf-8"),
        TEXT,
        "utf-8-sig",
    ),
    DecodeCase("NFD becomes NFC", "第1章 Cafe\u0301\n".encode(), "第1章 Caf\u00e9\n", "utf-8"),
    DecodeCase("pure ASCII is UTF-8", b"Chapter 1\nHello.\n", "Chapter 1\nHello.\n", "utf-8"),
    DecodeCase(
        "short GBK file without common characters",
        "林远握紧长剑。苏晴沉默片刻。".encode("gbk"),
        "林远握紧长剑。苏晴沉默片刻。",
        "gb18030",
    ),
    DecodeCase(
        "a DOS end-of-file mark is not binary",
        TEXT.encode("gbk") + b"\x1a",
        TEXT + "\x1a",
        "gb18030",
    ),
]


@pytest.mark.parametrize("case", DECODES, ids=lambda c: c.name)
def test_decodes(case: DecodeCase) -> None:
    decoded = decode_book(case.data)
    assert decoded.text == case.text
    assert decoded.encoding == case.encoding


def test_gbk_novel_excerpt_round_trips() -> None:
    text = (Path(__file__).parents[1] / "fixtures/books/xiyouji_head.txt").read_text("utf-8")
    decoded = decode_book(text.encode("gbk"))
    assert (decoded.text, decoded.encoding) == (text, "gb18030")


@dataclass(frozen=True)
class RefuseCase:
    name: str
    data: bytes
    must_mention: tuple[str, ...]


_GBK_PREFIX = "第一章\n".encode("gbk")  # 7 bytes; 0xB5 at offset 0 is not UTF-8
_SHIFT_JIS = (
    "吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。"
    "何でも薄暗いじめじめした所でニャーニャー泣いていた事だけは記憶している。"
).encode("shift_jis")

REFUSALS = [
    RefuseCase("empty file", b"", ("空",)),
    RefuseCase("whitespace only", b"  \r\n\t\n\xe3\x80\x80\n", ("空",)),
    RefuseCase("BOM only", codecs.BOM_UTF8, ("空",)),
    RefuseCase(
        "undecodable: ASCII then 0xFF",
        b"chapter one\n\xff\xfe rest",
        ("字节偏移 12", "UTF-8", "GB18030", "0xFF"),
    ),
    RefuseCase(
        "undecodable: GBK then a byte neither codec accepts",
        _GBK_PREFIX + b"\xff" + "正文".encode("gbk"),
        ("UTF-8 解码在字节偏移 0 处", "GB18030/GBK 解码在字节偏移 7 处"),
    ),
    RefuseCase(
        "UTF-8 BOM with a broken sequence: offset counts the BOM",
        codecs.BOM_UTF8 + "第一章\n".encode() + b"\xe4\xb8",
        ("字节偏移 13", "UTF-8 BOM"),
    ),
    RefuseCase("Shift-JIS decodes as GB18030 but is not Chinese", _SHIFT_JIS, ("不像中文",)),
    RefuseCase(
        "Big5 decodes as GB18030 but is not Chinese",
        ("我們今天去學校，老師說這個問題很難。" * 5).encode("big5"),
        ("不像中文",),
    ),
    RefuseCase("Latin-1 that GB18030 accepts", ("aéa" * 20).encode("latin-1"), ("不像中文",)),
    RefuseCase("NUL byte", "第一章\n".encode() + b"\x00abc", ("二进制", "字节偏移 10")),
    RefuseCase("binary with NULs", bytes(range(256)) * 4, ("二进制", "字节偏移 0")),
    RefuseCase("control characters without NUL", bytes(range(1, 32)) * 50, ("二进制",)),
]


@pytest.mark.parametrize("case", REFUSALS, ids=lambda c: c.name)
def test_refuses_with_a_chinese_message(case: RefuseCase) -> None:
    with pytest.raises(ImportFailed) as caught:
        decode_book(case.data)
    for fragment in case.must_mention:
        assert fragment in caught.value.message


def test_undecodable_file_hint_says_convert_to_utf8() -> None:
    with pytest.raises(ImportFailed) as caught:
        decode_book(b"abc\xff\xff")
    assert caught.value.hint is not None and "UTF-8" in caught.value.hint
