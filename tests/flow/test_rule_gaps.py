"""Rules that a deliberately broken line of code must make a test fail (issue 19, "Gaps"):
each test sits exactly on the boundary of one rule, on both sides of it."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from pydantic import ValidationError
from sqlalchemy import select

from muse.context.output_contracts import WriterOutput
from muse.core.errors import InvalidInput, StaleTransition
from muse.evaluation.contracts import JudgeScores
from muse.flow.author_edit import load_context
from muse.flow.production import write_chapter
from muse.flow.tables import candidates
from muse.knowledge.first_appearance import TermAppearance
from muse.planning.checks_lower import outline_size
from muse.planning.contracts import FineOutline
from muse.quality import mechanical
from muse.quality.leak import leak_lexicon_from
from muse.store.cas import compare_and_set
from muse.works.catalog import create_work
from muse.works.tables import works
from tests.support.marked_book import NEXT
from tests.support.plans import fine

# -- the claim range check has an upper bound ----------------------------------------------------


@pytest.fixture
def written(engine, book):
    summary = write_chapter(engine, book, NEXT, provider="offline", model="offline-1")
    with engine.connect() as conn:
        cand = (
            conn.execute(select(candidates).where(candidates.c.id == summary.candidate_id))
            .mappings()
            .one()
        )
        context = load_context(conn, cand["context_snapshot_id"])
    return context, WriterOutput.model_validate(cand["writer_output"])


def _with_range(output: WriterOutput, start: int, end: int) -> WriterOutput:
    first = output.claim_ledger[0].model_copy(
        update={"start_code_point": start, "end_code_point": end}
    )
    return output.model_copy(update={"claim_ledger": (first, *output.claim_ledger[1:])})


def _range_findings(context, output) -> list[str]:
    return [f.kind for f in mechanical.check(context, output, []) if f.kind == "claim_range"]


def test_a_claim_range_must_end_inside_the_body(written):
    context, output = written
    n = len(output.candidate_body)
    assert _range_findings(context, _with_range(output, n - 1, n)) == []  # the last character
    assert _range_findings(context, _with_range(output, n - 1, n + 1)) == ["claim_range"]
    assert _range_findings(context, _with_range(output, n, n + 1)) == ["claim_range"]
    assert _range_findings(context, _with_range(output, 3, 3)) == ["claim_range"]  # empty
    assert _range_findings(context, _with_range(output, 5, 4)) == ["claim_range"]


# -- the future-leak check covers the target chapter itself --------------------------------------


def _appearance(term: str, chapter: int | None) -> TermAppearance:
    return TermAppearance(term, f"card-{term}", term, "人物", "confirmed", "name", chapter, "debut")


def test_a_name_first_appearing_in_the_target_chapter_is_a_leak():
    as_of = 10
    lexicon = leak_lexicon_from(
        [_appearance("今日客", as_of + 1), _appearance("昨日客", as_of)], 1, as_of
    )
    assert "今日客" in lexicon and lexicon.terms["今日客"].first_chapter == as_of + 1
    assert "昨日客" not in lexicon and "昨日客" in lexicon.known
    harness = leak_lexicon_from([], 1, as_of, [("本章人", as_of + 1)])
    assert "本章人" in harness
    with pytest.raises(InvalidInput):
        leak_lexicon_from([], 1, as_of, [("旧人", as_of)])


# -- compare-and-set refuses a zero-row update on both backends ----------------------------------


def test_compare_and_set_refuses_an_update_that_changes_no_row(engine):
    with engine.begin() as conn:
        work_id = create_work(conn, "书")
    with engine.begin() as conn:
        with pytest.raises(StaleTransition):
            compare_and_set(
                conn, works, where={"id": work_id, "title": "别的书"}, values={"title": "改"}
            )
        with pytest.raises(StaleTransition):
            compare_and_set(conn, works, where={"id": work_id + 999}, values={"title": "改"})
        compare_and_set(conn, works, where={"id": work_id, "title": "书"}, values={"title": "新"})
    with engine.connect() as conn:
        assert conn.execute(select(works.c.title)).scalar() == "新"


# -- the fine outline's size bounds (3 %–5 % of the chapter target) ------------------------------


@pytest.mark.parametrize(
    ("size", "kinds"),
    [(89, ["outline_thin"]), (90, []), (150, []), (151, ["outline_too_long"])],
)
def test_the_fine_outline_ratio_bounds_sit_exactly_at_3_and_5_percent(size, kinds):
    outline = FineOutline.model_validate(fine(1, size=size))  # target 3000 characters
    view = SimpleNamespace(lengths_before=lambda chapter: [], work_default_chars=3000)
    assert [f.code for f in outline_size(view, outline, None)] == kinds


# -- judge scores move in steps of 0.5 -----------------------------------------------------------


def _scores(value: float) -> dict:
    dim = {"score": value, "reason": "理由", "quotes": []}
    names = ("settingFidelity", "outlineFidelity", "narrativeTension")
    dims = {n: dim for n in (*names, "styleConsistency", "proseQuality")}
    return {"candidates": [{"candidateLabel": "A", "dimensions": dims}]}


@pytest.mark.parametrize("value", [1, 1.5, 3.5, 5])
def test_a_judge_score_on_the_half_step_is_accepted(value):
    JudgeScores.model_validate(_scores(value))


@pytest.mark.parametrize("value", [3.3, 3.25, 4.75, 0.5, 5.5])
def test_a_judge_score_off_the_half_step_is_refused(value):
    with pytest.raises(ValidationError):
        JudgeScores.model_validate(_scores(value))
