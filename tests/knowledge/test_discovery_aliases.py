"""Alias grouping from the book's own naming sentences (西游记 sentences, copied verbatim).

Discovery proposes 「悟能」 and 「八戒」 as one person only if the text says so: a naming verb with
the named person as its subject, a chain of naming clauses about one subject, a full name made of
a stated surname and given name, or one surname with two words for one role. Two people named in
one sentence (「你师兄叫做悟空，你叫做悟能」) are never joined.
"""

from __future__ import annotations

from pathlib import Path

from muse.knowledge.discovery_aliases import naming_edges, synonym_edges
from muse.knowledge.discovery_scoring import introductions

DISCIPLES = {"悟空", "行者", "悟能", "八戒", "悟净", "沙和尚", "孙行者", "红孩儿", "圣婴大王"}


def _pairs(texts: list[str], people: set[str] = DISCIPLES) -> set[frozenset[str]]:
    return {frozenset((a, b)) for a, b, _ in naming_edges(texts, people)}


def test_a_naming_verb_joins_its_subject_and_the_name() -> None:
    text = "贫僧又将悟空叫做行者，悟能叫做八戒，悟净叫做和尚。"
    assert _pairs([text]) == {frozenset(("悟空", "行者")), frozenset(("悟能", "八戒"))}


def test_a_chain_of_naming_clauses_is_one_subject() -> None:
    texts = [
        "三徒弟姓沙，法名悟净，臣又呼他为沙和尚。",
        "牛魔王使他来镇守号山，乳名叫做红孩儿，号叫做圣婴大王。",
    ]
    assert _pairs(texts) == {frozenset(("悟净", "沙和尚")), frozenset(("红孩儿", "圣婴大王"))}


def test_two_subjects_in_one_sentence_are_never_joined() -> None:
    text = "三藏笑道：“好，好！你师兄叫做悟空，你叫做悟能，其实是我法门中的宗派。”"
    assert _pairs([text]) == set()


def test_a_name_that_is_not_a_proposed_person_joins_nothing() -> None:
    assert _pairs(["大徒弟姓孙，法名悟空，臣又呼他为孙行者。"], {"悟空"}) == set()


def test_surname_and_given_name_make_a_full_name_and_state_the_given_name() -> None:
    intros = introductions(
        ["第二个徒弟姓沙，法名悟净，他生得身长丈二。", "姓猪，法名悟能，又呼他为猪八戒。"]
    )
    assert ("沙悟净", "悟净") in intros.given and ("猪悟能", "悟能") in intros.given
    assert {"沙", "猪"} <= intros.surnames
    assert intros.strong("悟净")  # the verb 「悟」 does not make it a phrase
    assert not intros.strong("法名")


def test_a_name_introduced_twice_is_stated() -> None:
    intros = introductions(["乳名叫做红孩儿，号叫做圣婴大王。", "名字唤做红孩儿，号圣婴大王。"])
    assert intros.strong("红孩儿")
    assert not intros.strong("做红孩儿")


def test_one_surname_with_two_words_for_one_role() -> None:
    edges = {frozenset((a, b)) for a, b, _ in synonym_edges({"沙僧", "沙和尚", "唐僧", "张飞"})}
    assert edges == {frozenset(("沙僧", "沙和尚"))}


def test_a_title_used_alone_as_a_name_is_the_alias_of_the_name_written_before_it() -> None:
    """西游记 names its teacher once (「称名须菩提祖师」) and then only 「祖师道」: discovery
    proposes 须菩提 with the alias 祖师, first seen where the full form is written."""
    from muse.knowledge.discovery import discover
    from muse.works.book_parser import parse_book

    book = Path(__file__).resolve().parents[1] / "fixtures" / "books" / "xiyouji_head.txt"
    chapters = [(c.number, c.body) for c in parse_book(book.read_text("utf-8")).chapters]
    named = "樵夫道：“不远不远，此山叫做灵台方寸山，山中有座斜月三星洞，那洞中有一个神仙，称名须菩提祖师。"
    number, text = chapters[0]
    chapters[0] = (number, text + "\n" + named)
    [teacher] = [e for e in discover(chapters) if "祖师" in {e.name, *(a.name for a in e.aliases)}]
    assert teacher.name == "须菩提" and teacher.type == "character"
    assert [(a.name, a.basis) for a in teacher.aliases] == [("祖师", "title")]
    assert teacher.first.chapter == 1


def test_a_title_no_name_is_written_with_stays_unproposed() -> None:
    """Without 「须菩提祖师」 the bare title is not proposed: it could be anyone's."""
    from muse.knowledge.discovery import discover
    from muse.works.book_parser import parse_book

    book = Path(__file__).resolve().parents[1] / "fixtures" / "books" / "xiyouji_head.txt"
    chapters = [(c.number, c.body) for c in parse_book(book.read_text("utf-8")).chapters]
    names = {n for e in discover(chapters) for n in (e.name, *(a.name for a in e.aliases))}
    assert "祖师" not in names
