"""The five pre-writing stages in order (spec 001 §1A): 定盘 → 大纲/卷纲 → 设定拆条 → 范式与文风 → 细纲.

Each stage stores its output as plan sections of one whitelisted ``section_type``; stage 0 and
stage 2 share 'setting', so a section's ``stage`` column says which one it is.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel

from muse.core.errors import InvalidInput
from muse.planning.contracts import FineOutline
from muse.planning.stage_contracts import Assembly, SettingSignoff, WorkFoundation, WorkOutline

SECTION_TYPES = ("setting", "outline", "state", "assembly", "fine_outline")  # spec 001 §1A gate 1


@dataclass(frozen=True)
class StageDef:
    number: int
    key: str
    name: str
    section_type: str
    contract: type[BaseModel]
    recommended: tuple[str, ...] = ()  # top-level fields whose absence is reported

    @property
    def label(self) -> str:
        return f"阶段 {self.number} · {self.name}"


STAGES = (
    StageDef(0, "foundation", "定盘", "setting", WorkFoundation),
    StageDef(
        1,
        "outline",
        "大纲/卷纲",
        "outline",
        WorkOutline,
        recommended=("rejected_directions", "foreshadowing_threads"),
    ),
    StageDef(2, "setting", "设定拆条", "setting", SettingSignoff),
    StageDef(3, "assembly", "范式与文风", "assembly", Assembly),
    StageDef(
        4,
        "fine_outline",
        "细纲",
        "fine_outline",
        FineOutline,
        recommended=("title", "adjustable_beats"),
    ),
)
FOUNDATION, OUTLINE, SETTING, ASSEMBLY, FINE_OUTLINE = STAGES

_ALIASES = {
    "定盘": 0,
    "大纲": 1,
    "卷纲": 1,
    "大纲/卷纲": 1,
    "设定": 2,
    "设定拆条": 2,
    "范式": 3,
    "文风": 3,
    "装配": 3,
    "范式与文风": 3,
    "细纲": 4,
}


def stage_of(token: int | str) -> StageDef:
    """A stage by number, English key or Chinese name."""
    text = str(token).strip()
    if text.isdigit() and int(text) < len(STAGES):
        return STAGES[int(text)]
    for stage in STAGES:
        if text == stage.key:
            return stage
    if text in _ALIASES:
        return STAGES[_ALIASES[text]]
    names = "、".join(f"{s.number}（{s.name}，{s.key}）" for s in STAGES)
    raise InvalidInput(f"没有阶段「{token}」。", hint=f"可用阶段：{names}")
