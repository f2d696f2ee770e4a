"""Bulk review of drafts: a 拆书 of a long book proposes hundreds; the author decides by group.

* :func:`group_drafts` gathers the pending drafts that are about one entity — the same type and a
  shared name or alias (a discovery draft and the extraction drafts of several batches) — with
  the evidence: mention count (from discovery), first chapter, sample quotes, open conflicts.
* :func:`select_groups` filters by type and by a minimum mention count; :func:`confirm_groups` and
  :func:`reject_groups` decide every draft of the selected groups. Confirmation goes through
  :func:`muse.knowledge.drafts.confirm_draft` one draft after another, so the first creates the
  card, the next ones merge what they add and queue what contradicts (never overwriting); a draft
  with an open conflict is left for the author and reported.
* :func:`merge_drafts` makes the entity of one draft an alias of another's before either is
  confirmed (「玄德」 and 「刘备」 are one person): the kept draft gains the other's names and
  references, the other is rejected with a note saying where it went.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection

from muse.core.errors import InvalidInput
from muse.knowledge.card_state import debut_of
from muse.knowledge.card_types import card_type
from muse.knowledge.cards import get_card, rewrite_card, spec_of
from muse.knowledge.contracts import Alias, Card, Draft, DraftOutcome
from muse.knowledge.drafts import confirm_draft, list_drafts, reject_draft


@dataclass
class DraftGroup:
    name: str
    type: str
    aliases: list[str]
    mentions: int | None  # from discovery; None: no draft of the group says
    first_chapter: int | None
    drafts: list[Draft] = field(default_factory=list)
    quotes: list[dict[str, Any]] = field(default_factory=list)

    @property
    def open_conflicts(self) -> int:
        return sum(d.open_conflicts for d in self.drafts)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "type": self.type,
            "aliases": self.aliases,
            "mentions": self.mentions,
            "firstChapter": self.first_chapter,
            "openConflicts": self.open_conflicts,
            "drafts": [d.id for d in self.drafts],
            "origins": sorted({str(d.origin_detail.get("method", d.origin)) for d in self.drafts}),
            "evidence": self.quotes,
        }


def _names(card: Card) -> set[str]:
    return {card.name, *(a.name for a in card.aliases)}


def group_drafts(conn: Connection, work_id: int) -> list[DraftGroup]:
    """Pending drafts grouped by entity, most mentioned first, then by first chapter and name."""
    pending = list_drafts(conn, work_id)
    shadows = {d.id: get_card(conn, d.card_id) for d in pending}
    parent = {d.id: d.id for d in pending}

    def root(i: str) -> str:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    owner: dict[tuple[str, str], str] = {}
    for d in pending:
        for name in _names(shadows[d.id]):
            other = owner.setdefault((d.type, name), d.id)
            parent[root(d.id)] = root(other)
    members: dict[str, list[Draft]] = {}
    for d in pending:
        members.setdefault(root(d.id), []).append(d)
    groups = [_group(ds, shadows) for ds in members.values()]
    return sorted(groups, key=lambda g: (-(g.mentions or 0), g.first_chapter or 0, g.name))


def _group(drafts: list[Draft], shadows: dict[str, Card]) -> DraftGroup:
    discovered = [d for d in drafts if d.origin_detail.get("method") == "discovery"]
    lead = shadows[(discovered or drafts)[0].id]
    names = {n for d in drafts for n in _names(shadows[d.id])}
    debuts = [c for d in drafts if (c := debut_of(shadows[d.id]).chapter) is not None]
    mentions = [
        int(d.origin_detail["mentions"]) for d in discovered if "mentions" in d.origin_detail
    ]
    quotes = [
        {"chapter": r.chapter, "start": r.start, "end": r.end, "quote": r.quote}
        for d in drafts
        for r in shadows[d.id].refs[:2]
    ]
    return DraftGroup(
        name=lead.name,
        type=lead.type,
        aliases=sorted(names - {lead.name}),
        mentions=max(mentions) if mentions else None,
        first_chapter=min(debuts) if debuts else None,
        drafts=drafts,
        quotes=quotes[:3],
    )


def select_groups(
    groups: list[DraftGroup], *, type_key: str | None = None, min_mentions: int | None = None
) -> list[DraftGroup]:
    """The groups of ``type_key`` (a key or its Chinese label) mentioned at least ``min_mentions``
    times (a group discovery did not count has no mention count and is never selected by it)."""
    kind = card_type(type_key).key if type_key else None
    return [
        g
        for g in groups
        if (kind is None or g.type == kind)
        and (min_mentions is None or (g.mentions is not None and g.mentions >= min_mentions))
    ]


def confirm_groups(conn: Connection, groups: list[DraftGroup]) -> list[DraftOutcome]:
    """Confirm every draft of ``groups`` that has no open conflict, in the order stored."""
    outcomes = []
    for group in groups:
        for draft in sorted(group.drafts, key=lambda d: (d.created_at, d.id)):
            if draft.open_conflicts == 0:
                outcomes.append(confirm_draft(conn, draft.id))
    return outcomes


def reject_groups(
    conn: Connection, groups: list[DraftGroup], *, note: str | None = None
) -> list[DraftOutcome]:
    return [reject_draft(conn, d.id, note=note) for g in groups for d in g.drafts]


def merge_drafts(conn: Connection, work_id: int, keep_id: str, other_id: str) -> DraftOutcome:
    """The entity of draft ``other_id`` becomes an alias of draft ``keep_id``'s (same type)."""
    pending = {d.id: d for d in list_drafts(conn, work_id)}
    for draft_id in (keep_id, other_id):
        if draft_id not in pending:
            raise InvalidInput(
                f"草稿 {draft_id} 不是本作品待确认的草稿。", hint="用 muse drafts 查看草稿 ID。"
            )
    if keep_id == other_id:
        raise InvalidInput("不能把草稿并入它自己。")
    keep, other = pending[keep_id], pending[other_id]
    if keep.type != other.type:
        raise InvalidInput(
            f"「{keep.name}」是{card_type(keep.type).label}，「{other.name}」是"
            f"{card_type(other.type).label}：类型不同，不能合并为别名。",
            hint="先驳回其中一张，或编辑后再合并。",
        )
    shadow, absorbed = get_card(conn, keep.card_id), get_card(conn, other.card_id)
    rewrite_card(conn, shadow, _with_aliases(shadow, absorbed))
    reject_draft(conn, other_id, note=f"作为别名并入草稿 {keep_id}（{keep.name}）")
    return DraftOutcome(status="merged", draft_id=keep_id, card_id=shadow.id, name=shadow.name)


def _with_aliases(shadow: Card, absorbed: Card):
    spec = spec_of(shadow)
    debut = debut_of(shadow).chapter
    since = debut_of(absorbed).chapter
    later = since if since is not None and debut is not None and since > debut else None
    have = _names(shadow)
    added = [
        Alias(name=n, since_chapter=later)
        for n in [absorbed.name, *(a.name for a in absorbed.aliases)]
        if n not in have
    ]
    refs = spec.refs + [r for r in absorbed.refs if r not in spec.refs]
    return spec.model_copy(update={"aliases": [*spec.aliases, *added], "refs": refs})
