"""Reading cards YAML, the format authors edit by hand (docs/cards.md); export is yaml_export.py.

Keys may be written in Chinese (what ``export`` writes) or in English. Every source reference is
verified against the current canonical text while parsing; every error names the file, the line
and the field, and a file with any error imports nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import ValidationError
from sqlalchemy import Connection

from muse.core.errors import ContractViolation, InvalidInput
from muse.knowledge.card_types import DOUBT_MARKER, CardType, card_type, parse_doubt
from muse.knowledge.cards import validate_spec
from muse.knowledge.contracts import (
    Alias,
    CardField,
    CardSpec,
    Cycle,
    Milestone,
    PlannedStep,
    Relation,
    SourceRef,
)
from muse.knowledge.source_refs import ChapterTexts, resolve_ref
from muse.knowledge.yaml_doc import Node, Problems, compose, expect, int_of, keyed, text_of
from muse.works import get_work_row

T = TypeVar("T")

FORMAT = "muse-cards-v1"

TOP = {"format": ("格式",), "work": ("作品",), "cards": ("卡片",)}
CARD = {
    "type": ("类型",),
    "name": ("名称",),
    "aliases": ("别名",),
    "fields": ("字段",),
    "relations": ("关系",),
    "milestones": ("演变历程",),
    "growth_arc": ("成长弧线",),
    "ending_direction": ("结局方向",),
    "end_state": ("全书终态",),
    "refs": ("出处",),
}
ALIAS = {"name": ("名称",), "since_chapter": ("起始章",)}
FIELD = {"value": ("值",), "since_chapter": ("起始章",), "refs": ("出处",)}
RELATION = {
    "kind": ("关系",),
    "target": ("对象",),
    "since_chapter": ("起始章",),
    "note": ("说明",),
    "refs": ("出处",),
}
MILESTONE = {
    "chapter": ("章",),
    "step": ("台阶",),
    "cycle": ("周期",),
    "description": ("描述",),
    "refs": ("出处",),
}
STEP = {"chapter": ("章",), "step": ("台阶",), "cycle": ("周期",), "description": ("描述",)}
REF = {
    "chapter": ("章",),
    "quote": ("引文",),
    "start": ("起",),
    "end": ("止",),
    "sha256": ("哈希",),
    "revision": ("修订",),
    "stale": ("失效",),
}

_CHAPTER = re.compile(r"^第?\s*(\d+)\s*[章回]?$")


class CardParser:
    """Turns YAML nodes into verified :class:`CardSpec` objects, collecting every problem."""

    def __init__(self, texts: ChapterTexts, problems: Problems) -> None:
        self.texts = texts
        self.problems = problems
        self.warnings: list[str] = []

    def card(self, node: Node) -> CardSpec | None:
        parts = keyed(node, CARD, "卡片", self.problems)
        name = text_of(parts.get("name"), "名称", self.problems, required_at=node.line)
        kind = self._type(parts.get("type"), node.line)
        if not parts or name is None or kind is None:
            return None
        before = len(self.problems.items)
        spec = dict(
            type=kind.key,
            name=name,
            aliases=self._list(parts.get("aliases"), "别名", self._alias),
            fields=self._fields(parts.get("fields"), kind, name),
            relations=self._list(parts.get("relations"), "关系", self._relation),
            milestones=self._list(parts.get("milestones"), "演变历程", self._milestone),
            growth_arc=self._list(parts.get("growth_arc"), "成长弧线", self._step),
            ending_direction=text_of(parts.get("ending_direction"), "结局方向", self.problems),
            end_state=text_of(parts.get("end_state"), "全书终态", self.problems),
            refs=self.refs(parts.get("refs")),
        )
        if len(self.problems.items) > before:
            return None
        return self._finish(spec, node.line, parts.get("fields"))

    def _finish(self, spec: dict[str, Any], line: int, fields_node: Node | None) -> CardSpec | None:
        try:
            card = CardSpec(**spec)
        except ValidationError as err:
            self.problems.add(line, f"卡片「{spec['name']}」：{err.errors()[0]['msg']}")
            return None
        for message in validate_spec(card):
            self.problems.add(
                fields_node.line if fields_node else line, f"卡片「{card.name}」：{message}"
            )
        for m in card.milestones:
            if m.chapter is None:
                self.warnings.append(
                    f"「{card.name}」的里程碑「{m.step or m.description}」没有绝对章号，"
                    "不会进入任何冻结视图。"
                )
        return card

    def _type(self, node: Node | None, line: int) -> CardType | None:
        text = text_of(node, "类型", self.problems, required_at=line)
        if text is None:
            return None
        try:
            return card_type(text)
        except InvalidInput as err:
            self.problems.add(node.line if node else line, f"{err.message}{err.hint or ''}")
            return None

    def _list(self, node: Node | None, what: str, parse: Callable[[Node], T | None]) -> list[T]:
        if node is None or not expect(node, "seq", what, self.problems):
            return []
        return [item for child in node.children() if (item := parse(child)) is not None]

    def _alias(self, node: Node) -> Alias | None:
        if node.kind == "scalar":
            name = text_of(node, "别名", self.problems, required_at=node.line)
            return Alias(name=name) if name else None
        parts = keyed(node, ALIAS, "别名", self.problems)
        name = text_of(parts.get("name"), "别名的名称", self.problems, required_at=node.line)
        since = int_of(parts.get("since_chapter"), "起始章", self.problems)
        return Alias(name=name, since_chapter=since) if name else None

    def _fields(self, node: Node | None, kind: CardType, card: str) -> dict[str, CardField]:
        out: dict[str, CardField] = {}
        if node is None or not expect(node, "map", "字段", self.problems):
            return out
        for label, child in node.items():
            definition = kind.field(label)
            if definition is None:
                allowed = "、".join(f.label for f in kind.fields)
                self.problems.add(
                    child.line,
                    f"卡片「{card}」：「{kind.label}」没有字段「{label}」；可用字段：{allowed}。",
                )
            elif definition.key in out:
                self.problems.add(child.line, f"卡片「{card}」：字段「{definition.label}」重复了。")
            elif (value := self._field(child, definition.label, definition.list)) is not None:
                out[definition.key] = value
        return out

    def _field(self, node: Node, label: str, is_list: bool) -> CardField | None:
        since, refs, value_node = None, [], node
        if node.kind == "map":
            parts = keyed(node, FIELD, f"字段「{label}」", self.problems)
            since = int_of(parts.get("since_chapter"), "起始章", self.problems)
            refs = self.refs(parts.get("refs"))
            if "value" not in parts:
                self.problems.add(node.line, f"字段「{label}」缺少「值」。")
                return None
            value_node = parts["value"]
        value = value_node.value()
        doubt = parse_doubt(value)
        if doubt is not None:
            if not doubt:
                self.problems.add(
                    value_node.line, f"字段「{label}」的「{DOUBT_MARKER}」必须写明原因。"
                )
                return None
            return CardField(doubt=doubt, since_chapter=since, refs=refs)
        return self._field_value(value_node, label, is_list, since, refs)

    def _field_value(
        self, node: Node, label: str, is_list: bool, since: int | None, refs: list[SourceRef]
    ) -> CardField | None:
        value = node.value()
        if is_list and not isinstance(value, list):
            value = [value]
        items = value if isinstance(value, list) else [value]
        if any(isinstance(v, dict | list) or v is None or str(v).strip() == "" for v in items):
            self.problems.add(
                node.line,
                f"字段「{label}」的值应为文字{'或文字列表' if is_list else ''}，不能为空。",
            )
            return None
        if isinstance(value, list) and not is_list:
            self.problems.add(node.line, f"字段「{label}」应为一段文字，不是列表。")
            return None
        text: str | list[str] = [str(v).strip() for v in value] if is_list else str(value).strip()
        return CardField(value=text, since_chapter=since, refs=refs)

    def _relation(self, node: Node) -> Relation | None:
        parts = keyed(node, RELATION, "关系", self.problems)
        kind = text_of(parts.get("kind"), "关系", self.problems, required_at=node.line)
        target = text_of(parts.get("target"), "对象", self.problems, required_at=node.line)
        since = int_of(parts.get("since_chapter"), "起始章", self.problems)
        note = text_of(parts.get("note"), "说明", self.problems)
        refs = self.refs(parts.get("refs"))
        if kind is None or target is None:
            return None
        return Relation(kind=kind, target=target, since_chapter=since, note=note, refs=refs)

    def _cycle(self, node: Node | None, line: int) -> Cycle | None:
        text = text_of(node, "周期", self.problems, required_at=line)
        for cycle in Cycle:
            if text in (cycle.value, cycle.name):
                return cycle
        if text is not None:
            self.problems.add(
                node.line if node else line,
                f"「周期」只能是 {' / '.join(c.value for c in Cycle)}，写成了「{text}」。",
            )
        return None

    def _chapter(self, node: Node | None) -> tuple[int | None, str | None]:
        if node is None:
            return None, None
        value = node.value()
        if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
            return value, None
        match = _CHAPTER.match(str(value).strip())
        if match and int(match.group(1)) >= 1:
            return int(match.group(1)), None
        return None, str(value)

    def _milestone(self, node: Node) -> Milestone | None:
        parts = keyed(node, MILESTONE, "里程碑", self.problems)
        cycle = self._cycle(parts.get("cycle"), node.line)
        chapter, note = self._chapter(parts.get("chapter"))
        step = text_of(parts.get("step"), "台阶", self.problems) or ""
        description = text_of(parts.get("description"), "描述", self.problems) or ""
        refs = self.refs(parts.get("refs"))
        if cycle is None:
            return None
        return Milestone(
            chapter=chapter,
            chapter_note=note,
            step=step,
            cycle=cycle,
            description=description,
            refs=refs,
        )

    def _step(self, node: Node) -> PlannedStep | None:
        parts = keyed(node, STEP, "成长弧线", self.problems)
        cycle = self._cycle(parts.get("cycle"), node.line)
        chapter, _ = self._chapter(parts.get("chapter"))
        step = text_of(parts.get("step"), "台阶", self.problems) or ""
        description = text_of(parts.get("description"), "描述", self.problems) or ""
        return (
            PlannedStep(chapter=chapter, step=step, cycle=cycle, description=description)
            if cycle
            else None
        )

    def refs(self, node: Node | None) -> list[SourceRef]:
        return self._list(node, "出处", self._ref)

    def _ref(self, node: Node) -> SourceRef | None:
        parts = keyed(node, REF, "出处", self.problems)
        if not parts:
            return None
        chapter = int_of(parts.get("chapter"), "章", self.problems)
        if chapter is None:
            if "chapter" not in parts:
                self.problems.add(node.line, "出处缺少「章」。")
            return None
        if "stale" in parts:
            self.problems.add(
                node.line, "出处已失效（原文已修改）：请按新原文更新引文，或删除这条出处。"
            )
            return None
        get = {
            k: (parts[k].value() if k in parts else None)
            for k in ("quote", "start", "end", "sha256")
        }
        try:
            return resolve_ref(self.texts, chapter, **get)
        except (ContractViolation, TypeError) as err:
            self.problems.add(node.line, str(err))
            return None


def parse_cards_yaml(
    conn: Connection,
    work_id: int,
    text: str,
    *,
    filename: str = "cards.yaml",
) -> tuple[list[CardSpec], list[str]]:
    """Every card of a YAML document, verified; raises InvalidInput naming file, line and field."""
    problems = Problems(filename)
    root = compose(text, problems)
    parser = CardParser(ChapterTexts(conn, work_id), problems)
    specs: list[CardSpec] = []
    if root is not None:
        cards_node = _cards_node(conn, work_id, root, problems)
        seen: dict[tuple[str, str], int] = {}
        for child in cards_node.children() if cards_node else []:
            spec = parser.card(child)
            if spec is None:
                continue
            if (spec.type, spec.name) in seen:
                problems.add(
                    child.line,
                    f"卡片「{spec.name}」重复（第 {seen[(spec.type, spec.name)]} 行已有同类型同名卡片）。",
                )
            seen.setdefault((spec.type, spec.name), child.line)
            specs.append(spec)
    problems.raise_if_any()
    return specs, parser.warnings


def _cards_node(conn: Connection, work_id: int, root: Node, problems: Problems) -> Node | None:
    if root.kind == "seq":
        return root
    parts = keyed(root, TOP, "文件顶层", problems)
    fmt = text_of(parts.get("format"), "格式", problems)
    if fmt is not None and fmt != FORMAT:
        problems.add(parts["format"].line, f"不认识的格式「{fmt}」，应为 {FORMAT}。")
    work = text_of(parts.get("work"), "作品", problems)
    title = get_work_row(conn, work_id).title
    if work is not None and work != title:
        problems.add(parts["work"].line, f"文件写的是《{work}》，要导入的作品是《{title}》。")
    node = parts.get("cards")
    if node is None:
        problems.add(root.line, "缺少「卡片」列表。")
        return None
    return node if expect(node, "seq", "卡片", problems) else None
