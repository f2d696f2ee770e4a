"""The outline's own words found in the prose with another word in a term's place (frames.py):
whatever the texts, the answer is another word of the prose, or nothing; never an error."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from muse.quality.frames import LIGHT, changed_in_place, in_its_place, name_in_its_place

# Han characters, punctuation and the characters a regular expression treats specially
ALPHABET = "林远苏晴山门前交手饮酒斩断石碑，。：“”、\n-^[]\\()*+?.|{}$"
TEXT = st.text(alphabet=ALPHABET, max_size=40)


@settings(max_examples=300, deadline=None)
@given(event=TEXT, body=TEXT, start=st.integers(0, 40), size=st.integers(1, 4))
def test_a_word_in_its_place_is_another_word_of_the_prose(
    event: str, body: str, start: int, size: int
) -> None:
    term = event[start : start + size]
    if not term:
        return
    word = in_its_place(event, term, body, (), ["林远", "苏晴"], frozenset({"苏晴"}))
    if word is not None:
        assert word in body
        assert word.isalpha() and not set(word) & ((set(term) - LIGHT) or set(term))
        assert word != "苏晴"
        assert max(1, len(term) - 1) <= len(word) <= len(term) + 1
    assert changed_in_place(event, term, body) is (in_its_place(event, term, body) is not None)


@settings(max_examples=300, deadline=None)
@given(event=TEXT, body=TEXT)
def test_a_name_in_its_place_is_another_known_name(event: str, body: str) -> None:
    name = "林远" if "林远" in event else None
    if name is None:
        return
    other = name_in_its_place(event, name, body, frozenset({"苏晴", "叶青"}))
    assert other is None or (other in {"苏晴", "叶青"} and other in body)


@pytest.mark.parametrize(
    ("event", "body", "other"),
    [
        ("林远在山门前拔剑", "苏晴在山门前拔剑", "苏晴"),
        ("林远在山门前拔剑", "叶青儿在山门前拔剑", None),  # 叶青儿 is no card's name
        ("林远在山门前拔剑", "林远在山门前拔剑", None),
        ("林远在山门前拔剑", "苏晴在溪边煮茶", None),  # not the outline's words
    ],
)
def test_a_name_in_its_place(event: str, body: str, other: str | None) -> None:
    assert name_in_its_place(event, "林远", body, frozenset({"苏晴", "叶青"})) == other


@pytest.mark.parametrize(
    ("event", "term", "body", "word"),
    [
        # 儒林外史 chapters 19 and 36: a locative or a suffix kept is no variant
        ("你到省里来，和这些人相与做甚么", "省里", "你到城里来，和这些人相与做甚么", "城里"),
        ("远村上有一个姓郑的人家请他", "村上", "远身上有一个姓郑的人家请他", "身上"),
        # 骆驼祥子 chapter 7: the infix of a verb's complement
        ("曹先生害了怕，想不起说什么好", "想不起", "曹先生害了怕，拦不住说什么好", "拦不住"),
        # a word that keeps a character of the term's own is a variant of it
        ("他一刀斩断了石碑，转身就走", "斩断", "他一刀劈断了石碑，转身就走", None),
        ("他拜了师父，下山去了", "师父", "他拜了师傅，下山去了", None),
    ],
)
def test_a_kept_locative_or_suffix_makes_no_variant(
    event: str, term: str, body: str, word: str | None
) -> None:
    assert in_its_place(event, term, body) == word
