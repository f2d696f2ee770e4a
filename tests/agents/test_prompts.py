"""Prompt templates: versioned, strict, and carrying all four parts of a dispatched task."""

from __future__ import annotations

import json

import pytest

from muse.agents.contracts import load_roles
from muse.agents.outputs import DEFAULT_OUTPUTS, WriterDraft
from muse.agents.prompts import (
    PROMPTS_DIR,
    ToolBrief,
    _environment,
    render_prompt,
    template_version,
)
from muse.core.errors import ConfigError

TEMPLATES = sorted(p.relative_to(PROMPTS_DIR).as_posix() for p in PROMPTS_DIR.rglob("*.j2"))
TASK_INPUT = {
    "asOf": 12,
    "targetChapter": 13,
    "fineOutline": {"hardEvents": ["沈青在码头截下密信"]},
}


@pytest.mark.parametrize("name", TEMPLATES)
def test_every_template_states_its_version(name):
    assert template_version(name).endswith(" v1")


@pytest.mark.parametrize("role, task", sorted(DEFAULT_OUTPUTS))
def test_a_dispatched_task_carries_identity_contract_input_and_schema(role, task):
    catalog = load_roles()
    output_model = DEFAULT_OUTPUTS[(role, task)]
    tools = [ToolBrief("read_chapter", "读章")] if catalog.task(role, task).tools else []
    prompt = render_prompt(catalog, role, task, TASK_INPUT, output_model, tools)
    system, user = prompt.messages
    contract = catalog.role(role)
    assert system["role"] == "system" and user["role"] == "user"
    assert contract.displayName in system["content"]
    assert contract.contract.strip().splitlines()[0] in system["content"]  # contract section
    assert "沈青在码头截下密信" in user["content"]  # frozen input
    schema = json.dumps(output_model.model_json_schema(), ensure_ascii=False, indent=2)
    assert schema in user["content"]  # output schema
    assert "JSON" in user["content"]
    assert prompt.templates["task"] == f"{role}/{task} v1"
    assert len(prompt.templates_sha256) == 64
    assert "{{" not in system["content"] + user["content"]


def test_writer_generate_states_the_hard_rules():
    prompt = render_prompt(load_roles(), "writer", "generate", TASK_INPUT, WriterDraft, [])
    text = prompt.messages[1]["content"]
    for phrase in ("没有任何工具", "不可反转", "提前回收", "newSettingDeclarations", "paragraphs"):
        assert phrase in text


def test_writer_generate_adapts_to_another_output_contract():
    from pydantic import BaseModel, ConfigDict

    class CandidateBody(BaseModel):
        model_config = ConfigDict(extra="forbid")
        candidateBody: str
        newSettingDeclarations: list[str]

    text = render_prompt(
        load_roles(), "writer", "generate", TASK_INPUT, CandidateBody, []
    ).messages[1]["content"]
    assert "paragraphs" not in text.replace('"paragraphs"', "")


def test_explore_lists_the_offered_tools_only():
    tools = [ToolBrief("search_prose", "检索前文")]
    text = render_prompt(
        load_roles(), "writer", "explore", TASK_INPUT, DEFAULT_OUTPUTS[("writer", "explore")], tools
    ).messages[1]["content"]
    assert "`search_prose`：检索前文" in text and "`read_chapter`" not in text


def test_rendering_is_deterministic():
    a = render_prompt(
        load_roles(), "judge", "score", TASK_INPUT, DEFAULT_OUTPUTS[("judge", "score")], []
    )
    b = render_prompt(
        load_roles(), "blind_judge", "score", TASK_INPUT, DEFAULT_OUTPUTS[("judge", "score")], []
    )
    assert a == b


def test_a_missing_variable_is_an_error(tmp_path):
    template = _environment().from_string("{{ task_input_json }} {{ not_given }}")
    with pytest.raises(Exception) as caught:
        template.render(task_input_json="{}")
    assert "not_given" in str(caught.value)


def test_a_template_without_a_version_line_is_refused(tmp_path, monkeypatch):
    import muse.agents.prompts as prompts

    (tmp_path / "x.md.j2").write_text("没有版本行", encoding="utf-8")
    monkeypatch.setattr(prompts, "PROMPTS_DIR", tmp_path)
    with pytest.raises(ConfigError):
        prompts.template_version("x.md.j2")
