"""Offline generators for the agents layer's default output contracts (``agents.outputs``).

Each builds a plausible, clearly labelled offline answer from the task input, deterministically.
A generator returns ``None`` when the call asks for an output model it does not know, so the
schema fallback (or a generator another domain registered) answers instead.
"""

from __future__ import annotations

import random
from typing import Any

from pydantic import BaseModel

from muse.agents import (
    DetectorReport,
    ExploreList,
    ExtractionDraft,
    JudgeDimensions,
    JudgeScores,
    PlannerDraft,
    WriterDraft,
    builtin_generator,
    offline_seed,
)

OFFLINE_NOTE = "【离线模式】本内容由离线提供方依据冻结输入确定性生成，不代表模型写作能力。"


def _text_leaves(value: Any, limit: int = 6) -> list[str]:
    """Distinct non-trivial strings of the input, depth first in key order."""
    found: list[str] = []

    def walk(node: Any) -> None:
        if len(found) >= limit:
            return
        if isinstance(node, dict):
            for key in sorted(node):
                walk(node[key])
        elif isinstance(node, list):
            for item in node:
                walk(item)
        elif isinstance(node, str) and len(node.strip()) >= 4 and node.strip() not in found:
            found.append(node.strip()[:200])

    walk(value)
    return found


def _as_of(task_input: dict[str, Any]) -> int | None:
    for key in ("asOf", "as_of"):
        if isinstance(task_input.get(key), int):
            return task_input[key]
    return None


@builtin_generator("writer", "explore")
def explore(task_input: dict[str, Any], model: type[BaseModel]) -> dict[str, Any] | None:
    if model is not ExploreList:
        return None
    reads: list[dict[str, Any]] = [
        {
            "tool": "get_outline",
            "number": None,
            "query": None,
            "name": None,
            "purpose": "读本章细纲",
        },
    ]
    as_of = _as_of(task_input)
    if as_of is not None and as_of >= 1:
        reads.append(
            {
                "tool": "read_chapter",
                "number": as_of,
                "query": None,
                "name": None,
                "purpose": "读紧接本章之前的一章，确认即时局面",
            }
        )
    reads.append(
        {"tool": "get_style", "number": None, "query": None, "name": None, "purpose": "读文风档案"}
    )
    return {"reads": reads, "notes": OFFLINE_NOTE}


@builtin_generator("writer", "generate")
def generate(task_input: dict[str, Any], model: type[BaseModel]) -> dict[str, Any] | None:
    if model is not WriterDraft:
        return None
    leaves = _text_leaves(task_input) or ["（输入中没有可用的文字要点）"]
    paragraphs = [{"text": OFFLINE_NOTE}]
    paragraphs += [{"text": f"本段对应输入要点：{leaf}"} for leaf in leaves]
    return {"paragraphs": paragraphs, "newSettingDeclarations": []}


@builtin_generator("planner", "draft")
def plan(task_input: dict[str, Any], model: type[BaseModel]) -> dict[str, Any] | None:
    if model is not PlannerDraft:
        return None
    title = task_input.get("title") if isinstance(task_input.get("title"), str) else "离线规划草稿"
    items = [
        {"label": f"要点{i}", "content": leaf, "hard": i == 1}
        for i, leaf in enumerate(_text_leaves(task_input), start=1)
    ]
    return {
        "title": title,
        "summary": OFFLINE_NOTE,
        "items": items,
        "designIssues": ["离线模式不做规划判断，请改用真实模型生成规划。"],
    }


@builtin_generator("extractor", "extract")
def extract(task_input: dict[str, Any], model: type[BaseModel]) -> dict[str, Any] | None:
    if model is not ExtractionDraft:
        return None
    return {
        "entities": [],
        "relations": [],
        "events": [],
        "conflicts": [],
        "designFindings": [f"{OFFLINE_NOTE}离线模式不做知识抽取。"],
    }


@builtin_generator("detector", "check")
def check(task_input: dict[str, Any], model: type[BaseModel]) -> dict[str, Any] | None:
    if model is not DetectorReport:
        return None
    return {
        "verdict": "passed",
        "issues": [],
        "evidenceGaps": [],
        "summary": f"{OFFLINE_NOTE}离线模式不做语义核查，仅返回结构合法的报告。",
    }


def _candidates(task_input: dict[str, Any]) -> list[tuple[str, str]]:
    """(label, text) of each candidate in a judge input; one anonymous candidate if none."""
    found = []
    for index, item in enumerate(task_input.get("candidates") or []):
        if isinstance(item, dict):
            label = item.get("label") or item.get("candidateLabel") or item.get("id")
            text = item.get("text") or item.get("body") or ""
            found.append((str(label or chr(ord("A") + index)), str(text)))
    return found or [("A", "")]


@builtin_generator("judge", "score")
def score(task_input: dict[str, Any], model: type[BaseModel]) -> dict[str, Any] | None:
    if model is not JudgeScores:
        return None
    rng = random.Random(offline_seed("judge", "score", task_input, model))
    dimensions = JudgeDimensions.model_fields
    candidates = []
    for label, text in _candidates(task_input):
        quote = text.strip()[:20]
        candidates.append(
            {
                "candidateLabel": label,
                "dimensions": {
                    name: {
                        "score": rng.choice([3.0, 3.5, 4.0]),
                        "reason": OFFLINE_NOTE,
                        "quotes": [quote] if quote else [],
                    }
                    for name in dimensions
                },
            }
        )
    return {"candidates": candidates}
