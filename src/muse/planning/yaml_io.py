"""Plan files the author edits in their own editor (YAML): reading with line numbers, writing with labels.

Errors name the file, the line and the field: the document is composed with PyYAML's node marks
and every value's path is mapped to its line, so a schema problem at ``volumes.1.goal`` points
at the line of that value (or, for a missing field, at the line of its parent). Exported files
open with a comment block giving each field's Chinese label.
"""

from __future__ import annotations

import typing
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from muse.core.errors import InvalidInput
from muse.core.text import normalize_text
from muse.core.yaml_safe import compose as bounded_compose
from muse.core.yaml_safe import safe_load as bounded_load
from muse.planning.stages import STAGES, StageDef
from muse.planning.validation import FALLBACK_LABELS, PayloadInvalid

Lines = dict[tuple[int | str, ...], int]


def load_yaml(path: Path) -> dict[str, Any]:
    """A plan file as a non-empty mapping (see :func:`load_plan_file` for line numbers)."""
    return load_plan_file(path)[0]


def _read(path: Path) -> str:
    try:
        return normalize_text(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise InvalidInput(f"{path}：不是 UTF-8 文本。") from None


def load_plan_file(path: Path) -> tuple[dict[str, Any], Lines]:
    """The file's data and the line (1-based) of every value path."""
    return parse_plan_text(_read(path), path)


def parse_plan_text(text: str, path: Path | str) -> tuple[dict[str, Any], Lines]:
    """A plan document's data and the line of every value path; ``path`` names it in errors
    (a file, or the workbench's editor)."""
    text = normalize_text(text)
    try:
        root = bounded_compose(text)
        data = bounded_load(text)
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark
        where = f"{path}:{mark.line + 1}" if mark else str(path)
        raise InvalidInput(f"{where}: YAML 格式错误：{err.problem}") from None
    if not isinstance(data, dict) or not data:
        raise InvalidInput(f"{path}:1: 内容必须是非空的键值表。")
    lines: Lines = {}
    _walk(root, (), lines)
    return data, lines


def _walk(node: Node | None, path: tuple[int | str, ...], lines: Lines) -> None:
    if node is None:
        return
    lines[path] = node.start_mark.line + 1
    if isinstance(node, MappingNode):
        for key, value in node.value:
            name = key.value if isinstance(key, ScalarNode) else str(key)
            lines[(*path, name)] = key.start_mark.line + 1
            _walk(value, (*path, name), lines)
            if isinstance(value, (MappingNode, SequenceNode)):
                lines[(*path, name)] = key.start_mark.line + 1
    elif isinstance(node, SequenceNode):
        for index, item in enumerate(node.value):
            _walk(item, (*path, index), lines)


def line_of(lines: Lines, path: tuple[int | str, ...]) -> int:
    """The line of ``path``, else of its nearest written ancestor."""
    for end in range(len(path), -1, -1):
        if path[:end] in lines:
            return lines[path[:end]]
    return 1


def locate(err: PayloadInvalid, lines: Lines, path: Path | str) -> InvalidInput:
    """The schema problems of a file as ``file:line: field (label): message``, one per line."""
    rows = sorted((line_of(lines, p.path), p) for p in err.problems)
    body = "\n".join(f"{path}:{line}: {p.text()}" for line, p in rows)
    return InvalidInput(
        f"{path} 有 {len(rows)} 处问题（{err.stage.name}）：\n{body}",
        hint="改好后重新导入；格式见 docs/planning.md。",
    )


# -- stage of a file --------------------------------------------------------------------------

_VERSIONS = {
    "work-foundation-v1": 0,
    "work-outline-v1": 1,
    "setting-signoff-v1": 2,
    "assembly-v1": 3,
    "fine-outline-v1": 4,
}
_MARKERS = (
    ("hard_constraints", 4),
    ("work_core", 0),
    ("mainline", 1),
    ("volumes", 1),
    ("style", 3),
    ("patterns", 3),
    ("cards", 2),
)


def guess_stage(data: dict[str, Any], path: Path) -> StageDef:
    if data.get("schema_version") in _VERSIONS:
        return STAGES[_VERSIONS[data["schema_version"]]]
    for key, stage in _MARKERS:
        if key in data:
            return STAGES[stage]
    raise InvalidInput(f"{path}：看不出是哪个阶段的规划。", hint="用 --stage 指定（0–4）。")


# -- writing ------------------------------------------------------------------------------------


def _inner(annotation: object) -> list[Any]:
    args = typing.get_args(annotation)
    return [a for a in args if a is not type(None) and a is not Ellipsis] or [annotation]


def _label_lines(model: type[BaseModel], prefix: str, out: list[str]) -> None:
    for name, info in model.model_fields.items():
        label = info.title or FALLBACK_LABELS.get(name, name)
        out.append(f"#   {prefix}{name}：{label}")
        for arg in _inner(info.annotation):
            for inner in _inner(arg):
                if isinstance(inner, type) and issubclass(inner, BaseModel):
                    _label_lines(inner, f"{prefix}{name}.", out)


def template(model: type[BaseModel]) -> dict[str, Any]:
    """An empty skeleton of ``model``: importing it unfilled names every field to fill."""
    out: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        if not info.is_required():
            default = info.get_default(call_default_factory=True)
            item = _inner(info.annotation)[0]
            shaped = isinstance(item, type) and issubclass(item, BaseModel)
            out[name] = (
                [template(item)]
                if isinstance(default, tuple) and shaped
                else (list(default) if isinstance(default, tuple) else default)
            )
            continue
        out[name] = _empty(info.annotation)
    return out


def _empty(annotation: object) -> object:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return template(annotation)
    origin = typing.get_origin(annotation)
    if origin in (tuple, list):
        item = _inner(annotation)[0]
        return [_empty(item)]
    if origin is not None:  # a union: take its first member
        return _empty(_inner(annotation)[0])
    return 0 if annotation is int else ""


def dump_plan(stage: StageDef, payload: dict[str, Any], *, source: str | None = None) -> str:
    header = [f"# {stage.label}（{stage.key}）。字段与中文名：", *_label_lines_of(stage)]
    if source:
        header.insert(1, f"# 来源：{source}")
    header.append("# 必填的文字字段确实无从判断时，可写「字段存疑：原因」；保存后作者确认才生效。")
    body: str = yaml.safe_dump(payload, allow_unicode=True, sort_keys=False, width=100)
    return "\n".join(header) + "\n" + body


def _label_lines_of(stage: StageDef) -> list[str]:
    out: list[str] = []
    _label_lines(stage.contract, "", out)
    return out
