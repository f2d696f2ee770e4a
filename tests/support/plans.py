"""A valid plan for a 30-chapter, three-volume book, stage by stage, built through the services.

Every payload here passes every gate; the gate tests change one thing and expect one refusal.
Sizes: chapters of 2500–3500 Han (midpoint 3000), so a 10-chapter volume is ~30,000 and its
sketch must hold 90–150 Han; a fine outline with ``target_chars`` 3000 must hold 90–150 Han.
"""

from __future__ import annotations

import copy

from muse.knowledge.contracts import CardField, CardSpec, Cycle, PlannedStep
from muse.knowledge.drafts import confirm_all, submit_draft
from muse.patterns.builtin import install_builtin_patterns
from muse.planning.confirming import confirm_section
from muse.planning.saving import build_signoff, save_stage_section

FILLER = "山风吹过松林溪水绕着石阶流向谷底远处传来钟声"


def han(n: int, head: str = "") -> str:
    """A sentence of exactly ``n`` Han characters (after ``head``'s own)."""
    body = (FILLER * (n // len(FILLER) + 1))[: max(0, n - sum(c >= "\u4e00" for c in head))]
    return head + body + "。"


def foundation(**length) -> dict:
    target = {
        "target_chapters": 30,
        "chars_per_chapter": {"min": 2500, "max": 3500},
        "volume_count": 3,
        **length,
    }
    return {
        "work_core": {
            "genre_positioning": "东方玄幻成长流",
            "core_selling_point": "被看轻的传承一路逆袭",
            "theme": "选择比出身重要",
            "tone": "热血而克制",
            "taboos": ["无代价开挂"],
            "core_suspense": "宗门覆灭的真相",
            "truth": "守护者留下的誓约",
            "ending_direction": "兑现誓约",
            "target_readers": "男频成长流读者",
        },
        "length_target": target,
    }


def volume(n: int, first: int, last: int, sketch_han: int = 120) -> dict:
    return {
        "number": n,
        "name": f"第{n}卷",
        "goal": f"第{n}阶段成长",
        "core_conflict": "对手步步紧逼",
        "emotional_endpoint": "扬眉吐气",
        "first_chapter": first,
        "last_chapter": last,
        "sketch": han(sketch_han, f"第{n}卷："),
    }


def outline() -> dict:
    return {
        "mainline": "外门弟子继承残缺传承，一路逆袭，揭开宗门覆灭的真相",
        "volumes": [volume(1, 1, 10), volume(2, 11, 20), volume(3, 21, 30)],
        "current_volume": {
            "volume": 1,
            "beats": [{"first_chapter": 1, "last_chapter": 10, "text": "入门、受挫、第一次逆袭"}],
        },
        "rejected_directions": [
            {
                "id": "X1",
                "direction": "主角重生回到少年",
                "reason": "与成长主题冲突",
                "keywords": ["重生回到"],
            }
        ],
        "foreshadowing_threads": [
            {
                "thread": "玉佩",
                "plant_chapter": 2,
                "advance_chapters": [4],
                "payoff_chapter": 8,
                "cards": ["林远"],
            }
        ],
    }


def card(name: str, kind: str = "character", end: int = 30) -> CardSpec:
    fields = {"summary": CardField(value=f"{name}的简介")}
    if kind == "character":
        fields |= {"identity": CardField(value="外门弟子"), "personality": CardField(value="隐忍")}
    return CardSpec(
        type=kind,
        name=name,
        fields=fields,
        growth_arc=[
            PlannedStep(chapter=1, cycle=Cycle.debut, step="登场"),
            PlannedStep(chapter=end, cycle=Cycle.ending, step="结局"),
        ],
    )


def assembly(**changes) -> dict:
    style = {
        "person_viewpoint": "第三人称有限视角",
        "sentence_style": "短句为主",
        "narration_mix": "对白四成",
        "diction": "口语而不油滑",
        "ai_blacklist": ["不禁", "仿佛"],
        "dialogue_style": "各有口癖",
        "chapter_end_hook_style": "落在画面上",
        "sample_passage": han(220, "样张："),
    }
    return {
        "patterns": [{"key": "chapter-end-hook", "purpose": "每章结尾"}],
        "style": style,
        **changes,
    }


def fine(chapter: int, *, actions: list[dict] | None = None, size: int = 120, **changes) -> dict:
    """A fine outline of ``chapter`` whose Han count is about ``size`` (target 3000 chars)."""
    actions = [] if actions is None else actions
    hard = {
        "hard_events": [{"id": "H1", "text": "林远在山门前受挫"}],
        "result_direction": {"id": "R1", "text": "林远决心留下"},
        "foreshadowing": [{"id": f"F{i + 1}", **a} for i, a in enumerate(actions)],
        "chapter_end_hook": {"id": "K1", "text": "长老暗中注视"},
        "required_entities": [{"id": "E1", "name": "林远"}],
    }
    if not actions:
        hard["foreshadowing_note"] = "过渡章"
    data = {
        "target_chapter": chapter,
        "title": f"第{chapter}章",
        "hard_constraints": hard,
        "target_chars": 3000,
        "adjustable_beats": [],
    }
    from muse.planning.contracts import FineOutline
    from muse.planning.text_measures import han_of

    have = han_of(FineOutline.model_validate(data))
    data["adjustable_beats"] = [{"id": "B1", "text": han(max(1, size - have))}]
    data.update(changes)
    return data


def plant(thread: str = "玉佩", action: str = "埋", cards=("林远",)) -> dict:
    return {"action": action, "thread": thread, "text": f"{action}{thread}", "cards": list(cards)}


class Planner:
    """Confirms the baseline plan stage by stage through the real services."""

    def __init__(self, engine, work_id):
        self.engine, self.work_id = engine, work_id

    def save(self, stage: int, payload: dict) -> str:
        with self.engine.begin() as conn:
            return save_stage_section(conn, self.work_id, stage, copy.deepcopy(payload)).section_id

    def confirm(self, section_id: str):
        with self.engine.begin() as conn:
            return confirm_section(conn, section_id)

    def save_and_confirm(self, stage: int, payload: dict) -> str:
        section_id = self.save(stage, payload)
        self.confirm(section_id)
        return section_id

    def cards(self, *specs: CardSpec) -> None:
        with self.engine.begin() as conn:
            for spec in specs or (card("林远"), card("沈烈")):
                submit_draft(conn, self.work_id, spec, origin="manual")
            confirm_all(conn, self.work_id)

    def signoff(self) -> str:
        with self.engine.begin() as conn:
            return save_stage_section(
                conn, self.work_id, 2, build_signoff(conn, self.work_id), origin="ledger"
            ).section_id

    def through(self, stage: int) -> dict[int, str]:
        """Confirm the baseline stages 0 … ``stage``; returns their section ids."""
        ids: dict[int, str] = {}
        if stage >= 0:
            ids[0] = self.save_and_confirm(0, foundation())
        if stage >= 1:
            ids[1] = self.save_and_confirm(1, outline())
        if stage >= 2:
            self.cards()
            ids[2] = self.signoff()
            self.confirm(ids[2])
        if stage >= 3:
            with self.engine.begin() as conn:
                install_builtin_patterns(conn)
            ids[3] = self.save_and_confirm(3, assembly())
        return ids
