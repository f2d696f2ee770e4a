"""The retrieval plan as tool reads, and the vetting of explored reads (spec 001 §5).

The plan and the explore phase are one mechanism (ARCHITECTURE.md §3): the plan's queries become
the baseline reads of the exploration manifest, always first, and the reads the writer explored
follow. A proposed read is kept only if it is one of the writer's read-only tools, allowed by the
explore task's whitelist, has arguments that pass the tool's argument schema, reads nothing after
as_of and is not a duplicate. A read that fails is *dropped with its reason* (kept in
``ExplorationManifest.dropped``), not fatal: the other reads of the same exploration are still
good material, and the dashboard shows what was refused and why. A manifest can therefore never
hold an unknown tool, bad arguments or a future chapter.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from muse.agents import TOOL_SPECS, load_roles
from muse.context.as_of import AsOfView
from muse.context.card_hits import wanted_entities
from muse.context.explore.contracts import (
    DroppedRead,
    ExplorationManifest,
    ExplorationRead,
    ExploreDraft,
    ReplayedRead,
)
from muse.context.retrieval_plan import BASELINE_CHAPTERS, build_plan
from muse.core.canonical import canonical_json
from muse.core.errors import ContractViolation
from muse.planning import FineOutline

MAX_QUERY_CHARS = 100  # SearchProseArgs.query


@dataclass(frozen=True)
class ProposedRead:
    tool: str
    args: dict[str, Any]
    why: str


def explore_whitelist() -> tuple[str, ...]:
    """The writer/explore task's read-only tools, as ``roles.yaml`` declares them."""
    return tuple(load_roles().task("writer", "explore").tools)


def read_key(tool: str, args: dict[str, Any]) -> bytes:
    return canonical_json({"tool": tool, "args": args})


def planned_reads(view: AsOfView, outline: FineOutline) -> list[ProposedRead]:
    """The retrieval plan's queries as reads, in the plan's order (spec 000 §5.1, §5.3)."""
    target = outline.target_chapter
    plan = build_plan(outline, run_id="plan-reads", work_id=view.work_id, as_of=view.as_of)
    reads = [ProposedRead("get_outline", {}, "已确认的本章细纲（硬约束与可调整节拍）")]
    for query in plan.queries:
        if query.purpose == "consecutive_prose":
            reads += [
                ProposedRead(
                    "read_chapter", {"number": n}, f"目标章之前连续{BASELINE_CHAPTERS}章全文基线"
                )
                for n in view.previous_chapters(target, BASELINE_CHAPTERS)
            ]
        elif query.purpose == "entity_state":
            reads.append(
                ProposedRead("get_card", {"name": query.text}, f"细纲必须出场实体 {query.query_id}")
            )
        elif query.purpose in ("callback", "similar_scene"):
            why = "伏笔回调" if query.purpose == "callback" else "同类历史场景"
            reads.append(
                ProposedRead(
                    "search_prose",
                    {"query": query.text[:MAX_QUERY_CHARS], "limit": max(1, query.top_k)},
                    f"{why}（{query.query_id}）",
                )
            )
    required = {e.id for e in outline.hard_constraints.required_entities}
    reads += [
        ProposedRead("get_card", {"name": w.name}, w.reason)
        for w in wanted_entities(outline)
        if w.element_id not in required  # the cards a foreshadowing action touches
    ]
    reads.append(ProposedRead("get_style", {}, "已确认的文风画像"))
    reads.append(ProposedRead("get_patterns", {}, "已确认装配绑定的范式"))
    return reads


def from_draft(draft: ExploreDraft) -> list[ProposedRead]:
    """The model's flat reads as (tool, args, why); fields of other tools are ignored."""
    proposed = []
    for read in draft.reads:
        args: dict[str, Any] = {}
        if read.tool == "read_chapter" and read.number is not None:
            args = {"number": read.number}
        elif read.tool == "search_prose":
            args = {
                k: v for k, v in (("query", read.query), ("limit", read.limit)) if v is not None
            }
        elif read.tool == "get_card" and read.name is not None:
            args = {"name": read.name}
        proposed.append(ProposedRead(read.tool, args, read.why.strip() or "（未说明用途）"))
    return proposed


