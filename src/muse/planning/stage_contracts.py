"""Payload contracts of stages 0–3 (stage 4, the fine outline, is in ``contracts.py``).

One schema per stage serves both the planner's output and what the author edits as YAML.
Required text fields accept 「字段存疑：原因」 in place of a value (spec 001 §1A, gate 1's escape);
such a field is reported, never silently passed. Numbers have no such escape: the length target
must be complete before anything is planned on it.

    stage 0 定盘        WorkFoundation   section_type 'setting'
    stage 1 大纲/卷纲   WorkOutline      section_type 'outline'
    stage 2 设定拆条    SettingSignoff   section_type 'setting' (the cards live in knowledge)
    stage 3 范式与文风  Assembly         section_type 'assembly'
    stage 4 细纲        FineOutline      section_type 'fine_outline'
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator, model_validator

from muse.patterns import Strict, StyleProfile, list_or_doubt

# -- stage 0 · 定盘 ---------------------------------------------------------------------------


class WorkCore(Strict):
    genre_positioning: str = Field(min_length=1, title="题材定位")
    core_selling_point: str = Field(min_length=1, title="核心卖点")
    theme: str = Field(min_length=1, title="主题立意")
    tone: str = Field(min_length=1, title="基调")
    taboos: tuple[str, ...] | str = Field(title="禁区")
    core_suspense: str = Field(min_length=1, title="核心悬念")
    truth: str = Field(min_length=1, title="谜底与真相")
    ending_direction: str = Field(min_length=1, title="结局方向")
    target_readers: str = Field(min_length=1, title="目标读者")

    _taboos = field_validator("taboos")(classmethod(lambda cls, v: list_or_doubt(v)))


class CharsRange(Strict):
    min: int = Field(ge=1, title="单章字数下限")
    max: int = Field(ge=1, title="单章字数上限")

    @model_validator(mode="after")
    def _ordered(self) -> CharsRange:
        if self.min > self.max:
            raise ValueError(f"单章字数下限 {self.min} 大于上限 {self.max}")
        return self

    @property
    def midpoint(self) -> int:
        return (self.min + self.max) // 2


class LengthPlan(Strict):
    target_chapters: int = Field(ge=1, title="目标章数")
    chars_per_chapter: CharsRange = Field(title="单章字数区间")
    volume_count: int = Field(ge=1, title="分卷数")


class WorkFoundation(Strict):
    schema_version: Literal["work-foundation-v1"] = Field(
        default="work-foundation-v1", title="格式版本"
    )
    work_core: WorkCore = Field(title="作品核心")
    length_target: LengthPlan = Field(title="篇幅目标")


# -- stage 1 · 大纲 / 卷纲 --------------------------------------------------------------------


class VolumePlan(Strict):
    number: int = Field(ge=1, title="卷序")
    name: str = Field(min_length=1, title="卷名")
    goal: str = Field(min_length=1, title="卷目标")
    core_conflict: str = Field(min_length=1, title="核心冲突")
    emotional_endpoint: str = Field(min_length=1, title="情绪终点")
    first_chapter: int = Field(ge=1, title="起始章")
    last_chapter: int = Field(ge=1, title="结束章")
    sketch: str = Field(min_length=1, title="卷粗纲")

    @model_validator(mode="after")
    def _range(self) -> VolumePlan:
        if self.first_chapter > self.last_chapter:
            raise ValueError(f"起始章 {self.first_chapter} 大于结束章 {self.last_chapter}")
        return self


class ChapterSpanBeat(Strict):
    first_chapter: int = Field(ge=1, title="起始章")
    last_chapter: int = Field(ge=1, title="结束章")
    text: str = Field(min_length=1, title="内容")


class CurrentVolume(Strict):
    volume: int = Field(ge=1, title="当前卷")
    beats: tuple[ChapterSpanBeat, ...] = Field(min_length=1, title="当前卷细纲")


class ThreadPlan(Strict):
    """伏笔线: when a thread is planted, advanced and paid off (the foreshadowing ledger's plan)."""

    thread: str = Field(min_length=1, title="伏笔")
    plant_chapter: int = Field(ge=1, title="埋设章")
    advance_chapters: tuple[int, ...] = Field(default=(), title="推进章")
    payoff_chapter: int = Field(ge=1, title="回收章")
    cards: tuple[str, ...] = Field(default=(), title="涉及卡片")
    note: str = Field(default="", title="备注")


class RejectedDirection(Strict):
    """弃案: a direction the author rejected, with the keywords that recognise it if revived."""

    id: str = Field(min_length=1, max_length=40, title="编号")
    direction: str = Field(min_length=1, title="弃案")
    reason: str = Field(min_length=1, title="弃用原因")
    keywords: tuple[str, ...] = Field(min_length=1, title="识别关键词")

    @field_validator("keywords")
    @classmethod
    def _keywords(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if any(len(k.strip()) < 2 for k in value):
            raise ValueError("每个识别关键词至少两个字（太短会误判）")
        return tuple(k.strip() for k in value)


class WorkOutline(Strict):
    schema_version: Literal["work-outline-v1"] = Field(default="work-outline-v1", title="格式版本")
    mainline: str = Field(min_length=1, title="主线一句话")
    volumes: tuple[VolumePlan, ...] = Field(min_length=1, title="分卷粗纲")
    current_volume: CurrentVolume = Field(title="当前卷细纲")
    rejected_directions: tuple[RejectedDirection, ...] = Field(default=(), title="弃案记录")
    foreshadowing_threads: tuple[ThreadPlan, ...] = Field(default=(), title="伏笔线")

    def volume_of(self, chapter: int) -> VolumePlan | None:
        return next((v for v in self.volumes if v.first_chapter <= chapter <= v.last_chapter), None)


# -- stage 2 · 设定拆条 ------------------------------------------------------------------------


class CardPin(Strict):
    card_id: str = Field(min_length=1, title="卡片 ID")
    name: str = Field(min_length=1, title="名称")
    type: str = Field(min_length=1, title="类型")
    spec_sha256: str = Field(pattern=r"^[0-9a-f]{64}$", title="内容哈希")


class SettingSignoff(Strict):
    """The author's sign-off of stage 2: the confirmed cards the plan stands on, pinned by hash."""

    schema_version: Literal["setting-signoff-v1"] = Field(
        default="setting-signoff-v1", title="格式版本"
    )
    cards: tuple[CardPin, ...] = Field(min_length=1, title="已确认卡片")
    note: str = Field(default="", title="备注")


# -- stage 3 · 范式与文风 ----------------------------------------------------------------------


class PatternChoice(Strict):
    key: str = Field(min_length=1, title="范式键")
    public: bool = Field(default=True, title="公共范式")
    version: int | None = Field(default=None, ge=1, title="版本")
    content_sha256: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$", title="内容哈希")
    purpose: str = Field(min_length=1, title="用途")


class Assembly(Strict):
    """装配: the patterns chosen for this work and its style profile; confirmed as one."""

    schema_version: Literal["assembly-v1"] = Field(default="assembly-v1", title="格式版本")
    patterns: tuple[PatternChoice, ...] = Field(default=(), title="范式装配")
    style: StyleProfile = Field(title="文风画像")
