"""The offline provider's explorer: deterministic reads derived from the fine outline alone.

For the demo, dry runs and tests (no network, same input → same output). It proposes what a
careful writer would read before writing: the previous chapter, the card of every required
entity and of every card a foreshadowing action touches, a search for each required entity's
recent scenes and for each foreshadowing thread (the chapter's key items and places). Several of
these repeat the retrieval plan's reads on purpose: the merge must drop them as duplicates.
It never stands in for checking logic: the manifest is vetted like any model's.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from muse.agents import builtin_generator
from muse.context import EXPLORE_INPUT_VERSION, ExploreDraft, ExploreDraftRead
from muse.offline.wire import emit

NOTE = "【离线模式】探索清单由离线提供方依据细纲确定性生成：前一章、实体卡、人物近况与伏笔检索。"


def _read(
    tool: str,
    why: str,
    *,
    number: int | None = None,
    query: str | None = None,
    name: str | None = None,
    limit: int | None = None,
) -> ExploreDraftRead:
    return ExploreDraftRead(tool=tool, number=number, query=query, name=name, limit=limit, why=why)


@builtin_generator("writer", "explore")
def explore_reads(
    task_input: dict[str, Any], model: type[BaseModel] = ExploreDraft
) -> dict[str, Any] | None:
    """An ExploreDraft for a writer-explore input; declines any other input or output model."""
    if model is not ExploreDraft or task_input.get("schemaVersion") != EXPLORE_INPUT_VERSION:
        return None
    hc = task_input["fineOutline"]["hard_constraints"]
    as_of = task_input["asOf"]
    reads: list[ExploreDraftRead] = []
    if as_of >= 1:
        reads.append(_read("read_chapter", "接上一章的时间、地点与即时局面", number=as_of))
    for entity in hc["required_entities"]:
        reads.append(_read("get_card", f"「{entity['name']}」此刻的状态", name=entity["name"]))
        reads.append(
            _read(
                "search_prose",
                f"「{entity['name']}」最近的出场、说话方式与动作习惯",
                query=entity["name"],
                limit=2,
            )
        )
    for action in hc.get("foreshadowing", []):
        for name in action.get("cards", []):
            reads.append(_read("get_card", f"伏笔 {action['id']} 涉及「{name}」", name=name))
        reads.append(
            _read(
                "search_prose",
                f"伏笔「{action['thread']}」在前文的来历（{action['action']}）",
                query=action["thread"],
                limit=3,
            )
        )
    reads.append(_read("get_style", "文风档案：视角、句式与黑名单"))
    return emit(ExploreDraft(reads=reads, notes=NOTE))
