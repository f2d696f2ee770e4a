"""Comparing a draft with the confirmed card it would update: additions versus contradictions.

Pure functions over card content. A draft may *add* to a confirmed card (a field the card lacks,
a doubted field now answered, list items, aliases, milestones, relations, references) — those
merge on confirmation. It may also *contradict* it; a contradiction is never merged silently,
it goes to the conflict queue with both sides and their evidence:

  field     both hold a value for a text field and the values differ (list fields only add);
  relation  a single-valued kind (父亲, 所属 …) with another target, or two kinds that cannot
            both hold between the same two cards (盟友/敌对, 师父/徒弟 …; card_types.yaml);
  debut     both date the 登场, at different chapters;
  plan      both hold a growth arc, an ending direction or an end state, and they differ.

The author resolves each: keep (the confirmed side stays), replace (the draft's side wins), or
merge (both: texts joined or the author's own text, relations and milestones side by side).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any, Literal

from pydantic import BaseModel

from muse.core.contract import UnaliasedContract
from muse.core.text import normalize_text
from muse.knowledge.card_types import card_type, registry
from muse.knowledge.contracts import (
    Alias,
    CardField,
    CardSpec,
    Cycle,
    Milestone,
    Relation,
    SourceRef,
)

Resolution = Literal["keep", "replace", "merge"]
MERGE_JOINER = "；"


class Contradiction(UnaliasedContract):
    kind: Literal["field", "relation", "debut", "plan"]
    subject: str
    confirmed_side: dict[str, Any]
    draft_side: dict[str, Any]


def _same(a: object, b: object) -> bool:
    if isinstance(a, str) and isinstance(b, str):
        return normalize_text(a).strip() == normalize_text(b).strip()
    return a == b


def _union_refs(a: Sequence[SourceRef], b: Sequence[SourceRef]) -> list[SourceRef]:
    seen = {(r.chapter, r.start, r.end) for r in a}
    return [*a, *(r for r in b if (r.chapter, r.start, r.end) not in seen)]


def _later(a: int | None, b: int | None) -> int | None:
    dates = [d for d in (a, b) if d is not None]
    return max(dates) if dates else None


def _dump(items: Sequence[BaseModel]) -> list[dict[str, Any]]:
    return [i.model_dump(mode="json") for i in items]


# --- fields --------------------------------------------------------------------------------


def _merge_field(kind_type: str, key: str, mine: CardField, theirs: CardField) -> CardField | None:
    """The merged field, or None when the two contradict."""
    if theirs.value is None:
        return mine
    if mine.value is None:
        return theirs
    definition = card_type(kind_type).field(key)
    refs = _union_refs(mine.refs, theirs.refs)
    if definition is not None and definition.list:
        old = mine.value if isinstance(mine.value, list) else [mine.value]
        new = theirs.value if isinstance(theirs.value, list) else [theirs.value]
        added = [v for v in new if not any(_same(v, o) for o in old)]
        since = _later(mine.since_chapter, theirs.since_chapter) if added else mine.since_chapter
        return mine.model_copy(
            update={"value": [*old, *added], "refs": refs, "since_chapter": since}
        )
    if _same(mine.value, theirs.value):
        return mine.model_copy(update={"refs": refs})
    return None


def _field_side(value: CardField | None) -> dict[str, Any]:
    return value.model_dump(mode="json") if value is not None else {}


# --- relations -----------------------------------------------------------------------------


def _contradicted_by(rel: Relation, existing: Sequence[Relation]) -> list[Relation]:
    rules = registry().relations
    return [
        old
        for old in existing
        if (old.kind == rel.kind and rel.kind in rules.single and not _same(old.target, rel.target))
        or (_same(old.target, rel.target) and rules.excludes(old.kind, rel.kind))
    ]


def relation_subject(rel: Relation) -> str:
    return f"relation:{rel.kind}→{rel.target}"


def _debuts(spec: CardSpec) -> list[Milestone]:
    return [m for m in spec.milestones if m.cycle is Cycle.debut and m.chapter is not None]


def _milestone_key(m: Milestone) -> tuple[int | None, Cycle, str, str]:
    return (
        m.chapter,
        m.cycle,
        normalize_text(m.step).strip(),
        normalize_text(m.description).strip(),
    )


# --- comparison ----------------------------------------------------------------------------


def compare_cards(
    confirmed: CardSpec,
    draft: CardSpec,
    *,
    skip: Collection[str] = (),
) -> tuple[CardSpec, list[Contradiction]]:
    """``confirmed`` with every addition of ``draft`` merged in, and the contradictions left out.

    Subjects in ``skip`` (already decided by the author) are neither merged nor reported.
    """
    contradictions: list[Contradiction] = []
    fields = dict(confirmed.fields)
    for key, theirs in draft.fields.items():
        subject = f"field:{key}"
        field = _merge_field(confirmed.type, key, fields[key], theirs) if key in fields else theirs
        if field is not None:
            fields[key] = field
        elif subject not in skip:
            contradictions.append(
                Contradiction(
                    kind="field",
                    subject=subject,
                    confirmed_side=_field_side(fields[key]),
                    draft_side=_field_side(theirs),
                )
            )
    relations = list(confirmed.relations)
    for rel in draft.relations:
        relations, found = _add_relation(relations, rel, confirmed.relations, skip)
        contradictions += found
    milestones, found = _add_milestones(confirmed, draft, skip)
    contradictions += found
    plan, found = _merge_plan(confirmed, draft, skip)
    contradictions += found
    aliases = list(confirmed.aliases)
    names = {confirmed.name, *(a.name for a in aliases)}
    # a draft found through an alias keeps the name it was written under, as an alias
    for alias in [Alias(name=draft.name), *draft.aliases]:
        if alias.name not in names:
            aliases.append(alias)
            names.add(alias.name)
    merged = confirmed.model_copy(
        update=dict(
            fields=fields,
            relations=relations,
            milestones=milestones,
            aliases=aliases,
            refs=_union_refs(confirmed.refs, draft.refs),
            **plan,
        )
    )
    return merged, contradictions


def _add_relation(
    relations: list[Relation], rel: Relation, original: Sequence[Relation], skip: Collection[str]
) -> tuple[list[Relation], list[Contradiction]]:
    same = [
        i
        for i, old in enumerate(relations)
        if old.kind == rel.kind and _same(old.target, rel.target)
    ]
    if same:
        i = same[0]
        relations[i] = relations[i].model_copy(
            update={"refs": _union_refs(relations[i].refs, rel.refs)}
        )
        return relations, []
    against = _contradicted_by(rel, original)
    if not against:
        return [*relations, rel], []
    if relation_subject(rel) in skip:
        return relations, []
    return relations, [
        Contradiction(
            kind="relation",
            subject=relation_subject(rel),
            confirmed_side={"relations": _dump(against)},
            draft_side={"relations": _dump([rel])},
        )
    ]


def _add_milestones(
    confirmed: CardSpec, draft: CardSpec, skip: Collection[str]
) -> tuple[list[Milestone], list[Contradiction]]:
    milestones = list(confirmed.milestones)
    known = {_milestone_key(m): i for i, m in enumerate(milestones)}
    theirs_debut = [m for m in _debuts(draft) if _milestone_key(m) not in known]
    mine_debut = _debuts(confirmed)
    conflict = bool(
        theirs_debut
        and mine_debut
        and {m.chapter for m in theirs_debut} != {m.chapter for m in mine_debut}
    )
    found = []
    if conflict and "debut" not in skip:
        found.append(
            Contradiction(
                kind="debut",
                subject="debut",
                confirmed_side={"milestones": _dump(mine_debut)},
                draft_side={"milestones": _dump(theirs_debut)},
            )
        )
    for m in draft.milestones:
        key = _milestone_key(m)
        if key in known:
            i = known[key]
            milestones[i] = milestones[i].model_copy(
                update={"refs": _union_refs(milestones[i].refs, m.refs)}
            )
        elif not (conflict and m in theirs_debut):
            known[key] = len(milestones)
            milestones.append(m)
    return milestones, found


PLAN_KEYS = ("growth_arc", "ending_direction", "end_state")


def _merge_plan(
    confirmed: CardSpec, draft: CardSpec, skip: Collection[str]
) -> tuple[dict[str, Any], list[Contradiction]]:
    plan: dict[str, Any] = {}
    found = []
    for key in PLAN_KEYS:
        mine, theirs = getattr(confirmed, key), getattr(draft, key)
        if not theirs or _same(_plain(mine), _plain(theirs)):
            continue
        if not mine:
            plan[key] = theirs
        elif f"plan:{key}" not in skip:
            found.append(
                Contradiction(
                    kind="plan",
                    subject=f"plan:{key}",
                    confirmed_side={"value": _plain(mine)},
                    draft_side={"value": _plain(theirs)},
                )
            )
    return plan, found


def _plain(value: object) -> object:
    return _dump(value) if isinstance(value, list) else value


# --- resolution ----------------------------------------------------------------------------


def apply_resolution(
    confirmed: CardSpec,
    draft: CardSpec,
    subject: str,
    resolution: Resolution,
    value: str | None = None,
) -> CardSpec:
    """``confirmed`` after the author's decision on one contradicted ``subject``."""
    if resolution == "keep":
        return confirmed
    kind, _, key = subject.partition(":")
    if kind == "field":
        return _resolve_field(confirmed, draft, key, resolution, value)
    if kind == "relation":
        theirs = [r for r in draft.relations if relation_subject(r) == subject]
        drop = _contradicted_by(theirs[0], confirmed.relations) if resolution == "replace" else []
        kept = [r for r in confirmed.relations if r not in drop]
        return confirmed.model_copy(update={"relations": [*kept, *theirs[:1]]})
    if kind == "debut":
        keep = [
            m
            for m in confirmed.milestones
            if not (resolution == "replace" and m.cycle is Cycle.debut)
        ]
        added = [m for m in _debuts(draft) if m not in keep]
        return confirmed.model_copy(update={"milestones": [*keep, *added]})
    return _resolve_plan(confirmed, draft, key, resolution, value)


def _resolve_field(
    confirmed: CardSpec, draft: CardSpec, key: str, resolution: Resolution, value: str | None
) -> CardSpec:
    mine, theirs = confirmed.fields[key], draft.fields[key]
    if resolution == "replace":
        new = theirs
    else:
        text = value if value is not None else f"{mine.value}{MERGE_JOINER}{theirs.value}"
        new = CardField(
            value=normalize_text(text),
            since_chapter=_later(mine.since_chapter, theirs.since_chapter),
            refs=_union_refs(mine.refs, theirs.refs),
        )
    return confirmed.model_copy(update={"fields": {**confirmed.fields, key: new}})


def _resolve_plan(
    confirmed: CardSpec, draft: CardSpec, key: str, resolution: Resolution, value: str | None
) -> CardSpec:
    mine, theirs = getattr(confirmed, key), getattr(draft, key)
    if resolution == "replace":
        new = theirs
    elif key == "growth_arc":
        new = [*mine, *(s for s in theirs if s not in mine)]
        new.sort(key=lambda s: (s.chapter is None, s.chapter or 0))
    else:
        new = normalize_text(value) if value is not None else f"{mine}{MERGE_JOINER}{theirs}"
    return confirmed.model_copy(update={key: new})
