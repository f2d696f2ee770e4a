"""Model-free discovery: names proposed from the text alone, each with provable evidence."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from muse.knowledge.discovery import discover
from muse.knowledge.discovery_stats import NGramTable
from tests.knowledge.discovery_fixture import chapters


@pytest.fixture(scope="module")
def found():
    entities = discover([(n, body) for n, _, body in chapters()])
    return {e.name: e for e in entities}, entities


@dataclass(frozen=True)
class Expect:
    name: str
    type: str
    first_chapter: int


PEOPLE = [
    Expect("刘备", "character", 1),
    Expect("张飞", "character", 1),
    Expect("董卓", "character", 1),
    Expect("何进", "character", 1),  # a surname that is also a function word (何)
    Expect("皇甫嵩", "character", 1),
    Expect("曹操", "character", 2),
    Expect("袁绍", "character", 2),
    Expect("洛阳", "location", 1),
]


@pytest.mark.parametrize("case", PEOPLE, ids=lambda c: c.name)
def test_named_entities_are_found_with_their_first_chapter(found, case):
    by_name, _ = found
    entity = by_name[case.name]
    assert (entity.type, entity.first.chapter) == (case.type, case.first_chapter)


def test_first_and_last_occurrences_and_samples_point_into_the_text(found):
    by_name, _ = found
    texts = {n: body for n, _, body in chapters()}
    for entity in by_name.values():
        first = entity.first
        names = [entity.name, *(a.name for a in entity.aliases)]
        assert texts[first.chapter][first.start : first.end] in names
        earlier = [n for n in texts if n < first.chapter]
        assert not any(w in texts[n] for n in earlier for w in names)
        assert not any(w in texts[first.chapter][: first.start] for w in names)
        last = entity.last
        assert texts[last.chapter][last.start : last.end] in names
        for sample in entity.samples:
            quote = texts[sample.chapter][
                sample.quote_start : sample.quote_start + len(sample.quote)
            ]
            assert (
                quote == sample.quote and texts[sample.chapter][sample.start : sample.end] in quote
            )


def test_courtesy_names_are_suggested_as_aliases(found):
    by_name, _ = found
    assert [(a.name, a.basis) for a in by_name["刘备"].aliases] == [("玄德", "courtesy")]
    assert "玄德" not in by_name  # grouped, not a second entity


@pytest.mark.parametrize(
    "word", ["众人", "将军", "太守", "不知", "只见", "玄德曰", "大喜", "军马", "东南"]
)
def test_role_nouns_phrases_and_common_words_are_not_proposed(found, word):
    by_name, _ = found
    assert word not in by_name


def test_ordered_by_mentions_and_deterministic(found):
    _, entities = found
    counts = [e.mentions for e in entities]
    assert counts == sorted(counts, reverse=True)
    again = discover([(n, body) for n, _, body in reversed(chapters())])
    assert [(e.name, e.mentions, e.first) for e in again] == [
        (e.name, e.mentions, e.first) for e in entities
    ]


def test_ngram_statistics_separate_a_word_from_a_fragment():
    table = NGramTable(["孙悟空道：好。孙悟空笑。孙悟空走了，孙悟空叫，孙悟空来。"])
    stats = table.stats(["孙悟", "悟空"])
    assert stats["孙悟"].right_entropy == 0.0  # always followed by 空
    assert stats["悟空"].right_entropy > 1.0
    assert table.count("孙悟空") == 5 and table.cohesion("悟空") > 1.0


def test_no_text_no_entities():
    assert discover([]) == []
    assert discover([(1, "")]) == []


def test_the_offline_extractor_proposes_what_discovery_finds():
    from muse.knowledge.extraction_contracts import INPUT_SCHEMA, ChapterExtraction
    from muse.offline.extractor import extract_chapter

    _, _, text = chapters()[0]
    known = [{"name": "张飞", "type": "character", "aliases": []}]
    task = {"schemaVersion": INPUT_SCHEMA, "text": text, "knownCards": known}
    output = ChapterExtraction.model_validate(extract_chapter(task, ChapterExtraction))
    proposed = {c.name: c for c in output.cards}
    assert proposed["玄德"].type == "character" and proposed["玄德"].evidenceQuote in text
    assert "张飞" not in proposed  # a confirmed card is not proposed again
