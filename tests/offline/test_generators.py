"""Each offline generator answers exactly the production contract of its (role, task).

A generator builds its reply through the contract class (``muse.offline.wire.emit``), so the
reply validates into that contract and re-emitting the validated contract gives the same wire
dict: nothing more, nothing less, under the wire names. A renamed or retyped contract field
fails here, inside the generator, not later in a repair round of some run. Each generator also
declines an output model it does not own, so the schema fallback answers those.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from pydantic import BaseModel

from muse.context.explore.contracts import EXPLORE_INPUT_VERSION, ExploreDraft
from muse.context.output_contracts import WriterDraft
from muse.core.text import count_han
from muse.evaluation.contracts import JudgeScores
from muse.knowledge.extraction_contracts import INPUT_SCHEMA, ChapterExtraction
from muse.offline import detector, explorer, extractor, judge, planner, writer
from muse.offline.wire import emit
from muse.planning.contracts import FineOutline
from muse.quality.contracts import DetectorReport

HARD = {
    "required_entities": [{"id": "E1", "name": "林远"}, {"id": "E2", "name": "沈烈"}],
    "hard_events": [{"id": "H1", "text": "林远在山门前拦下沈烈"}],
    "foreshadowing": [
        {
            "id": "F1",
            "action": "埋",
            "thread": "玉佩",
            "text": "埋下伏笔「玉佩」",
            "cards": ["玉佩"],
        }
    ],
    "result_direction": {"id": "R1", "text": "两人约定三日后再战"},
    "chapter_end_hook": {"id": "K1", "text": "山门外传来一声钟响"},
}
WRITER_INPUT = {
    "schemaVersion": "writer-context-v1",
    "fineOutline": {"title": "第5章", "hard_constraints": HARD, "adjustable_beats": []},
    "outputContract": {"lengthTarget": {"targetChars": 600}, "generationBand": [500, 700]},
}
EXPLORE_INPUT = {
    "schemaVersion": EXPLORE_INPUT_VERSION,
    "asOf": 4,
    "fineOutline": WRITER_INPUT["fineOutline"],
}
EXTRACT_INPUT = {
    "schemaVersion": INPUT_SCHEMA,
    "text": "林远来到青石镇。林远获得一枚玉佩。一个名叫周青的少年跟在后面。",
    "knownCards": [{"type": "character", "name": "林远", "aliases": []}],
}
PLAN_INPUT = {"chapter": 5, "variant": 1, "confirmed": {}, "chapterTargetChars": 3000}
JUDGE_INPUT = {
    "candidates": [{"label": "甲", "text": "雨声扑面而来。"}, {"label": "乙", "text": ""}]
}


@dataclass(frozen=True)
class Case:
    name: str
    generate: Any
    task_input: dict[str, Any]
    contract: type[BaseModel]


CASES = [
    Case("writer", writer.write_chapter, WRITER_INPUT, WriterDraft),
    Case("explorer", explorer.explore_reads, EXPLORE_INPUT, ExploreDraft),
    Case("extractor", extractor.extract_chapter, EXTRACT_INPUT, ChapterExtraction),
    Case("planner", planner.generate, PLAN_INPUT, FineOutline),
    Case("detector", detector.check, {}, DetectorReport),
    Case("judge", judge.score, JUDGE_INPUT, JudgeScores),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_the_reply_is_exactly_the_production_contract(case: Case) -> None:
    reply = case.generate(case.task_input, case.contract)
    assert reply is not None
    assert emit(case.contract.model_validate(reply)) == reply


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_another_output_model_is_declined(case: Case) -> None:
    class Other(BaseModel):
        text: str

    assert case.generate(case.task_input, Other) is None


def test_the_writer_keeps_every_hard_constraint_with_a_located_claim() -> None:
    draft = WriterDraft.model_validate(writer.write_chapter(WRITER_INPUT, WriterDraft))
    body = "\n".join(draft.paragraphs)
    assert [c.constraint_id for c in draft.claims] == ["H1", "F1", "R1", "K1"]
    assert all(c.quote in body for c in draft.claims)
    assert draft.self_check.covered_constraint_ids == ("H1", "F1", "R1", "K1")
    assert count_han(body) <= 700


def test_the_explorer_reads_the_previous_chapter_cards_and_threads() -> None:
    draft = ExploreDraft.model_validate(explorer.explore_reads(EXPLORE_INPUT, ExploreDraft))
    reads = [(r.tool, r.number or r.name or r.query) for r in draft.reads]
    assert reads[0] == ("read_chapter", 4)
    assert ("get_card", "玉佩") in reads and ("search_prose", "玉佩") in reads
    assert reads[-1] == ("get_style", None)


def test_the_extractor_quotes_the_chapter_verbatim() -> None:
    extraction = ChapterExtraction.model_validate(
        extractor.extract_chapter(EXTRACT_INPUT, ChapterExtraction)
    )
    facts = {(f.type, f.evidenceQuote) for f in extraction.facts}
    assert ("location", "林远来到青石镇。") in facts
    assert ("possession", "林远获得一枚玉佩。") in facts
    assert "周青" in {c.name for c in extraction.cards}


def test_the_judge_scores_each_candidate_in_half_steps() -> None:
    sheet = JudgeScores.model_validate(judge.score(JUDGE_INPUT, JudgeScores))
    assert [c.candidateLabel for c in sheet.candidates] == ["甲", "乙"]
    first, second = sheet.candidates
    assert first.dimensions.proseQuality.quotes == ["雨声扑面而来。"]
    assert second.dimensions.proseQuality.quotes == []
    assert {d.score * 2 % 1 for d in first.dimensions.__dict__.values()} == {0}
