"""The save gate's schema half (spec 001 §1A gate 1): required fields present, or 「字段存疑：原因」.

:func:`parse_stage_payload` validates a payload against its stage's contract and reports every
problem at once, each with its dotted path and Chinese label, so that the YAML layer can add the
file's line numbers. Doubtful fields and missing recommended fields are findings, never silent.
"""

from __future__ import annotations

import typing
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from muse.core.errors import InvalidInput
from muse.patterns import doubt_reason
from muse.planning.findings import Finding, warning
from muse.planning.stages import StageDef

# Labels of the fine outline's fields (its contract predates the titled stage contracts).
FALLBACK_LABELS = {
    "target_chapter": "目标章",
    "title": "章名",
    "hard_constraints": "硬约束",
    "hard_events": "硬事件",
    "result_direction": "结果方向",
    "foreshadowing": "伏笔动作",
    "chapter_end_hook": "章末钩子",
    "required_entities": "必须出场实体",
    "required_scenes": "必需场景",
    "adjustable_beats": "可调整节拍",
    "new_canonical_facts": "新设定申报",
    "target_chars": "目标字数",
    "thread": "伏笔",
    "action": "动作",
    "cards": "涉及卡片",
    "text": "内容",
    "id": "编号",
    "name": "名称",
    "role": "身份",
    "foreshadowing_note": "无伏笔动作的原因",
    "schema_version": "格式版本",
}


@dataclass(frozen=True)
class Problem:
    path: tuple[str | int, ...]
    label: str
    message: str

    @property
    def dotted(self) -> str:
        return ".".join(str(p) for p in self.path) or "（整体）"

    def text(self) -> str:
        return f"字段「{self.dotted}」（{self.label}）：{self.message}"


class PayloadInvalid(InvalidInput):
    """A payload that breaks its stage's schema; ``problems`` name every field."""

    def __init__(self, stage: StageDef, problems: list[Problem]):
        self.stage, self.problems = stage, problems
        body = "\n".join(f"  · {p.text()}" for p in problems)
        super().__init__(f"{stage.name}不合格（{len(problems)} 处）：\n{body}")


def _inner_model(annotation: object) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        found = _inner_model(arg)
        if found is not None:
            return found
    return None


def field_label(model: type[BaseModel], loc: tuple) -> str:
    labels: list[str] = []
    current: type[BaseModel] | None = model
    for part in loc:
        if isinstance(part, int):
            labels.append(f"第 {part + 1} 项")
        elif current is not None and part in current.model_fields:
            info = current.model_fields[part]
            labels.append(info.title or FALLBACK_LABELS.get(part, part))
            current = _inner_model(info.annotation)
        elif current is not None:  # a key the schema does not have
            labels.append(str(part))
            current = None
    return " › ".join(labels) or "整体"


def _clean_loc(model: type[BaseModel], loc: tuple) -> tuple:
    """Drop pydantic's union-member tags (``'tuple[str, ...]'``) from a location."""
    out: list = []
    current: type[BaseModel] | None = model
    for part in loc:
        if isinstance(part, int):
            out.append(part)
        elif current is not None and part in current.model_fields:
            out.append(part)
            current = _inner_model(current.model_fields[part].annotation)
        elif current is not None:  # a key the schema does not have (extra_forbidden)
            out.append(part)
            current = None
    return tuple(out)


def _message(e: Any, is_text: bool) -> str:
    kind, ctx = e["type"], e.get("ctx") or {}
    messages = {
        "missing": "缺失" + ("（确实无从判断时可写「字段存疑：原因」）" if is_text else ""),
        "extra_forbidden": "是格式里没有的字段",
        "string_too_short": "不能为空",
        "string_too_long": f"过长（最多 {ctx.get('max_length')} 个字符）",
        "too_short": f"至少要有 {ctx.get('min_length')} 项",
        "greater_than_equal": f"应不小于 {ctx.get('ge')}",
        "int_type": "应为整数",
        "int_parsing": "应为整数",
        "int_from_float": "应为整数",
        "string_type": "应为一段文字",
        "bool_type": "应为 true 或 false",
        "tuple_type": "应为列表",
        "list_type": "应为列表",
        "model_type": "应为键值表",
        "dict_type": "应为键值表",
        "model_attributes_type": "应为键值表",
        "literal_error": f"取值应为 {ctx.get('expected')}",
        "string_pattern_mismatch": "格式不对",
    }
    if kind == "value_error":
        return str(ctx.get("error", e["msg"]))
    return messages.get(kind, e["msg"])


def _is_text_field(model: type[BaseModel], loc: tuple) -> bool:
    current: type[BaseModel] | None = model
    info = None
    for part in loc:
        if isinstance(part, str) and current is not None and part in current.model_fields:
            info = current.model_fields[part]
            current = _inner_model(info.annotation)
    return info is not None and str in (typing.get_args(info.annotation) or (info.annotation,))


def parse_stage_payload(stage: StageDef, payload: object) -> BaseModel:
    """The payload as its stage's contract, or :class:`PayloadInvalid` naming every problem."""
    if not isinstance(payload, dict) or not payload:
        raise InvalidInput(f"{stage.name}内容必须是非空对象（键值表）。")
    try:
        model = stage.contract.model_validate(payload)
    except ValidationError as err:
        located = [(e, _clean_loc(stage.contract, e["loc"])) for e in err.errors()]
        deeper = {loc[:n] for _, loc in located for n in range(len(loc))}
        problems = [
            Problem(
                loc,
                field_label(stage.contract, loc),
                _message(e, _is_text_field(stage.contract, loc)),
            )
            for e, loc in located
            if not (e["type"] == "too_short" and loc in deeper)
        ]  # items failed, not length
        raise PayloadInvalid(stage, _dedupe(problems)) from None
    empty_doubts = [
        Problem(path, field_label(stage.contract, path), "「字段存疑」必须写明原因")
        for path, reason in iter_doubts(model)
        if not reason
    ]
    if empty_doubts:
        raise PayloadInvalid(stage, empty_doubts)
    return model


def _dedupe(problems: list[Problem]) -> list[Problem]:
    seen, out = set(), []
    for p in problems:
        if (p.path, p.message) not in seen:
            seen.add((p.path, p.message))
            out.append(p)
    return out


def iter_doubts(value: object, path: tuple = ()) -> Iterator[tuple[tuple, str]]:
    """(path, reason) of every 「字段存疑」 value inside a validated model."""
    if isinstance(value, BaseModel):
        for name in type(value).model_fields:
            yield from iter_doubts(getattr(value, name), (*path, name))
    elif isinstance(value, (tuple, list)):
        for index, item in enumerate(value):
            yield from iter_doubts(item, (*path, index))
    elif (reason := doubt_reason(value)) is not None:
        yield path, reason


def schema_findings(stage: StageDef, model: BaseModel, payload: dict) -> list[Finding]:
    """Doubtful fields and missing recommended fields: reported, never blocking."""
    found = [
        warning("field_in_doubt", f"字段存疑：{reason}", field=".".join(map(str, path)))
        for path, reason in iter_doubts(model)
    ]
    for name in stage.recommended:
        if not payload.get(name):
            label = field_label(stage.contract, (name,))
            found.append(warning("recommended_missing", f"推荐字段「{label}」缺失", field=name))
    return found


def is_doubt(value: object) -> bool:
    return doubt_reason(value) is not None