def _vet(
    read: ProposedRead, as_of: int, whitelist: Iterable[str]
) -> tuple[dict[str, Any] | None, DroppedRead | None]:
    def drop(reason: Any, detail: str) -> tuple[None, DroppedRead]:
        return None, DroppedRead(
            tool=read.tool, args=read.args, why=read.why, reason=reason, detail=detail
        )

    if read.tool not in TOOL_SPECS:
        return drop(
            "unknown_tool", f"未知工具 {read.tool}，写手只读工具为：{'、'.join(TOOL_SPECS)}。"
        )
    if read.tool not in whitelist:
        return drop("not_whitelisted", f"工具 {read.tool} 不在写手探索任务的授权白名单内。")
    try:
        args = TOOL_SPECS[read.tool].arguments.model_validate(read.args).model_dump()
    except ValidationError as err:
        messages = "；".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in err.errors())
        return drop("bad_args", f"参数不符合 {read.tool} 的参数格式：{messages}")
    if read.tool == "read_chapter" and args["number"] > as_of:
        return drop(
            "future_chapter",
            f"第 {args['number']} 章在冻结点（第 {as_of} 章）之后，未来章节不得进入模型输入。",
        )
    return args, None


def merge_reads(
    *,
    work_id: int,
    target_chapter: int,
    as_of: int,
    planned: Sequence[ProposedRead],
    explored: Sequence[ProposedRead] = (),
    notes: str = "",
    receipt_id: str | None = None,
    whitelist: Iterable[str] | None = None,
) -> ExplorationManifest:
    """The plan's reads first, then the explored ones; each vetted, duplicates dropped."""
    allowed = tuple(explore_whitelist() if whitelist is None else whitelist)
    kept: list[ExplorationRead] = []
    dropped: list[DroppedRead] = []
    seen: dict[bytes, str] = {}
    counters = {"plan": 0, "explore": 0}
    for origin, reads in (("plan", planned), ("explore", explored)):
        for read in reads:
            args, refused = _vet(read, as_of, allowed)
            if refused is not None:
                dropped.append(refused)
                continue
            assert args is not None
            key = read_key(read.tool, args)
            if key in seen:
                if origin == "plan":
                    continue  # the plan naming one card twice is not a proposal to report
                dropped.append(
                    DroppedRead(
                        tool=read.tool,
                        args=args,
                        why=read.why,
                        reason="duplicate",
                        detail=f"与读取 {seen[key]} 相同，已合并。",
                    )
                )
                continue
            counters[origin] += 1
            read_id = f"{origin[0] if origin == 'plan' else 'x'}{counters[origin]:02d}"
            seen[key] = read_id
            kept.append(
                ExplorationRead.model_validate(
                    {
                        "read_id": read_id,
                        "origin": origin,
                        "tool": read.tool,
                        "args": args,
                        "why": read.why,
                    }
                )
            )
    return ExplorationManifest(
        work_id=work_id,
        target_chapter=target_chapter,
        as_of=as_of,
        reads=tuple(kept),
        dropped=tuple(dropped),
        notes=notes,
        explore_receipt_id=receipt_id,
    )


def check_replayed(
    view: AsOfView,
    outline: FineOutline,
    exploration: ExplorationManifest,
    replayed: Sequence[ReplayedRead],
) -> None:
    """Refuse a replay that does not belong to this freeze (ContractViolation).

    The manifest must be for this work, target and as_of; it must hold every read of the plan
    (spec: the plan's reads are always included); the replay must be of exactly its reads.
    """
    identity = (exploration.work_id, exploration.target_chapter, exploration.as_of)
    if identity != (view.work_id, outline.target_chapter, view.as_of):
        raise ContractViolation(
            f"探索清单属于作品 {identity[0]} 第 {identity[1]} 章（冻结点第 {identity[2]} 章），"
            f"与本次冻结（作品 {view.work_id} 第 {outline.target_chapter} 章，"
            f"冻结点第 {view.as_of} 章）不符。"
        )
    listed = [(r.read_id, r.tool, read_key(r.tool, r.args)) for r in exploration.reads]
    done = [(r.read_id, r.tool, read_key(r.tool, r.args)) for r in replayed]
    if listed != done:
        raise ContractViolation(
            "回放结果与探索清单不一致：必须按清单逐条回放，不多不少、顺序相同。"
        )
    keys = {key for *_, key in listed}
    missing = [
        f"{r.tool}{r.args}"
        for r in merge_reads(
            work_id=view.work_id,
            target_chapter=outline.target_chapter,
            as_of=view.as_of,
            planned=planned_reads(view, outline),
        ).reads
        if read_key(r.tool, r.args) not in keys
    ]
    if missing:
        raise ContractViolation("探索清单缺少检索计划的读取：" + "；".join(missing))
