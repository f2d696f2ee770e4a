"""Assembling and freezing the WriterContext v1 (spec 000 §7.1).

Order of work: plan → reads through the AsOfView → replayed exploration reads folded in →
manifest → evidence and coverage → length target and narrative baseline → the context,
validated strictly → its snapshot hash → stored. The writer receives nothing that is not in this
object. With ``exploration``/``replayed`` (the two-phase writer, spec 001 §5) the manifest of the
explore phase and what each of its reads became are part of the context and of its hash; with
``author_words`` the round's item 7 is too (spec 001 §2.3).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, cast

from sqlalchemy import Connection

from muse.context import evidence
from muse.context.as_of import AsOfView
from muse.context.baseline import measure
from muse.context.card_hits import card_index_version
from muse.context.contracts import (
    AuthorizationRef,
    ContextSnapshotRef,
    EvidenceCoverage,
    OutputContract,
    TokenBudget,
    WriterContext,
)
from muse.context.explore import (
    ExplorationManifest,
    ReplayedRead,
    check_replayed,
    fold_replayed,
)
from muse.context.manifest import build_manifest
from muse.context.narrative_state import derive_narrative_state
from muse.context.prevention import prevention_from_style
from muse.context.retrieval_plan import (
    BASELINE_CHAPTERS,
    DEFAULT_BUDGET,
    build_plan,
    plan_id,
    sized_budget,
)
from muse.context.round_order import author_instruction
from muse.context.search import refresh_index
from muse.context.sources import collect
from muse.context.tables import context_snapshots
from muse.context.validation import validate_references
from muse.core.canonical import hash_value
from muse.core.clock import iso, utc_now
from muse.core.errors import ContractViolation
from muse.core.ids import new_id
from muse.core.length_target import ChapterLength, Density, LengthTarget, compute_length_target
from muse.planning import FineOutline
from muse.store.prepared import Prepared
from muse.works import AuthorizationSnapshot, get_work_row

QUALITY_POLICY_VERSION = "writer-production-v1"
TAIL_CHARS = 300
DECLARATION_RULE = (
    "新增地名、能力、组织、人物身份、代际、战绩或关系等正式事实，必须写入 newSettingDeclarations，"
    "不得直接当作已确认事实写进正文。"
)
NOT_YET_INDEXED = "检索索引尚未建成：此查询未执行，由检索议题补全（不是空结果）。"


@dataclass(frozen=True)
class FrozenContext:
    snapshot_id: str
    context: WriterContext
    blocking: tuple[EvidenceCoverage, ...]


def _length(view: AsOfView, outline: FineOutline, work_default: int) -> LengthTarget:
    hc = outline.hard_constraints
    density = Density(
        hard_event_count=len(hc.hard_events),
        foreshadowing_action_count=len(hc.foreshadowing),
        required_scene_count=len(hc.required_scenes),
    )
    lengths = [
        ChapterLength(number=n, han_count=h)
        for n, h in view.recent_valid_lengths(outline.target_chapter)
    ]
    return compute_length_target(
        lengths,
        outline.target_chapter,
        work_default=work_default,
        density=density,
        explicit_target_chars=outline.target_chars,
    )


def snapshot_sha256(context_wire: dict[str, Any]) -> str:
    """contextSnapshotSha256: the context without its own hash and generation time."""
    data = dict(context_wire)
    snap = dict(data["contextSnapshot"])
    snap.pop("sha256", None)
    snap.pop("generatedAt", None)
    data["contextSnapshot"] = snap
    return hash_value(data)


def freeze_context(
    conn: Connection,
    *,
    work_id: int,
    outline: FineOutline,
    outline_section_id: str,
    run_id: str,
    attempt: int,
    as_of: int,
    authorization: AuthorizationSnapshot,
    mode: Literal["production", "diagnostic_only"] = "production",
    store: bool = True,
    budget: TokenBudget | None = None,
    exploration: ExplorationManifest | None = None,
    replayed: Sequence[ReplayedRead] | None = None,
    author_words: str | None = None,
    round_number: int = 1,
) -> FrozenContext:
    """Build, validate, hash and store the WriterContext for ``outline.target_chapter``.

    ``store=False`` builds the same frozen context without writing it (the context viewer).
    ``exploration`` and ``replayed`` (both or neither): the explore phase's manifest and its
    deterministic replay; ``author_words``/``round_number``: item 7 of the round (round 2 and
    later need the author's words).
    """
    target = outline.target_chapter
    if as_of >= target:
        raise ContractViolation(f"冻结点（第 {as_of} 章）必须早于目标章（第 {target} 章）。")
    if (exploration is None) != (replayed is None):
        raise ContractViolation("探索清单与回放结果必须一起提供：清单要先确定性回放，才能冻结。")
    instruction = (
        author_instruction(round_number, author_words)
        if author_words is not None or round_number != 1
        else None
    )
    work = get_work_row(conn, work_id)
    view = AsOfView(conn, work_id, as_of)
    if exploration is not None and replayed is not None:
        check_replayed(view, outline, exploration, replayed)
    chapters = view.chapters(view.previous_chapters(target, BASELINE_CHAPTERS))
    plan = build_plan(
        outline,
        run_id=run_id,
        work_id=work_id,
        as_of=as_of,
        card_index_version=card_index_version(view),
        prose_index_version=refresh_index(conn, work_id),
        budget=sized_budget(budget or DEFAULT_BUDGET, chapters),
    )
    pack = collect(view, outline, plan, chapters)
    materials = fold_replayed(
        pack, replayed or (), plan.token_budget, {c.number for c in chapters}, as_of
    )
    for chapter, revision in _revisions(replayed or ()):
        pack.read_revisions.setdefault(chapter, revision)
    facts = evidence.declared_facts(outline, outline_section_id) + pack.facts
    prose_facts, coverage_rows = evidence.coverage(
        outline,
        facts,
        chapters,
        pack.matched,
        pack.card_facts,
        pack.card_prose,
        view.cards_in_conflict(),
    )
    length = _length(view, outline, work.default_chapter_chars)
    draft = WriterContext(
        run_id=run_id,
        attempt=attempt,
        mode=mode,
        quality_policy_version=QUALITY_POLICY_VERSION,
        work_id=work_id,
        target_chapter=target,
        as_of=as_of,
        context_snapshot=ContextSnapshotRef(manifest_id="", sha256="", generated_at=""),
        source_version=work.source_version,
        authorization_snapshot=AuthorizationRef(
            id=authorization.id,
            purpose=authorization.purpose.value,
            revalidated_at=authorization.created_at,
        ),
        source_status=cast(Literal["active"], work.source_status),  # the contract checks it
        retrieval_plan=plan,
        manifest=build_manifest(plan_id(plan), pack.sources, pack.omitted, pack.hits),
        fine_outline=outline.model_dump(mode="json"),
        narrative_state=derive_narrative_state(
            view.fact_ledger(),
            as_of,
            chapters[-1].text[-TAIL_CHARS:] if chapters else "",
        ),
        fact_evidence=tuple(facts + prose_facts),
        prose_evidence=tuple(pack.prose),
        evidence_coverage=tuple(coverage_rows),
        output_contract=OutputContract(
            length_target=length.to_dict(),
            generation_band=(length.generation_band.low, length.generation_band.high),
            acceptance_band=(length.acceptance_band.low, length.acceptance_band.high),
            declaration_rule=DECLARATION_RULE,
            narrative_baseline=measure(chapters),
        ),
        style_constraints=pack.style,
        prevention=prevention_from_style(pack.style),
        pattern_references=tuple(pack.patterns),
        token_budget=plan.token_budget,
        omitted_sources=tuple(pack.omitted),
        exploration=exploration,
        replayed_materials=tuple(materials),
        author_instruction=instruction,
    )
    validate_references(draft)
    return store_context(conn, draft, pack.read_revisions, store)


def _revisions(replayed: Sequence[ReplayedRead]) -> list[tuple[int, int]]:
    """(chapter, revision) of every prose source the replay read (accept preflight re-checks)."""
    return [
        (p.chapter, int(p.version[1:]))
        for r in replayed
        for p in r.sources
        if p.chapter is not None and p.version.startswith("r")
    ]


_INSERT_SNAPSHOT = Prepared(
    context_snapshots.insert(),
    keys=(
        *("id", "run_id", "attempt", "work_id", "target_chapter", "as_of", "plan_id"),
        *("manifest_id", "sha256", "chapter_revisions", "payload", "created_at"),
    ),
)


def store_context(
    conn: Connection, draft: WriterContext, read_revisions: dict[int, int], store: bool
) -> FrozenContext:
    wire = draft.wire()
    wire["contextSnapshot"] = {
        "manifestId": draft.manifest.manifest_id,
        "sha256": "",
        "generatedAt": iso(utc_now()),
    }
    wire["contextSnapshot"]["sha256"] = snapshot_sha256(wire)
    context = WriterContext.model_validate(wire)
    snapshot_id = new_id("ctx")
    blocking = tuple(evidence.blocking(list(context.evidence_coverage)))
    if not store:
        return FrozenContext(snapshot_id, context, blocking)
    _INSERT_SNAPSHOT.run(
        conn,
        **{
            "id": snapshot_id,
            "run_id": context.run_id,
            "attempt": context.attempt,
            "work_id": context.work_id,
            "target_chapter": context.target_chapter,
            "as_of": context.as_of,
            "plan_id": context.manifest.plan_id,
            "manifest_id": context.manifest.manifest_id,
            "sha256": context.context_snapshot.sha256,
            "chapter_revisions": {str(n): rev for n, rev in sorted(read_revisions.items())},
            "payload": context.wire(),
            "created_at": utc_now(),
        },
    )
    return FrozenContext(snapshot_id, context, blocking)
