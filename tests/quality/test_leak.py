"""The leak lexicon: which names are in the future of the freeze point, from where, how cheaply,
and that it never reaches the writer."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import event

from muse.context.as_of import AsOfView
from muse.core.errors import InvalidInput
from muse.quality.entities import build_entity_lexicon
from muse.quality.leak import build_leak_lexicon

from .named_book import AS_OF, FUTURE, named  # noqa: F401  (the fixture)


def test_future_cards_aliases_drafts_and_unproven_debuts_are_leak_terms(engine, named):  # noqa: F811
    with engine.connect() as conn:
        lexicon = build_leak_lexicon(conn, named.work_id, AS_OF)
    got = {t: (v.first_chapter, v.origin, v.card_name) for t, v in lexicon.terms.items()}
    assert got == {
        "韩立": (12, "card", "韩立"),
        "韩老魔": (12, "alias", "韩立"),  # alias of a future card
        "林师兄": (12, "alias", "林远"),  # a known card's alias that appears only later
        "小明": (15, "card", "小明"),
        "白无常": (None, "card", "白无常"),  # misplaced debut: never provably exists
        "血煞老祖": (20, "card", "血煞老祖"),  # a draft card counts too
    }
    assert lexicon.known == {"林远", "苏晴", "王小明", "赵铁柱"}
    assert all(lexicon.terms[t].card_id for t in FUTURE)


def test_a_later_freeze_point_turns_leak_terms_into_known_names(engine, named):  # noqa: F811
    with engine.connect() as conn:
        lexicon = build_leak_lexicon(conn, named.work_id, 12)
    assert set(lexicon.terms) == {"小明", "白无常", "血煞老祖"}
    assert {"韩立", "韩老魔", "林师兄"} <= lexicon.known


def test_known_names_agree_with_the_as_of_view_at_every_freeze_point(engine, named):  # noqa: F811
    with engine.connect() as conn:
        for as_of in range(0, 22):
            known = build_entity_lexicon(conn, named.work_id, as_of).terms
            states = AsOfView(conn, named.work_id, as_of).card_states
            existing = {s.name for s in states} | {a for s in states for a in s.aliases}
            confirmed = {k for k, v in known.items() if v.card_name != "血煞老祖"}
            assert confirmed == existing, as_of


def test_harness_terms_join_the_lexicon_with_their_chapter(engine, named):  # noqa: F811
    with engine.connect() as conn:
        lexicon = build_leak_lexicon(
            conn, named.work_id, AS_OF, extra_terms=[("紫霄殿", 11), "青冥剑", ("赵铁柱", 30)]
        )
    assert lexicon.terms["紫霄殿"].first_chapter == 11
    assert lexicon.terms["紫霄殿"].origin == "harness"
    assert lexicon.terms["青冥剑"].first_chapter is None
    assert "赵铁柱" in lexicon and "赵铁柱" not in lexicon.known  # the harness overrides a card
    assert "第 11 章" in lexicon.terms["紫霄殿"].describe()


def test_a_harness_term_dated_before_the_freeze_is_refused(engine, named):  # noqa: F811
    with engine.connect() as conn, pytest.raises(InvalidInput, match="不晚于冻结点"):
        build_leak_lexicon(conn, named.work_id, AS_OF, extra_terms=[("紫霄殿", AS_OF)])


def test_building_the_lexicon_takes_two_queries(engine, named):  # noqa: F811
    statements: list[str] = []
    mine: list = []

    def count(conn, cursor, statement, *args):
        if conn in mine:  # not the card book's background store, on its own connection
            statements.append(statement)

    event.listen(engine, "before_cursor_execute", count)
    try:
        with engine.connect() as conn:
            mine.append(conn)
            build_leak_lexicon(conn, named.work_id, AS_OF)
    finally:
        event.remove(engine, "before_cursor_execute", count)
    assert len([s for s in statements if s.lstrip().upper().startswith("SELECT")]) == 2


def test_the_lexicon_never_reaches_the_writer_context(engine, named):  # noqa: F811
    with engine.connect() as conn:
        lexicon = build_leak_lexicon(conn, named.work_id, AS_OF, extra_terms=[("紫霄殿", 11)])
    wire = json.dumps(named.context.wire(), ensure_ascii=False)
    assert len(lexicon) == len(FUTURE) + 1
    assert "林远" in wire and "王小明" in wire  # the known names are there: the check can fail
    for name in sorted(lexicon.known, key=len, reverse=True):
        wire = wire.replace(name, "□")  # 小明 inside 王小明 is not the future 小明
    assert [t for t in lexicon.terms if t in wire] == []
