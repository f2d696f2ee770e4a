"""Discovered entities → machine-proposed card drafts (拆书 without a model; spec 001 §2).

:func:`discover_work` runs :func:`muse.knowledge.discovery.discover` over the work's canonical
chapters and stores each proposal as a *draft* (ARCHITECTURE.md principle 2: nothing here is
confirmed; only the author's decision is):

* the type is a guess; every required field is an explicit doubt (「拆书发现：正文未写明」), never
  an invented value;
* a 登场 milestone at the chapter of the first occurrence, proved by a source reference to that
  sentence (spec 000 §5.2: a milestone carries a provable chapter number), and references to up
  to three sample sentences;
* suggested aliases go into the draft with the chapter they first occur in, so the author sees
  and confirms (or edits) them with the card;
* ``origin`` is ``extract`` and ``origin_detail`` says ``method: discovery``,
  ``machineProposed: true``, with the mention count, first and last occurrence and the evidence.

Idempotent: a name that any card of the work already uses (confirmed, pending, merged or
rejected: the author's rejection is respected) is reported ``known`` and not proposed again, so a
re-run never duplicates a draft and never touches a confirmed card.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, select
from sqlalchemy.exc import IntegrityError

from muse.core.errors import InvalidInput, MuseError
from muse.knowledge.card_types import card_type
from muse.knowledge.contracts import Alias, CardField, CardSpec, Cycle, Milestone, SourceRef
from muse.knowledge.discovery import DiscoveredEntity, Occurrence, discover
from muse.knowledge.drafts import submit_draft
from muse.knowledge.source_refs import ChapterTexts, make_source_ref
from muse.knowledge.tables import cards
from muse.works import iter_chapter_texts

DISCOVERY_DOUBT = "拆书发现：正文未写明，待作者补充"
METHOD = "discovery"


@dataclass(frozen=True)
class DiscoveryItem:
    name: str
    type: str
    mentions: int
    first_chapter: int
    first_offset: int
    last_chapter: int
    last_offset: int
    aliases: list[dict[str, Any]]
    samples: list[dict[str, Any]]
    evidence: list[str]
    status: str  # new | known
    draft_id: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "type": self.type,
            "mentions": self.mentions,
            "first": {"chapter": self.first_chapter, "offset": self.first_offset},
            "last": {"chapter": self.last_chapter, "offset": self.last_offset},
            "aliases": self.aliases,
            "samples": self.samples,
            "evidence": self.evidence,
            "status": self.status,
            "draftId": self.draft_id,
        }


@dataclass
class DiscoveryReport:
    work_id: int
    chapters: tuple[int, int] | None
    chapter_count: int
    items: list[DiscoveryItem] = field(default_factory=list)

    def count(self, status: str) -> int:
        return sum(1 for i in self.items if i.status == status)

    def to_json(self) -> dict[str, Any]:
        return {
            "workId": self.work_id,
            "chapters": list(self.chapters) if self.chapters else None,
            "chapterCount": self.chapter_count,
            "proposed": self.count("new"),
            "known": self.count("known"),
            "items": [i.to_json() for i in self.items],
        }


def parse_chapter_range(text: str | None) -> tuple[int, int] | None:
    """``A-B`` (or a single ``N``) → (A, B); None for no range. Refuses anything else."""
    if text is None or not text.strip():
        return None
    parts = text.replace("－", "-").replace("—", "-").split("-")
    try:
        numbers = [int(p.strip()) for p in parts]
    except ValueError:
        raise InvalidInput(
            f"章节范围「{text}」无法识别。", hint="写成 A-B，例如 --chapters 1-100。"
        ) from None
    if len(numbers) == 1:
        numbers *= 2
    if len(numbers) != 2 or numbers[0] < 1 or numbers[1] < numbers[0]:
        raise InvalidInput(
            f"章节范围「{text}」无效：须为 A-B 且 1 ≤ A ≤ B。", hint="例如 --chapters 1-100。"
        )
    return numbers[0], numbers[1]


def _chapters(
    conn: Connection, work_id: int, span: tuple[int, int] | None
) -> list[tuple[int, str]]:
    texts = [(c.number, c.text) for c in iter_chapter_texts(conn, work_id, upto=span and span[1])]
    if span:
        texts = [(n, t) for n, t in texts if n >= span[0]]
    if not texts:
        where = f"第 {span[0]}–{span[1]} 章" if span else "作品"
        raise InvalidInput(f"{where}没有正文章节，无从发现。", hint="先用 muse import 导入书稿。")
    return texts


def _known_names(conn: Connection, work_id: int) -> set[str]:
    """Every name and alias any card of the work holds, whatever its status."""
    names: set[str] = set()
    for name, aliases in conn.execute(
        select(cards.c.name, cards.c.aliases).where(cards.c.work_id == work_id)
    ):
        names.add(name)
        names.update(a["name"] for a in aliases or [])
    return names


def _sentence_ref(texts: ChapterTexts, o: Occurrence) -> SourceRef:
    return make_source_ref(texts, o.chapter, o.quote_start, o.quote_start + len(o.quote))


def _spec(entity: DiscoveredEntity, texts: ChapterTexts, aliases: list[Alias]) -> CardSpec:
    kind = card_type(entity.type)
    first = _sentence_ref(texts, entity.first)
    refs = [first] + [
        r for r in (_sentence_ref(texts, o) for o in entity.samples) if r.start != first.start
    ]
    debut = Milestone(
        chapter=entity.first.chapter,
        step="登场",
        cycle=Cycle.debut,
        description="拆书发现：首次出现",
        refs=[first],
    )
    fields = {f.key: CardField(doubt=DISCOVERY_DOUBT) for f in kind.fields if f.required}
    return CardSpec(
        type=kind.key,
        name=entity.name,
        aliases=aliases,
        fields=fields,
        milestones=[debut],
        refs=refs[:3],
    )


def _aliases(entity: DiscoveredEntity, locate: Callable[[str], int | None]) -> list[Alias]:
    out = []
    for suggestion in entity.aliases:
        since = locate(suggestion.name)
        later = since is not None and since > entity.first.chapter
        out.append(Alias(name=suggestion.name, since_chapter=since if later else None))
    return out


def _item(entity: DiscoveredEntity, status: str, draft_id: str | None) -> DiscoveryItem:
    return DiscoveryItem(
        name=entity.name,
        type=entity.type,
        mentions=entity.mentions,
        first_chapter=entity.first.chapter,
        first_offset=entity.first.start,
        last_chapter=entity.last.chapter,
        last_offset=entity.last.start,
        aliases=[
            {"name": a.name, "basis": a.basis, "mentions": a.mentions} for a in entity.aliases
        ],
        samples=[
            {"chapter": o.chapter, "start": o.start, "end": o.end, "quote": o.quote}
            for o in entity.samples
        ],
        evidence=list(entity.evidence),
        status=status,
        draft_id=draft_id,
    )


def _detail(entity: DiscoveredEntity) -> dict[str, Any]:
    item = _item(entity, "new", None).to_json()
    return {
        "method": METHOD,
        "machineProposed": True,
        "mentions": entity.mentions,
        "first": item["first"],
        "last": item["last"],
        "aliasSuggestions": item["aliases"],
        "evidence": item["evidence"],
    }


def discover_work(
    conn: Connection,
    work_id: int,
    *,
    chapters: tuple[int, int] | None = None,
    store: bool = True,
    min_mentions: int = 1,
) -> DiscoveryReport:
    """Discover the work's named entities and (``store``) propose the new ones as drafts."""
    texts_in = _chapters(conn, work_id, chapters)
    report = DiscoveryReport(work_id, chapters, len(texts_in))
    texts = ChapterTexts(conn, work_id)
    known = _known_names(conn, work_id)

    def first_chapter(word: str) -> int | None:
        return next((n for n, t in texts_in if word in t), None)

    for entity in discover(texts_in):
        if entity.mentions < min_mentions:
            continue
        if known.intersection([entity.name, *(a.name for a in entity.aliases)]):
            report.items.append(_item(entity, "known", None))
            continue
        draft_id = None
        if store:
            draft_id = _store(conn, work_id, entity, texts, _aliases(entity, first_chapter))
            if draft_id is None:
                report.items.append(_item(entity, "known", None))
                continue
        known.add(entity.name)
        known.update(a.name for a in entity.aliases)
        report.items.append(_item(entity, "new", draft_id))
    return report


def _store(
    conn: Connection,
    work_id: int,
    entity: DiscoveredEntity,
    texts: ChapterTexts,
    aliases: list[Alias],
) -> str | None:
    try:
        spec = _spec(entity, texts, aliases)
    except MuseError:
        return None
    try:
        with conn.begin_nested():
            outcome = submit_draft(
                conn, work_id, spec, origin="extract", origin_detail=_detail(entity), keyed=True
            )
    except IntegrityError:  # an extraction worker stored this entity's draft meanwhile
        return None
    return outcome.draft_id if outcome.status in ("new", "update") else None
