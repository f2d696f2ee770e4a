"""The replay lexicon from the later chapters: names no card knows, found by the model-free
discovery, given to the future-leak gate only — never to the writer, never in a revision list."""

from __future__ import annotations

import json

from sqlalchemy import select

from muse.evaluation.lexicon import discovered_terms, replay_lexicon
from muse.evaluation.sample_state import zone_engine
from muse.evaluation.tables import eval_arms
from muse.works.canonical import add_chapter
from muse.works.catalog import create_work
from tests.evaluation.harness import BOOKS, book_text

from .harness import set_yaml
from .test_whole_runs import _run

ONE = BOOKS[0]
NEWCOMER = "韩千机"  # a canary name: first written in chapter 6, on no card


def _later(n: int, first: int = 6) -> str:
    if n < first:
        return ""
    return (
        f"\n山门外来了一人，名叫{NEWCOMER}。{NEWCOMER}道：“我在此等候多时。”"
        f"林远问{NEWCOMER}从何处来，{NEWCOMER}笑道：“从山那边来。”"
    )


def _book(engine, first: int = 6) -> int:
    with engine.begin() as conn:
        work_id = create_work(conn, ONE, default_chapter_chars=2500)
        for n in range(1, 9):
            add_chapter(conn, work_id, n, f"第{n}章", book_text(n) + _later(n, first))
    return work_id


def test_the_lexicon_knows_later_names_that_no_card_has(engine):
    work_id = _book(engine)
    with engine.connect() as conn:
        at_5 = dict(replay_lexicon(conn, work_id, 5))
        at_6 = dict(replay_lexicon(conn, work_id, 6))
    assert at_5[NEWCOMER] == 6  # first appearance after the freeze point, from the oracle
    assert NEWCOMER not in at_6  # at as_of 6 it is no longer a future name
    assert all(first > 5 for first in at_5.values())


def test_a_phrase_used_here_and_there_is_not_a_name():
    chapters = [(n, "众人齐声叫好，又各自散去。" + "山路漫长。" * 5) for n in range(1, 6)]
    chapters += [(6, f"{NEWCOMER}道：“来了。”{NEWCOMER}说：“走。”{NEWCOMER}笑道：“好。”")]
    terms = discovered_terms(chapters)
    assert "齐声" not in terms


def test_a_later_name_is_caught_and_never_reaches_the_writer(engine, router, stub):
    _book(engine)

    def use_newcomer(draft, task_input):
        assert NEWCOMER not in json.dumps(task_input, ensure_ascii=False)  # gate only
        draft["paragraphs"].append(f"他早听说过{NEWCOMER}的名头。")
        return draft

    router.writer_edit = use_newcomer
    report = _run(engine, router, set_yaml("lexicon-canary", {ONE: 1}))
    arms = report["samples"][0]["arms"]
    for arm in "ABC":
        check = arms[arm]["check"]
        assert check["futureLeaks"] >= 1, (arm, check)
    c = arms["C"]["check"]
    assert c["attempts"] == 1 and c["runState"] == "blocked_user_action"  # no rewrite from it
    writer_requests = [
        json.dumps(r.body, ensure_ascii=False)
        for r in stub.requests
        if "你是「质量评委」" not in json.dumps(r.body, ensure_ascii=False)
        and "你是「检测员」" not in json.dumps(r.body, ensure_ascii=False)
    ]
    assert writer_requests and all(NEWCOMER not in body for body in writer_requests)
    with zone_engine(engine).connect() as conn:
        stored = [row.check for row in conn.execute(select(eval_arms))]
    leaks = [f["message"] for c in stored for f in c["findings"] if f["kind"] == "future_leak"]
    assert len(leaks) == 3 and all(NEWCOMER in m and "第 6 章" in m for m in leaks)


def test_a_later_name_the_outline_itself_writes_is_no_leak(engine, router):
    """The preregistered outline is given to the writer: a name it writes (or a longer word
    containing the term) cannot have come from the oracle."""
    import yaml

    _book(engine, first=7)  # first written after the target chapter: no debut exemption
    doc = yaml.safe_load(set_yaml("lexicon-outline", {ONE: 1}))
    doc["samples"][0]["fineOutline"]["hard_constraints"]["hard_events"].append(
        {"id": "H2", "text": f"众人在{NEWCOMER}阁外等候"}
    )

    def use_newcomer(draft, task_input):
        draft["paragraphs"].append(f"他早听说过{NEWCOMER}阁的名头。")
        return draft

    router.writer_edit = use_newcomer
    report = _run(engine, router, yaml.safe_dump(doc, allow_unicode=True, sort_keys=False))
    for arm in "ABC":
        assert report["samples"][0]["arms"][arm]["check"]["futureLeaks"] == 0
