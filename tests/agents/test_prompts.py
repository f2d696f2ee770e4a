"""Prompt templates: versioned, strict, and carrying all four parts of a dispatched task."""

from __future__ import annotations

import json
import os
import re

import pytest

from muse.agents.contracts import load_roles
from muse.agents.prompts import (
    PROMPTS_DIR,
    ToolBrief,
    _environment,
    model_view,
    render_prompt,
    template_version,
)
from muse.context.output_contracts import WriterDraft
from muse.core.errors import ConfigError
from tests.agents.role_outputs import ROLE_OUTPUTS

TEMPLATES = sorted(p.relative_to(PROMPTS_DIR).as_posix() for p in PROMPTS_DIR.rglob("*.j2"))
TASK_INPUT = {
    "asOf": 12,
    "targetChapter": 13,
    "fineOutline": {"hardEvents": ["沈青在码头截下密信"]},
}


@pytest.mark.parametrize("name", TEMPLATES)
def test_every_template_states_its_version(name):
    assert re.fullmatch(r"[\w/]+ v\d+", template_version(name))


@pytest.mark.parametrize("role, task", sorted(ROLE_OUTPUTS))
def test_a_dispatched_task_carries_identity_contract_input_and_schema(role, task):
    catalog = load_roles()
    output_model = ROLE_OUTPUTS[(role, task)]
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
    assert prompt.templates["task"] == f"{role}/{task} v2"  # v2: the frozen input last
    assert len(prompt.templates_sha256) == 64
    assert "{{" not in system["content"] + user["content"]


def test_writer_generate_states_the_hard_rules():
    prompt = render_prompt(load_roles(), "writer", "generate", TASK_INPUT, WriterDraft, [])
    text = prompt.messages[1]["content"]
    for phrase in ("没有任何工具", "不可反转", "提前回收", "newSettingDeclarations", "paragraphs"):
        assert phrase in text


def test_detector_check_asks_to_judge_each_event_the_gate_could_not_decide():
    output_model = ROLE_OUTPUTS[("detector", "check")]
    prompt = render_prompt(load_roles(), "detector", "check", TASK_INPUT, output_model, [])
    rules = prompt.messages[1]["content"].split("## 判定规则", 1)[1]
    assert "`mechanicalUndecided`" in rules and "逐条" in rules and "blocking" in rules


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
        load_roles(), "writer", "explore", TASK_INPUT, ROLE_OUTPUTS[("writer", "explore")], tools
    ).messages[1]["content"]
    assert "`search_prose`：检索前文" in text and "`read_chapter`" not in text


def test_rendering_is_deterministic():
    a = render_prompt(
        load_roles(), "judge", "score", TASK_INPUT, ROLE_OUTPUTS[("judge", "score")], []
    )
    b = render_prompt(
        load_roles(), "blind_judge", "score", TASK_INPUT, ROLE_OUTPUTS[("judge", "score")], []
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


def test_the_model_view_leaves_out_identity_and_puts_what_changes_last():
    task_input = {
        "schemaVersion": "writer-context-v1",
        "runId": "run_1",
        "attempt": 2,
        "contextSnapshot": {"sha256": "ab" * 32, "generatedAt": "2026-01-01T00:00:00Z"},
        "revisionRequest": {"items": ["改节奏"]},
        "authorInstruction": {"round": 2, "words": "改：更紧张"},
        "retrievalPlan": {"runId": "run_1", "asOf": 12},
        "authorizationSnapshot": {"id": "auth_1", "revalidatedAt": "2026-01-01T00:00:00Z"},
        "exploration": {"plannedReads": [], "exploreReceiptId": "call_1"},
        "fineOutline": {"title": "码头"},
    }
    assert list(model_view(task_input)) == [
        "schemaVersion",
        "retrievalPlan",
        "exploration",
        "fineOutline",
        "authorInstruction",
        "revisionRequest",
    ]
    view = model_view(task_input)
    assert view["retrievalPlan"] == {"asOf": 12} and view["exploration"] == {"plannedReads": []}
    assert task_input["runId"] == "run_1"  # the stored input is untouched


@pytest.mark.parametrize("role, task", sorted(ROLE_OUTPUTS))
def test_the_frozen_input_closes_the_user_message(role, task):
    """Instructions and schema first, the input last: two attempts share the prefix."""
    catalog = load_roles()
    tools = [ToolBrief("read_chapter", "读章")] if catalog.task(role, task).tools else []
    first = {**TASK_INPUT, "runId": "run_a", "attempt": 1}
    second = {**TASK_INPUT, "runId": "run_b", "attempt": 2, "revisionRequest": {"fix": "x"}}
    model = ROLE_OUTPUTS[(role, task)]
    user_1 = render_prompt(catalog, role, task, first, model, tools).messages[1]["content"]
    user_2 = render_prompt(catalog, role, task, second, model, tools).messages[1]["content"]
    assert user_1.rstrip().endswith("```") and "run_a" not in user_1
    shared = len(os.path.commonprefix([user_1, user_2]))
    assert (
        user_1[:shared].rstrip().endswith(json.dumps(TASK_INPUT, ensure_ascii=False, indent=2)[:-2])
    )
