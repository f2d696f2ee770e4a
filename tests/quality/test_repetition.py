"""Whole-chapter repetition: degenerate output blocks, milder repetition advises, real prose
is clean (issue 18). Real text: small excerpts of the corpus novels in tests/fixtures/prose."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from muse.quality.repetition import body_repetition, repeated_ngram_ratio

PROSE = Path(__file__).parents[1] / "fixtures" / "prose"
XI = (PROSE / "xiyouji_excerpt.txt").read_text(encoding="utf-8").split("\n")
SAN = (PROSE / "sanguoyanyi_excerpt.txt").read_text(encoding="utf-8").split("\n")
REAL = [p for p in XI + SAN if p.strip()]
SENTENCE = "那人站在原地，一动不动地望着远方。"


@dataclass(frozen=True)
class Case:
    rule: str
    body: str
    severities: tuple[str, ...]  # of the repetition findings, in order
    baseline: tuple[str, ...] = ()
    previous: str | None = None


CASES = (
    Case("real prose has no repetition", "\n".join(REAL), ()),
    Case("11 distinct of 33 paragraphs blocks", "\n".join(REAL * 3), ("high", "medium", "high")),
    # (a short excerpt: one copy is also a third of its 12-grams, advice too)
    Case("one copied paragraph is advice", "\n".join([*REAL, REAL[0]]), ("medium", "medium")),
    Case("a sentence 5 times blocks", "\n".join([*REAL[:2], SENTENCE * 5]), ("high",)),
    Case("a sentence 3 times is advice", "\n".join([*REAL[:2], SENTENCE * 3]), ("medium",)),
    Case(
        "a line written 40 times back to back with no sentence end blocks",
        "\n".join([*REAL[:2], "曹先生害了怕，想不起说什么好，「你快，快──」" * 40, *REAL[2:]]),
        ("high", "high"),  # (the excerpt is short: the loop is also most of its 12-grams)
    ),
    Case(
        "a line written 3 times back to back is advice",
        "\n".join([*REAL[:2], "曹先生害了怕，想不起说什么好，「你快，快──」" * 3, *REAL[2:]]),
        ("medium",),
    ),
    Case(
        "a short sentence with its closing quote 5 times blocks",
        "\n".join([*REAL[:2], "「不会，我教给你！」" * 5, *REAL[2:]]),
        ("high",),
    ),
    Case(
        "a sentence 5 times, closed differently, blocks",
        "\n".join([*REAL[:2], "".join(SENTENCE.rstrip("。") + end for end in "。！。？！")]),
        ("high",),
    ),
    Case(
        "the previous chapter's first paragraph again blocks",
        "\n".join(REAL[1:]),
        ("high",),
        previous=REAL[1] + "\n" + REAL[0],
    ),
    Case(
        "the previous chapter's first sentence again is advice",
        "\n".join([REAL[1].split("。")[0] + "。众人听了，各自散去，无人再提此事。", *REAL[2:]]),
        ("medium",),
        previous=REAL[1],
    ),
    Case("a loop of one character blocks", "\n".join([*REAL, "啊" * 60 + "！"]), ("high",)),
    Case("a loop of a phrase blocks", "\n".join([*REAL, "不要走" * 25]), ("high",)),
    Case(
        "a shorter loop is advice",
        "\n".join([*REAL, "他喊道：“" + "不要走" * 10 + "！”"]),
        ("medium",),
    ),
    Case(
        "a chapter copied from the book's prose in the context blocks",
        "\n".join(XI[:6] + [SENTENCE]),
        ("high",),
        baseline=("\n".join(XI[:8]),),
    ),
    Case(
        "a passage copied from the context is advice",
        "\n".join(SAN + [XI[0]]),
        ("medium",),
        baseline=("\n".join(XI),),
    ),
    Case(
        "the same words laid out otherwise are still copied",
        "".join(XI[:6]).replace("，", "，\n"),
        ("high",),
        baseline=("\n".join(XI[:8]),),
    ),
    Case("a chapter the context does not hold is no copy", "\n".join(SAN), (), ("\n".join(XI),)),
    Case("a laugh in dialogue is no loop", "\n".join([*REAL, "“哈哈哈哈哈哈！”他笑道。"]), ()),
    Case("dots and dashes are no loop", "\n".join([*REAL, "他说不出话来……" * 1 + "…" * 30]), ()),
)


@pytest.mark.parametrize("case", CASES, ids=[c.rule for c in CASES])
def test_repetition(case: Case) -> None:
    findings = body_repetition(case.body, case.baseline, case.previous)
    assert tuple(f.severity for f in findings) == case.severities
    for f in findings:
        assert f.kind == "repetition"
        if f.start is not None:
            assert case.body[f.start : f.end] == f.quote


def test_the_ngram_threshold_follows_the_books_baseline() -> None:
    looped = "\n".join(REAL * 2)
    assert [f.severity for f in body_repetition(looped) if "整章重复度" in f.message] == ["high"]
    # a book whose own chapters repeat as much is judged by its own habit
    assert repeated_ngram_ratio(looped) > 0.5
    assert not [f for f in body_repetition(looped, [looped]) if "整章重复度" in f.message]
