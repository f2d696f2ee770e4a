"""The proper-noun heuristic on its own: each rule of ``entities.py`` and exact offsets."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from muse.quality.entities import tagged_entities

SAMPLE = Path(__file__).parent / "fixtures" / "ner_sample.txt"


@dataclass(frozen=True)
class Case:
    text: str
    found: tuple[str, ...]
    rule: str


CASES = (
    Case("他在药铺里听到天剑门要收徒。", ("天剑门",), "a coined name not in jieba's dictionary"),
    Case("林远站在青石镇的街口。", ("林远", "青石镇"), "noun + place suffix joins: 青石 + 镇"),
    Case("喊道：奉云岚宗宗主之命！", ("云岚宗",), "a glued leading 奉 is trimmed"),
    Case("奉宗主慕容秋之命。", ("慕容秋",), "a compound surname is joined back: 慕容 + 秋之命"),
    Case("拱手道：在下夏侯雪衣，久仰。", ("夏侯雪衣",), "a compound surname and a 2-char name"),
    Case("那夜月明湛湛，开根之时马上遥望。", (), "HMM words without surname or suffix are noise"),
    Case("只见一个长安城来的人。", (), "a dictionary place name is a common word"),
    Case("他掏出一块玉佩，天亮的时候东西都在。", (), "2-char dictionary proper tags are noise"),
    Case("搜查叛徒赵无极的下落。", ("赵无极",), "a 3-char dictionary name is kept"),
)


@pytest.mark.parametrize("case", CASES, ids=[c.rule for c in CASES])
def test_rules(case: Case) -> None:
    assert tuple(e.text for e in tagged_entities(case.text)) == case.found


def test_offsets_address_the_text_and_shift() -> None:
    text = SAMPLE.read_text(encoding="utf-8")
    spans = tagged_entities(text, 100)
    assert spans
    for span in spans:
        assert text[span.start - 100 : span.end - 100] == span.text


def test_same_text_same_entities() -> None:
    text = SAMPLE.read_text(encoding="utf-8")
    assert tagged_entities(text) == tagged_entities(text)
