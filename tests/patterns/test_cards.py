"""Pattern cards: public ones belong to no work, every content change is a new version."""

from __future__ import annotations

import pytest
from sqlalchemy import insert
from sqlalchemy.exc import IntegrityError

from muse.core.clock import utc_now
from muse.core.errors import InvalidInput, NotFound
from muse.patterns.builtin import builtin_pattern_files, install_builtin_patterns
from muse.patterns.cards import find_pattern, list_patterns, parse_pattern_files, save_pattern
from muse.patterns.contracts import PatternFile
from muse.patterns.tables import pattern_cards
from muse.works.catalog import create_work


def card(**changes) -> PatternFile:
    data = {
        "key": "cliffhanger",
        "name": "悬念收尾",
        "category": "钩子",
        "summary": "章末留悬念",
        "steps": ["收束冲突", "抛出变量"],
        "when_to_use": "每章结尾",
    }
    return PatternFile.model_validate(data | changes)


@pytest.fixture
def works(engine):
    with engine.begin() as conn:
        return create_work(conn, "甲"), create_work(conn, "乙")


def test_same_content_is_not_a_new_version_changed_content_is(engine):
    with engine.begin() as conn:
        first, created = save_pattern(conn, card())
        again, created_again = save_pattern(conn, card())
        second, _ = save_pattern(conn, card(summary="章末留一个具体的问题"))
    assert (created, created_again, again.id) == (True, False, first.id)
    assert (first.version, second.version, first.public) == (1, 2, True)
    assert first.content_sha256 != second.content_sha256
    with engine.connect() as conn:
        assert find_pattern(conn, 1, "cliffhanger").id == second.id
        assert find_pattern(conn, 1, "cliffhanger", version=1).id == first.id


def test_private_cards_are_seen_only_by_their_work(engine, works):
    a, b = works
    with engine.begin() as conn:
        save_pattern(conn, card(), work_id=a)
        save_pattern(conn, card(key="public-one"))
    with engine.connect() as conn:
        assert {p.key for p in list_patterns(conn, a)} == {"cliffhanger", "public-one"}
        assert {p.key for p in list_patterns(conn, b)} == {"public-one"}
        with pytest.raises(NotFound, match="私有范式"):
            find_pattern(conn, b, "cliffhanger", public=False)


def test_public_and_private_cards_with_one_key_version_independently(engine, works):
    a, _ = works
    with engine.begin() as conn:
        public, _ = save_pattern(conn, card())
        private, _ = save_pattern(conn, card(summary="私有版"), work_id=a)
    assert (public.version, private.version) == (1, 1)


def test_the_database_keeps_scope_and_work_consistent(engine, works):
    a, _ = works
    row = {
        "id": "pat_x",
        "key": "k",
        "version": 1,
        "name": "n",
        "category": "c",
        "content": {},
        "content_sha256": "0" * 64,
        "created_at": utc_now(),
    }
    for bad in ({"work_id": None, "scope": f"work:{a}"}, {"work_id": a, "scope": "public"}):
        with pytest.raises(IntegrityError), engine.begin() as conn:
            conn.execute(insert(pattern_cards).values(**row, **bad))


def test_builtin_cards_install_once(engine):
    with engine.begin() as conn:
        first = install_builtin_patterns(conn)
        second = install_builtin_patterns(conn)
    assert len(first) == len(builtin_pattern_files()) >= 5
    assert all(created for _, created in first) and not any(created for _, created in second)


def test_invalid_cards_name_card_and_field():
    with pytest.raises(InvalidInput, match="第 2 张卡字段「steps」"):
        parse_pattern_files(
            [card().model_dump(), {**card().model_dump(), "key": "b", "steps": []}], "f.yaml"
        )
