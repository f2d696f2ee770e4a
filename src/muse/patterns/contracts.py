"""Contracts of pattern cards and of the style profile (文风画像, spec glossary: eight fields).

Snake_case keys, like every planning payload the author edits as YAML; the wire form handed to
the WriterContext is camelCase (:func:`style_wire`). Each field carries its Chinese label as its
``title``: error messages and YAML templates show the label, never only the key.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import Field, field_validator
from pydantic.alias_generators import to_camel

from muse.core.contract import UnaliasedContract

DOUBT_MARKER = "字段存疑"
_DOUBT = re.compile(rf"^{DOUBT_MARKER}\s*[：:]\s*(?P<reason>.*)$", re.S)


def doubt_reason(value: object) -> str | None:
    """The reason of a 「字段存疑：原因」 value ('' when the reason is missing), else None."""
    if not isinstance(value, str):
        return None
    found = _DOUBT.match(value.strip())
    return found.group("reason").strip() if found else None


def list_or_doubt(value: tuple[str, ...] | str) -> tuple[str, ...] | str:
    """A non-empty list of non-empty items, or a 「字段存疑：原因」 in its place."""
    if isinstance(value, str):
        if doubt_reason(value) is None:
            raise ValueError("应为列表（或写「字段存疑：原因」）")
        return value
    if not value or any(not item.strip() for item in value):
        raise ValueError("至少写一项，且不能有空项")
    return tuple(item.strip() for item in value)


class Strict(UnaliasedContract):
    @field_validator("*", mode="before")
    @classmethod
    def _strip_text(cls, value: object) -> object:
        return value.strip() if isinstance(value, str) else value


class PatternContent(Strict):
    """One reusable structural method. Immutable per version: a change is a new version."""

    name: str = Field(min_length=1, max_length=200, title="范式名称")
    category: str = Field(min_length=1, max_length=40, title="类别")
    summary: str = Field(min_length=1, title="要义")
    steps: tuple[str, ...] = Field(min_length=1, title="做法")
    when_to_use: str = Field(min_length=1, title="适用场景")
    avoid: tuple[str, ...] = Field(default=(), title="禁忌")
    example: str = Field(default="", title="示例")


class PatternFile(PatternContent):
    """A pattern card as written in a YAML file: its content plus the stable key."""

    key: str = Field(min_length=1, max_length=80, pattern=r"^[a-z0-9][a-z0-9_-]*$", title="范式键")


class StyleProfile(Strict):
    """文风画像: the eight fields of the spec glossary, all required (or 「字段存疑：原因」)."""

    person_viewpoint: str = Field(min_length=1, title="叙事人称视角")
    sentence_style: str = Field(min_length=1, title="句式")
    narration_mix: str = Field(min_length=1, title="叙述配比")
    diction: str = Field(min_length=1, title="用词质感")
    ai_blacklist: tuple[str, ...] | str = Field(title="AI 味黑名单")
    dialogue_style: str = Field(min_length=1, title="对话风格")
    chapter_end_hook_style: str = Field(min_length=1, title="章末钩子风格")
    sample_passage: str = Field(min_length=1, title="达标样张")

    _blacklist = field_validator("ai_blacklist")(classmethod(lambda cls, v: list_or_doubt(v)))


STYLE_FIELDS = tuple(StyleProfile.model_fields)


def style_wire(profile: StyleProfile) -> dict[str, Any]:
    """The camelCase form of a style profile (``personViewpoint`` …) for the WriterContext."""
    return {to_camel(k): v for k, v in profile.model_dump(mode="json").items()}
