"""Read-only tools for the explore phases (writer, planner, extractor, detector).

A ``ToolSet`` wraps an ``AsOfReader`` and, optionally, narrows which tools it lends. What a model
is actually offered is the intersection of that set with the task's whitelist in ``roles.yaml``;
the writer's *generate* task and the judge have an empty whitelist, so they are offered nothing
(and ``dispatch`` refuses a ToolSet for them outright).

Every read goes through :meth:`ToolSet.call`, which checks the whitelist, validates the
arguments, runs the read and writes the ledger row — ``ok``, ``refused`` (not whitelisted, or past
``as_of``) or ``error`` (bad arguments). Deterministic replay (no model) calls it the same way
with ``call_id=None``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from pydantic import Field, ValidationError
from sqlalchemy import Engine

from muse.agents.asof_reader import AsOfReader
from muse.agents.errors import AsOfViolation, ToolNotAllowed
from muse.agents.ledger import LedgerBatch, ReadStatus
from muse.agents.schemas import json_schema
from muse.core.contract import UnaliasedContract
from muse.core.errors import InvalidInput


class ReadChapterArgs(UnaliasedContract):
    number: int = Field(ge=1, description="章号（绝对章号）")


class SearchProseArgs(UnaliasedContract):
    query: str = Field(min_length=1, max_length=100, description="检索词，原文中的连续字串")
    limit: int = Field(10, ge=1, le=50, description="最多返回多少条命中")


class GetCardArgs(UnaliasedContract):
    name: str = Field(min_length=1, description="实体名或别名")


class NoArgs(UnaliasedContract):
    pass


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    arguments: type[UnaliasedContract]
    run: Callable[[AsOfReader, Any], Any]

    def openai_schema(self) -> dict[str, Any]:
        parameters = json_schema(self.arguments)
        parameters.pop("title", None)
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": parameters,
            },
        }


TOOL_SPECS: dict[str, ToolSpec] = {
    spec.name: spec
    for spec in (
        ToolSpec(
            "read_chapter",
            "读取冻结点及之前某一章的正式正文全文。",
            ReadChapterArgs,
            lambda r, a: r.read_chapter(a.number),
        ),
        ToolSpec(
            "search_prose",
            "在冻结点及之前的正式正文中检索字串，返回章号、位置和上下文片段。",
            SearchProseArgs,
            lambda r, a: r.search_prose(a.query, a.limit),
        ),
        ToolSpec(
            "get_card",
            "按名字或别名查知识卡在冻结点时的状态与来源章节。",
            GetCardArgs,
            lambda r, a: r.get_card(a.name),
        ),
        ToolSpec(
            "get_outline",
            "读取已确认的大纲、卷纲与本章细纲。",
            NoArgs,
            lambda r, a: r.get_outline(),
        ),
        ToolSpec("get_style", "读取作品的文风档案。", NoArgs, lambda r, a: r.get_style()),
        ToolSpec(
            "get_patterns",
            "读取本作品装配的范式卡（只作结构方法参考）。",
            NoArgs,
            lambda r, a: r.get_patterns(),
        ),
    )
}


class ToolSet:
    """Read-only tools over one as-of view; ``allowed`` narrows the set (default: all)."""

    def __init__(self, reader: AsOfReader, allowed: Iterable[str] | None = None) -> None:
        names = tuple(TOOL_SPECS) if allowed is None else tuple(allowed)
        unknown = [n for n in names if n not in TOOL_SPECS]
        if unknown:
            raise InvalidInput(f"未知工具：{'、'.join(unknown)}。可用：{'、'.join(TOOL_SPECS)}")
        self.reader = reader
        self.allowed = frozenset(names)

    def offered(self, whitelist: Iterable[str]) -> tuple[str, ...]:
        """Tools both this set and the task's whitelist allow, in a fixed order."""
        wanted = set(whitelist)
        return tuple(n for n in TOOL_SPECS if n in self.allowed and n in wanted)

    def call(
        self,
        name: str,
        arguments: dict[str, Any],
        *,
        engine: Engine,
        run_id: str | None = None,
        call_id: str | None = None,
        whitelist: Iterable[str] | None = None,
        batch: LedgerBatch | None = None,
    ) -> Any:
        """Run one read and write its ledger row (into ``batch`` when given: the caller flushes
        it); a refusal or bad arguments raise after logging."""
        permitted = self.offered(TOOL_SPECS if whitelist is None else whitelist)

        ledger = batch if batch is not None else LedgerBatch(engine)

        def log(status: ReadStatus, *, result: Any = None, error: str | None = None) -> None:
            ledger.add(
                run_id=run_id,
                call_id=call_id,
                tool=name[:32],
                arguments=arguments,
                status=status,
                result=result,
                error=error,
            )
            if ledger is not batch:  # no caller's batch: the row is written as the read happens
                ledger.flush()

        if name not in permitted:
            message = f"工具 {name} 不在本任务的授权白名单内（可用：{'、'.join(permitted) or '无'}），已拒绝。"
            log("refused", error=message)
            raise ToolNotAllowed(message)
        spec = TOOL_SPECS[name]
        try:
            args = spec.arguments.model_validate(arguments)
            result = spec.run(self.reader, args)
        except ValidationError as err:
            message = f"工具 {name} 的参数无效：{err.errors(include_url=False)}"
            log("error", error=message)
            raise InvalidInput(message) from err
        except AsOfViolation as err:
            log("refused", error=err.message)
            raise
        except InvalidInput as err:
            log("error", error=err.message)
            raise
        log("ok", result=result)
        return result


class ToolSession:
    """The tools of one model call: what is offered, and how a tool call becomes a tool message."""

    def __init__(
        self,
        toolset: ToolSet,
        whitelist: Iterable[str],
        *,
        engine: Engine,
        run_id: str | None,
        call_id: str,
    ) -> None:
        self.toolset = toolset
        self.offered = toolset.offered(whitelist)
        self.engine, self.run_id, self.call_id = engine, run_id, call_id

    def schemas(self) -> list[dict[str, Any]]:
        return [TOOL_SPECS[name].openai_schema() for name in self.offered]

    def answer(self, name: str, arguments_json: str) -> str:
        """The tool message content for one call: the result, or why it was refused."""
        try:
            arguments = json.loads(arguments_json or "{}")
            if not isinstance(arguments, dict):
                raise ValueError("arguments must be an object")
        except ValueError:
            arguments = {"_unparsed": arguments_json[:2000]}
        try:
            result = self.toolset.call(
                name,
                arguments,
                engine=self.engine,
                run_id=self.run_id,
                call_id=self.call_id,
                whitelist=self.offered,
            )
        except (ToolNotAllowed, AsOfViolation, InvalidInput) as err:
            return json.dumps({"error": err.message}, ensure_ascii=False)
        return json.dumps({"result": result}, ensure_ascii=False)
