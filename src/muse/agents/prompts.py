"""Prompt assembly: role identity + contract section + frozen task input + output schema.

Spec 003: a dispatched task loads the role's identity prompt, that role's contract section, the
frozen task input and the output schema of this call, all four, every time. The identity and the
contract go into the system message (stable per role, so providers can cache the prefix); the
task template, the input and the schema go into the user message.

**Stable first, for the provider's prefix cache.** DeepSeek, Qwen, Kimi and OpenAI bill cached
input at a fraction of the price, but only for a prefix identical to an earlier call's. So every
template puts its instructions and output schema first and the frozen task input last, and the
input is sent as its *model view* (:func:`model_view`): the identity and volatile fields (run id,
attempt, context snapshot hash and time, authorization snapshot, candidate hash) are left out (no
model needs a run identity; the stored task input and the frozen, hashed context keep them), and
what changes from one attempt or round to the next goes last, in spec 001 §2.3's order: item 7
(the author's words), then the rewrite list, then the candidate under review. Two attempts or
two rounds of one chapter then share everything up to what really differs.

Templates are Chinese Jinja2 files, one per role and task, under ``prompts/<role>/``. Each opens
with ``{# prompt: <id> v<N> #}``; the ids, versions and a hash of the template sources are stored
in the call's receipt. ``StrictUndefined``: a missing variable is an error, never an empty hole.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, TemplateError
from jinja2.bccache import BytecodeCache
from pydantic import BaseModel

from muse.agents.contracts import RoleCatalog
from muse.agents.schemas import json_schema
from muse.core.canonical import sha256_hex
from muse.core.errors import ConfigError

PROMPTS_DIR = Path(__file__).with_name("prompts")
_VERSION = re.compile(r"^\{#-?\s*prompt:\s*(?P<id>[\w/]+)\s+v(?P<version>\d+)\s*-?#\}")


# Identity and volatile fields: kept in the stored task input and context, never sent.
UNSENT_KEYS = frozenset(
    {
        "runId",
        "attempt",
        "contextSnapshot",
        "generatedAt",
        "authorizationSnapshot",  # a per-run snapshot id and time: what the run was allowed
        "revalidatedAt",
        "exploreReceiptId",  # the explore call of this run
        "candidateSha256",
    }
)
# What changes between attempts and rounds of one chapter, sent last in this order.
LAST_KEYS = ("authorInstruction", "revisionRequest", "candidate")


def model_view(task_input: dict[str, Any]) -> dict[str, Any]:
    """The task input as the model reads it: unsent keys dropped at every depth, the top-level
    keys in their order with :data:`LAST_KEYS` moved to the end."""
    view = _without_unsent(task_input)
    head = {k: v for k, v in view.items() if k not in LAST_KEYS}
    return {**head, **{k: view[k] for k in LAST_KEYS if k in view}}


def _without_unsent(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_unsent(v) for k, v in value.items() if k not in UNSENT_KEYS}
    if isinstance(value, list):
        return [_without_unsent(v) for v in value]
    return value


@dataclass(frozen=True)
class ToolBrief:
    """A tool as the task template describes it."""

    name: str
    description: str


@dataclass(frozen=True)
class RenderedPrompt:
    messages: list[dict[str, Any]]
    templates: dict[str, str]  # part → "<id> v<N>"
    templates_sha256: str  # over the sources of every template used


ENVIRONMENT_OPTIONS: dict[str, Any] = {
    "undefined": StrictUndefined,
    "autoescape": False,
    "keep_trailing_newline": False,
    "trim_blocks": True,
    "lstrip_blocks": True,
}


def template_environment(bytecode_cache: BytecodeCache | None = None) -> Environment:
    """The prompts' Jinja environment: their folder, :data:`ENVIRONMENT_OPTIONS` and a cache."""
    return Environment(
        loader=FileSystemLoader(str(PROMPTS_DIR)),
        bytecode_cache=bytecode_cache,
        **ENVIRONMENT_OPTIONS,
    )


@lru_cache(maxsize=1)
def _environment() -> Environment:
    # the templates compiled at install, when there (see muse.agents.template_cache)
    from muse.agents.template_cache import CACHE_DIR, InstalledTemplateCache

    return template_environment(InstalledTemplateCache(CACHE_DIR, ENVIRONMENT_OPTIONS))


def template_version(name: str) -> str:
    """``"<id> v<N>"`` from the template's first line; a template without one is refused."""
    source = (PROMPTS_DIR / name).read_text(encoding="utf-8")
    match = _VERSION.match(source)
    if not match:
        raise ConfigError(f"提示词模板 {name} 缺少版本行（{{# prompt: <id> v<N> #}}）。")
    return f"{match['id']} v{match['version']}"


def _render(name: str, variables: dict[str, Any]) -> str:
    try:
        return _environment().get_template(name).render(**variables).strip()
    except TemplateError as err:
        raise ConfigError(f"提示词模板 {name} 渲染失败：{err}") from err


def output_schema_json(output_model: type[BaseModel]) -> str:
    return json.dumps(json_schema(output_model), ensure_ascii=False, indent=2)


def render_prompt(
    catalog: RoleCatalog,
    role: str,
    task: str,
    task_input: dict[str, Any],
    output_model: type[BaseModel],
    tools: list[ToolBrief],
) -> RenderedPrompt:
    """The two messages of a dispatched task (spec 003: identity, contract, input, schema)."""
    contract = catalog.role(role)
    task_contract = catalog.task(role, task)
    schema = json_schema(output_model)
    variables = {
        "display_name": contract.displayName,
        "task_input": task_input,
        "task_input_json": json.dumps(model_view(task_input), ensure_ascii=False, indent=2),
        "output_schema_json": json.dumps(schema, ensure_ascii=False, indent=2),
        "output_fields": sorted(schema.get("properties", {})),
        "tools": tools,
    }
    identity = _render(contract.promptFile, variables)
    system = f"{identity}\n\n# 角色合同（{contract.displayName}）\n\n{contract.contract.strip()}"
    user = _render(task_contract.prompt, variables)
    used = [contract.promptFile, task_contract.prompt, "_output.md.j2"]
    sources = "\n".join((PROMPTS_DIR / name).read_text(encoding="utf-8") for name in used)
    return RenderedPrompt(
        messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
        templates={
            "identity": template_version(contract.promptFile),
            "task": template_version(task_contract.prompt),
            "output": template_version("_output.md.j2"),
        },
        templates_sha256=sha256_hex(sources + "\n" + contract.contract),
    )
