"""The offline provider's extractor: deterministic post-chapter extraction from the text alone.

For the demo, dry runs and tests (no network; same input, same output). It has no language
understanding: it splits the chapter into sentences and matches a few plain patterns around the
names of the confirmed cards it is given (and their aliases), so every quote it returns is a
verbatim sentence of the chapter:

  「X来到/到了/抵达/回到/进入/走进/登上 Y」      location      X is now at Y
  「X获得/得到/拿到/捡到 Y」「X失去/丢失 Y」     possession    X gains / loses Y
  「X突破到/突破至/晋升为/踏入 Y」              entity_state  境界 = Y
  「X受了/身受 重伤/轻伤/内伤」                 entity_state  伤势
  「X得知/知道了/听说 Y」                        knowledge     X knows Y
  「X拜 Z 为师」                                 relation      Z is X's 师父
  「X是 Y。」 (sentence start, a character)      card field    身份 = Y
  「名叫 N 的」                                  new card      a character named N
  a name model-free discovery finds (discovery.py)  new card      its type guess, first sentence

It never stands in for checking logic: the extraction step verifies its quotes like any model's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel

from muse.agents import builtin_generator
from muse.knowledge import BATCH_INPUT_SCHEMA, INPUT_SCHEMA, ChapterExtraction, discover

OFFLINE_FINDING = "【离线模式】本抽取由离线提供方按固定句式确定性生成，不代表模型抽取能力。"
_SENTENCE = re.compile(r"[^。！？!?\n]+[。！？!?]?")
_OBJECT = r"(?P<o>[^，。！？!?、；：“”\s]{2,12})"
DISCOVERY_MIN_MENTIONS = 3
_NEW_NAME = re.compile(r"名叫(?P<n>[\u4e00-\u9fff]{2,3})的")


def sentences(text: str) -> Iterator[str]:
    """The chapter's sentences, each a verbatim substring of ``text``."""
    for match in _SENTENCE.finditer(text):
        sentence = match.group().strip()
        if sentence:
            yield sentence


def _names_pattern(names: list[str]) -> str:
    return "(?P<s>" + "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True)) + ")"


def _fact_rules(subject: str) -> list[tuple[re.Pattern[str], dict[str, Any]]]:
    def rule(verbs: str, tail: str = _OBJECT) -> re.Pattern[str]:
        return re.compile(subject + f"(?:{verbs})了?(?:一[枚把块本颗件张只柄道])?" + tail)

    return [
        (rule("来到|到了|抵达|回到|进入|走进|登上"), {"type": "location", "previous": None}),
        (rule("获得|得到|拿到|捡到"), {"type": "possession", "change": "获得"}),
        (rule("失去|丢失"), {"type": "possession", "change": "失去"}),
        (rule("突破到|突破至|晋升为|踏入"), {"type": "entity_state", "attribute": "境界"}),
        (rule("受了|身受", "(?P<o>重伤|轻伤|内伤)"), {"type": "entity_state", "attribute": "伤势"}),
        (rule("得知|知道了|听说"), {"type": "knowledge", "learnedFrom": None}),
    ]


_OBJECT_KEY = {
    "location": "location",
    "possession": "item",
    "entity_state": "value",
    "knowledge": "knows",
}


def _facts(text: str, canonical: dict[str, str]) -> list[dict[str, Any]]:
    if not canonical:
        return []
    subject = _names_pattern(list(canonical))
    rules = _fact_rules(subject)
    master = re.compile(
        subject + "拜" + _names_pattern(list(canonical)).replace("?P<s>", "?P<t>") + "为师"
    )
    found = []
    for sentence in sentences(text):
        for pattern, template in rules:
            for m in pattern.finditer(sentence):
                fact = {**template, _OBJECT_KEY[template["type"]]: m.group("o")}
                found.append(_fact(canonical[m.group("s")], sentence, fact))
        for m in master.finditer(sentence):
            fact = {
                "type": "relation",
                "target": canonical[m.group("t")],
                "relation": "师父",
                "change": "建立",
            }
            found.append(_fact(canonical[m.group("s")], sentence, fact))
    return found


def _fact(subject: str, quote: str, fact: dict[str, Any]) -> dict[str, Any]:
    return {**fact, "subject": subject, "evidenceQuote": quote, "confidence": "high"}


def _cards(text: str, known: list[dict[str, Any]]) -> list[dict[str, Any]]:
    cards = []
    names = {n for c in known for n in [c["name"], *c["aliases"]]}
    for card in known:
        if card["type"] != "character":
            continue
        identity = re.compile(
            _names_pattern([card["name"], *card["aliases"]]) + "是" + _OBJECT + "[。！]?$"
        )
        for sentence in sentences(text):
            m = identity.match(sentence)
            if m:
                cards.append(_card(card["name"], sentence, [("identity", m.group("o"), sentence)]))
                break
    for sentence in sentences(text):
        for m in _NEW_NAME.finditer(sentence):
            name = m.group("n")
            if name not in names:
                names.add(name)
                cards.append(_card(name, sentence, [("summary", sentence, sentence)]))
    return cards + _discovered(text, names)


def _discovered(text: str, names: set[str]) -> list[dict[str, Any]]:
    """New entities model-free discovery finds in the chapter, quoted by their first sentence."""
    out = []
    for entity in discover([(1, text)]):
        aliases = [a.name for a in entity.aliases]
        if entity.mentions < DISCOVERY_MIN_MENTIONS or names.intersection([entity.name, *aliases]):
            continue
        names.add(entity.name)
        card = _card(entity.name, entity.first.quote, [])
        out.append({**card, "type": entity.type, "aliases": aliases})
    return out


def _card(name: str, quote: str, fields: list[tuple[str, str, str]]) -> dict[str, Any]:
    return {
        "type": "character",
        "name": name,
        "aliases": [],
        "fields": [{"key": k, "value": v, "evidenceQuote": q} for k, v, q in fields],
        "evidenceQuote": quote,
        "confidence": "high",
    }


@builtin_generator("extractor", "extract")
def extract_chapter(task_input: dict[str, Any], model: type[BaseModel]) -> dict[str, Any] | None:
    """ChapterExtraction (as a dict) for a post-chapter extraction input; declines anything else."""
    if model is not ChapterExtraction:
        return None
    if task_input.get("schemaVersion") == BATCH_INPUT_SCHEMA:  # 拆书: several chapters at once
        texts = [c["text"] for c in task_input.get("chapters") or []]
    elif task_input.get("schemaVersion") == INPUT_SCHEMA:
        texts = [task_input["text"]]
    else:
        return None
    known = task_input.get("knownCards") or []
    canonical = {n: c["name"] for c in known for n in [c["name"], *c["aliases"]]}
    cards: list[dict[str, Any]] = []
    facts: list[dict[str, Any]] = []
    for text in texts:
        cards += [c for c in _cards(text, known) if c["name"] not in {k["name"] for k in cards}]
        facts += _facts(text, canonical)
    return {"cards": cards, "facts": facts, "designFindings": [OFFLINE_FINDING]}
