"""The preregistered evaluation set and the vocabulary of the evaluation chain (spec 000 §10).

An evaluation set is written by the author (YAML), validated here strictly, hashed and stored
once; everything later refers to it by id. A sample is a frozen point of a book that already has
canonical chapters: (work, target chapter N, as_of = N − 1, scene class, fine outline of N). The
fine outline is part of the set, never read from chapter N at run time.

The spec names "五类场景" without listing them; the five classes below are this project's
decision (ARCHITECTURE.md: where the spec is silent, decide and record it).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, field_validator, model_validator

from muse.core.contract import UnaliasedContract
from muse.evaluation.variables import Settings, variable_problem
from muse.planning import FineOutline

EVAL_POLICY_VERSION = "writer-eval-v1"

SCENE_CLASSES: dict[str, str] = {
    "battle": "战斗对峙",
    "dialogue": "对话交锋",
    "emotion": "情感关系",
    "transition": "日常过渡",
    "reveal": "揭示转折",
}
SceneClass = Literal["battle", "dialogue", "emotion", "transition", "reveal"]

# Arms (spec 000 §3.2): A prose only and B cards only run diagnostic_only; C both, production.
ARMS: tuple[str, ...] = ("A", "B", "C")
ARM_LABELS = {"A": "原文线（仅原文）", "B": "卡线（仅卡）", "C": "双线（卡 + 原文）"}
ARM_MODES = {"A": "diagnostic_only", "B": "diagnostic_only", "C": "production"}

# The five judge dimensions (spec 000 §10), keyed as in the judge sheet (JudgeDimensions below).
DIMENSIONS: dict[str, str] = {
    "settingFidelity": "设定与实体保真",
    "outlineFidelity": "情节与细纲忠实",
    "narrativeTension": "叙事完整与张力",
    "styleConsistency": "文风一致",
    "proseQuality": "文笔质量",
}

ROLES_IN_SET = ("writer", "detector", "judge")


class RoleModel(UnaliasedContract):
    """An explicit provider and model for one role (no model from the environment)."""

    provider: str = Field(min_length=1, max_length=64)
    model: str = Field(min_length=1, max_length=128)


class SetModels(UnaliasedContract):
    writer: RoleModel
    detector: RoleModel
    judge: RoleModel


class GenerationBudget(UnaliasedContract):
    """The same maximum in every arm: a writer reply using more output tokens fails the arm."""

    maxOutputTokens: int = Field(ge=256, le=200_000)


class Sample(UnaliasedContract):
    sampleId: str = Field(min_length=1, max_length=40, pattern=r"^[A-Za-z0-9_.\-]+$")
    work: str = Field(min_length=1, description="the work's id or title")
    targetChapter: int = Field(ge=2)
    sceneClass: SceneClass
    fineOutline: dict[str, Any]

    @model_validator(mode="after")
    def _outline(self) -> Sample:
        outline = FineOutline.model_validate(
            {"target_chapter": self.targetChapter, **self.fineOutline}
        )
        if outline.target_chapter != self.targetChapter:
            raise ValueError(
                f"样本 {self.sampleId} 的细纲写的是第 {outline.target_chapter} 章，"
                f"与 targetChapter {self.targetChapter} 不一致"
            )
        return self

    @property
    def as_of(self) -> int:
        return self.targetChapter - 1

    def outline(self) -> FineOutline:
        return FineOutline.model_validate(
            {"target_chapter": self.targetChapter, **self.fineOutline}
        )


class EvaluationSet(UnaliasedContract):
    evaluationSetVersion: str = Field(min_length=1, max_length=80)
    models: SetModels
    maxGenerationBudget: GenerationBudget
    samples: tuple[Sample, ...] = Field(min_length=1, max_length=200)
    variables: dict[str, int] = Field(
        default_factory=dict,
        description="the optimisation variables rounds may change, with their round-0 values",
    )

    @field_validator("evaluationSetVersion")
    @classmethod
    def _version(cls, value: str) -> str:
        if value != value.strip() or any(ord(ch) < 32 for ch in value):
            raise ValueError("evaluationSetVersion 不能含首尾空白或控制字符")
        return value

    @field_validator("variables", mode="before")
    @classmethod
    def _variables(cls, value: Any) -> Any:
        if isinstance(value, dict):
            problems = [p for k, v in value.items() if (p := variable_problem(str(k), v))]
            if problems:
                raise ValueError("；".join(problems))
        return value

    @property
    def settings(self) -> Settings:
        return Settings.of(self.variables)

    @model_validator(mode="after")
    def _unique(self) -> EvaluationSet:
        ids = [s.sampleId for s in self.samples]
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            raise ValueError(f"sampleId 重复：{', '.join(dupes)}")
        return self

    @property
    def dry_run(self) -> bool:
        """Judged by the offline model: a dry run, never a Gate verdict (spec 000 §10)."""
        return self.models.judge.provider == "offline"


# -- the judge sheet: what judge/score returns (spec 000 §10: five dimensions, 0.5 steps) -------
# Field names are the wire names and every field is required (strict ``json_schema`` output).

Score = Annotated[float, Field(ge=1, le=5, multiple_of=0.5)]


class DimensionScore(UnaliasedContract):
    score: Score
    reason: str
    quotes: list[str] = Field(description="候选正文中的逐字引文")


class JudgeDimensions(UnaliasedContract):
    settingFidelity: DimensionScore = Field(description="设定与实体保真")
    outlineFidelity: DimensionScore = Field(description="情节与细纲忠实")
    narrativeTension: DimensionScore = Field(description="叙事完整与张力")
    styleConsistency: DimensionScore = Field(description="文风一致")
    proseQuality: DimensionScore = Field(description="文笔质量")


class CandidateScore(UnaliasedContract):
    candidateLabel: str
    dimensions: JudgeDimensions


class JudgeScores(UnaliasedContract):
    candidates: list[CandidateScore] = Field(min_length=1)
