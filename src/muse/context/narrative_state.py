"""narrativeState of the WriterContext (spec 000 §7.1), derived from what the book has approved.

As of the freeze point, from the approved fact ledger (through the as-of view, so nothing after
``as_of`` is read) and the facts approved for the last canonical chapter (its extraction):

* **character positions**: each subject's latest ``location`` fact;
* **place**: the last ``location`` fact of the last chapter;
* **time**: the last ``entity_state`` fact of the last chapter whose attribute is a time word
  (时间/时辰/日期/季节/天色) — the six fact types have no time type of their own;
* **immediate situation**: the facts of the last chapter, in order, as short clauses.

Each value carries its source (ledger row, chapter, quote). Whatever cannot be derived stays null
with the reason in ``unknown``; nothing is inferred from prose by guesswork.
"""

from __future__ import annotations

from collections.abc import Sequence

from muse.context.contracts import NarrativeSource, NarrativeState
from muse.knowledge import LedgerEntry

TIME_ATTRIBUTES = ("时间", "时辰", "日期", "季节", "天色", "时令")
SITUATION_FACTS = 6


def _source(field: str, value: str, entry: LedgerEntry) -> NarrativeSource:
    return NarrativeSource(
        field=field,
        value=value,
        chapter=entry.chapter,
        ledger_id=entry.id,
        quote=entry.evidence_quote,
    )


def _clause(entry: LedgerEntry) -> str:
    p = entry.payload
    kind = entry.type.value if hasattr(entry.type, "value") else str(entry.type)
    if kind == "location":
        return f"{entry.subject}在{p.get('location')}"
    if kind == "possession":
        return f"{entry.subject}{p.get('change', '')}{p.get('item')}"
    if kind == "entity_state":
        return f"{entry.subject}{p.get('attribute')}：{p.get('value')}"
    if kind == "relation":
        return f"{entry.subject}与{p.get('target')}{p.get('change', '')}{p.get('relation')}关系"
    if kind == "knowledge":
        return f"{entry.subject}得知{p.get('knows')}"
    return f"{entry.subject}：{p.get('ability', '')}（代价 {p.get('cost', '')}）"


def _kind(entry: LedgerEntry) -> str:
    return entry.type.value if hasattr(entry.type, "value") else str(entry.type)


def derive_narrative_state(
    ledger: Sequence[LedgerEntry], as_of: int, previous_tail: str
) -> NarrativeState:
    """The narrative state at ``as_of`` from ``ledger`` (already limited to chapters ≤ as_of)."""
    facts = [e for e in ledger if e.chapter <= as_of]
    last = [e for e in facts if e.chapter == as_of]
    sources: list[NarrativeSource] = []
    unknown: dict[str, str] = {}
    positions: dict[str, str] = {}
    for e in facts:
        if _kind(e) == "location" and e.payload.get("location"):
            positions[e.subject] = str(e.payload["location"])
    for e in facts:
        if _kind(e) == "location" and positions.get(e.subject) == e.payload.get("location"):
            sources = [s for s in sources if s.field != f"position:{e.subject}"]
            sources.append(_source(f"position:{e.subject}", positions[e.subject], e))
    if not positions:
        unknown["characterPositions"] = f"截至第 {as_of} 章，事实台账没有已批准的「所在」事实。"
    place = _last(last, lambda e: _kind(e) == "location", "location")
    if place:
        sources.append(_source("place", place[0], place[1]))
    else:
        unknown["place"] = f"第 {as_of} 章没有已批准的「所在」事实，地点未知。"
    time = _last(
        last,
        lambda e: _kind(e) == "entity_state" and e.payload.get("attribute") in TIME_ATTRIBUTES,
        "value",
    )
    if time:
        sources.append(_source("time", time[0], time[1]))
    else:
        unknown["time"] = f"第 {as_of} 章没有已批准的时间类状态事实（六型事实不含时间），时间未知。"
    situation = None
    if last:
        recent = last[-SITUATION_FACTS:]
        situation = "；".join(_clause(e) for e in recent)
        sources += [_source("situation", _clause(e), e) for e in recent]
    else:
        unknown["immediateSituation"] = (
            f"第 {as_of} 章没有已批准的抽取事实（章后抽取未做或未批准），即时局面未知。"
        )
    return NarrativeState(
        as_of_chapter=as_of,
        previous_chapter_tail=previous_tail,
        time=time[0] if time else None,
        place=place[0] if place else None,
        character_positions=positions,
        immediate_situation=situation,
        sources=tuple(sources),
        unknown=unknown,
        provenance=(
            "上一章结尾原文；时间、地点、人物位置与即时局面取自截至冻结点已批准的事实台账"
            "（每项附来源），推不出的标明未知及原因。"
        ),
    )


def _last(entries: Sequence[LedgerEntry], keep, key: str) -> tuple[str, LedgerEntry] | None:
    for e in reversed(entries):
        if keep(e) and e.payload.get(key):
            return str(e.payload[key]), e
    return None
