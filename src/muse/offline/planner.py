"""Offline planner drafts: schema-valid, sized to pass the gates, built only from the task input.

Registered for ``planner``/``draft`` with the offline provider; it answers the planning contracts
(and declines any other output model, so the agents layer's default answers those). Same input,
same draft; the ``variant`` number changes the wording so variants can be told apart. Every text
is marked as offline so nobody mistakes it for a model's planning.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from muse.agents import builtin_generator
from muse.core.text import count_han
from muse.planning import Assembly, FineOutline, SettingProposal, WorkFoundation, WorkOutline

MARK = "【离线草稿】"
_FILLER = (
    "局势层层推进，人物各怀心思，",
    "冲突由小及大，代价随之加重，",
    "线索在细节里浮现，",
    "主角的选择改变了周围人的处境，",
    "旧的承诺被重新掂量，",
    "新的对手在暗处观望，",
)
_TONES = ("热血昂扬", "沉稳克制", "轻快诙谐", "冷峻悬疑", "温情细腻")


def _sized(head: str, han: int, variant: int = 1) -> str:
    """``head`` followed by filler until the text has about ``han`` Han characters."""
    text, i = head, variant
    while count_han(text) < han:
        text += _FILLER[i % len(_FILLER)]
        i += 1
    return text.rstrip("，") + "。"


def _title(task: dict) -> str:
    return str(task.get("work", {}).get("title") or "本书")


def foundation(task: dict) -> dict:
    v, title = task["variant"], _title(task)
    tone = _TONES[(v - 1) % len(_TONES)]
    core = {
        "genre_positioning": f"{MARK}《{title}》：东方玄幻成长流（变体{v}）",
        "core_selling_point": "小人物凭借被人看轻的传承一路逆袭，每次升级都有代价",
        "theme": "选择比出身更能决定一个人",
        "tone": tone,
        "taboos": ["主角无代价开挂", "感情线拖沓注水"],
        "core_suspense": "主角传承的来历与宗门覆灭的真相",
        "truth": "传承来自当年覆灭宗门的最后一位守护者，他留下的是一道未竟的誓约",
        "ending_direction": "主角兑现誓约，但失去了最初想守护的平凡生活",
        "target_readers": "喜欢成长与逆袭、重视伏笔回收的男频读者",
    }
    return {"work_core": core, "length_target": _length_target(task.get("existingBook"))}


def _length_target(book: dict | None) -> dict:
    """120 chapters in 3 volumes; a continued book gets room after what it already has."""
    if not book:
        return {
            "target_chapters": 120,
            "chars_per_chapter": {"min": 2500, "max": 3500},
            "volume_count": 3,
        }
    written, median = book["latestChapter"], book["medianChapterHan"]
    low = max(2000, min(10000, median * 8 // 10 // 100 * 100))
    return {
        "target_chapters": written + max(30, written // 4),
        "chars_per_chapter": {"min": low, "max": max(low + 500, median * 12 // 10 // 100 * 100)},
        "volume_count": max(book["volumeCount"] + 1, 3),
    }


def outline(task: dict) -> dict | None:
    f = task.get("confirmed", {}).get("foundation")
    if not f:
        return None
    lt, v = f["length_target"], task["variant"]
    count, total = lt["volume_count"], lt["target_chapters"]
    written = (task.get("existingBook") or {}).get("latestChapter", 0)  # a continued book
    per_chapter = (lt["chars_per_chapter"]["min"] + lt["chars_per_chapter"]["max"]) / 2
    volumes, threads, first = [], [], 1
    for n in range(1, count + 1):
        last = total if n == count else first + total // count - 1
        size = int(per_chapter * (last - first + 1) * 0.004) + 1
        volumes.append(
            {
                "number": n,
                "name": f"第{n}卷",
                "goal": f"主角完成第{n}阶段的成长",
                "core_conflict": f"第{n}卷的对手步步紧逼",
                "emotional_endpoint": "由压抑转为扬眉吐气",
                "first_chapter": first,
                "last_chapter": last,
                "sketch": _sized(f"{MARK}第{n}卷粗纲：", size, v),
            }
        )
        start = max(first, written + 1)  # threads are planned after what is written
        if last - start >= 3:
            threads.append(
                {
                    "thread": f"第{n}卷伏笔",
                    "plant_chapter": start + 1,
                    "advance_chapters": [(start + last) // 2],
                    "payoff_chapter": last - 1,
                }
            )
        first = last + 1
    current = next(
        (x for x in volumes if x["first_chapter"] <= written + 1 <= x["last_chapter"]), volumes[0]
    )
    beats = [
        {
            "first_chapter": max(current["first_chapter"], written + 1),
            "last_chapter": current["last_chapter"],
            "text": f"{MARK}第{current['number']}卷细纲：入门、受挫、第一次逆袭。",
        }
    ]
    return {
        "mainline": "小人物继承残缺传承，一路逆袭，揭开宗门覆灭真相",
        "volumes": volumes,
        "current_volume": {"volume": current["number"], "beats": beats},
        "rejected_directions": [
            {
                "id": "X1",
                "direction": "主角重生回到少年时代",
                "reason": "与成长主题冲突",
                "keywords": ["重生回到"],
            }
        ],
        "foreshadowing_threads": threads,
    }


def setting(task: dict) -> dict | None:
    f = task.get("confirmed", {}).get("foundation")
    if not f:
        return None
    last = f["length_target"]["target_chapters"]
    arc = [
        {"chapter": 1, "cycle": "登场", "step": "初登场"},
        {"chapter": max(1, last // 2), "cycle": "高光", "step": "中段高光"},
        {"chapter": last, "cycle": "结局", "step": "兑现誓约"},
    ]
    hero = {
        "type": "character",
        "name": "林远",
        "summary": f"{MARK}主角，被看轻的外门弟子",
        "fields": {"identity": "外门弟子", "personality": "隐忍、重诺"},
        "growth_arc": arc,
        "ending_direction": "兑现誓约",
    }
    rival = {
        "type": "character",
        "name": "沈烈",
        "summary": f"{MARK}对手，内门天才",
        "fields": {"identity": "内门首席", "personality": "骄傲、好胜"},
        "growth_arc": arc,
    }
    return {"cards": [hero, rival], "design_issues": []}


def assembly(task: dict) -> dict | None:
    available = sorted(task.get("availablePatterns", []), key=lambda p: p["key"])
    v = task["variant"]
    chosen = [available[(v - 1 + i) % len(available)] for i in range(min(3, len(available)))]
    patterns = [
        {
            "key": p["key"],
            "public": p["public"],
            "version": p["version"],
            "purpose": f"用于{p['category']}：{p['name']}",
        }
        for p in chosen
    ]
    sample = _sized(f"{MARK}达标样张：林远把剑横在膝上，听着山风从门缝里挤进来。", 240, v)
    style = {
        "person_viewpoint": "第三人称有限视角，紧随主角",
        "sentence_style": "短句为主，动作句推进",
        "narration_mix": "对白四成、动作三成、描写两成、心理一成",
        "diction": "口语化而不油滑，少用成语堆砌",
        "ai_blacklist": ["不禁", "仿佛", "嘴角勾起一抹弧度", "心中一凛"],
        "dialogue_style": "人物各有口癖，对白推动冲突",
        "chapter_end_hook_style": "落在具体画面或一句对白上",
        "sample_passage": sample,
    }
    return {"patterns": patterns, "style": style}


def fine_outline(task: dict) -> dict | None:
    n = task.get("chapter")
    if not isinstance(n, int):
        return None
    confirmed, v = task.get("confirmed", {}), task["variant"]
    plan = confirmed.get("outline") or {}
    actions: list[dict] = []
    for t in plan.get("foreshadowing_threads", []):
        kind = (
            "埋"
            if t["plant_chapter"] == n
            else "收"
            if t["payoff_chapter"] == n
            else "推"
            if n in t["advance_chapters"]
            else None
        )
        if kind:
            actions.append(
                {
                    "id": f"F{len(actions) + 1}",
                    "action": kind,
                    "thread": t["thread"],
                    "text": f"{kind}下伏笔「{t['thread']}」",
                    "cards": list(t.get("cards", [])),
                }
            )
    cards = _people(task)
    lead = cards[0]
    target = int(task.get("chapterTargetChars") or 3000)
    hard = {
        "hard_events": [
            {"id": "H1", "text": f"{MARK}第{n}章：{lead}直面本章的主要阻力"},
            {"id": "H2", "text": f"阻力升级，{lead}付出代价后取得进展"},
        ],
        "result_direction": {"id": "R1", "text": f"{lead}离目标更近一步，但局势更复杂"},
        "foreshadowing": actions,
        "chapter_end_hook": {"id": "K1", "text": "一个新的变量出现在最后一个画面里"},
        "required_entities": [
            {"id": f"E{i + 1}", "name": name} for i, name in enumerate(cards[:2])
        ],
    }
    if not actions:
        hard["foreshadowing_note"] = "本章没有计划中的伏笔动作"
    data = {
        "target_chapter": n,
        "title": f"第{n}章",
        "hard_constraints": hard,
        "adjustable_beats": [],
    }
    have = count_han(str(data))
    data["adjustable_beats"] = [
        {"id": "B1", "text": _sized("场景推进：", max(10, int(target * 0.04) - have), v)}
    ]
    return data


def _people(task: dict[str, Any]) -> list[str]:
    """Who the chapter needs: the confirmed character cards of the setting ledger; in free mode
    (no ledger) the people the recent confirmed outlines required, so the next chapter continues
    with people the book already has; only with neither, a placeholder 主角."""
    confirmed = task.get("confirmed", {})
    cards = [c["name"] for c in confirmed.get("cards", []) if c["type"] == "character"]
    if cards:
        return cards
    recent: list[str] = []
    for outline in reversed(task.get("recentOutlines") or []):
        for entity in outline.get("hard_constraints", {}).get("required_entities", []):
            name = entity.get("name")
            if name and not entity.get("debut") and name not in recent:
                recent.append(name)
    return recent or ["主角"]


_BUILDERS = {
    WorkFoundation: foundation,
    WorkOutline: outline,
    SettingProposal: setting,
    Assembly: assembly,
    FineOutline: fine_outline,
}


@builtin_generator("planner", "draft")
def generate(task_input: dict[str, Any], output_model: type[BaseModel]) -> dict | None:
    builder = _BUILDERS.get(output_model)
    return builder(task_input) if builder else None
