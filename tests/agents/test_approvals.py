"""Author-approved model policy versions: stored immutably, enforced by dispatch like built-ins."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from sqlalchemy import select, text, update
from sqlalchemy.exc import DBAPIError

from muse.agents.approvals import approve_model, effective_catalog, stored_approvals
from muse.agents.errors import ModelMismatch, ModelNotAllowed
from muse.agents.model_choice import ModelChoice, recorded_choice
from muse.agents.policy import check_model_allowed, check_reported_model, frozen_policy
from muse.agents.tables import model_calls, model_policy_versions
from muse.core.errors import InvalidInput
from tests.agents.payloads import DRAFT


def test_a_local_model_is_refused_until_approved_then_dispatched(call, stub, engine):
    with pytest.raises(ModelNotAllowed) as refused:
        call(model="qwen2.5:7b")
    assert "muse models approve --role writer --provider stub --model qwen2.5:7b" in str(
        refused.value.hint
    )
    assert not stub.requests  # refused before anything was sent

    approval = approve_model(
        engine, role="writer", provider="stub", models=["qwen2.5:7b"], approved_by="作者"
    )
    stub.reply_json(DRAFT, model="qwen2.5:7b")
    result = call(model="qwen2.5:7b")

    assert result.model_returned == "qwen2.5:7b"
    assert stub.requests[0].body["model"] == "qwen2.5:7b"
    with engine.connect() as conn:
        receipt = (
            conn.execute(select(model_calls).where(model_calls.c.status == "ok")).mappings().one()
        )
    assert (receipt["policy_name"], receipt["policy_version"]) == ("fixed", approval.version)


def test_an_approval_records_who_when_which_ids_and_extends_the_current_version(engine):
    first = approve_model(engine, role="writer", provider="ollama", models=["qwen2.5:7b"])
    second = approve_model(
        engine, role="writer", provider="my-vllm", models=["Qwen2.5-32B", "Qwen2.5-32B"]
    )

    assert (first.version, first.base_version) == ("writer-approved-v1", "role-policy-v1")
    assert (second.version, second.base_version) == ("writer-approved-v2", "writer-approved-v1")
    assert second.added == ({"provider": "my-vllm", "model": "Qwen2.5-32B"},)
    assert second.models[-2:] == ("qwen2.5:7b", "Qwen2.5-32B")
    assert first.approved_by and first.approved_at
    catalog = effective_catalog(engine)
    assert catalog.roles["writer"].modelPolicyVersion == "writer-approved-v2"
    assert catalog.roles["planner"].modelPolicyVersion == "role-policy-v1"  # other roles unchanged
    with engine.connect() as conn:
        assert [a.version for a in stored_approvals(conn)] == [first.version, second.version]


def test_a_task_frozen_under_an_older_version_keeps_it(engine):
    approve_model(engine, role="writer", provider="ollama", models=["qwen2.5:7b"])
    catalog = effective_catalog(engine)

    check_model_allowed(catalog, "writer", "ollama", "qwen2.5:7b")  # current version: allowed
    with pytest.raises(ModelNotAllowed):
        check_model_allowed(catalog, "writer", "ollama", "qwen2.5:7b", "role-policy-v1")


def test_approved_versions_are_immutable_in_the_database(engine):
    approve_model(engine, role="writer", provider="ollama", models=["qwen2.5:7b"])
    for statement in (
        update(model_policy_versions).values(models=["offline-1", "anything"]),
        text("DELETE FROM model_policy_versions"),
    ):
        with pytest.raises(DBAPIError, match="immutable"), engine.begin() as conn:
            conn.execute(statement)


@dataclass(frozen=True)
class Refusal:
    role: str
    models: tuple[str, ...]
    provider: str
    words: str


REFUSALS = [
    Refusal("writer", ("qwen*",), "ollama", "通配符"),
    Refusal("judge", ("glm-*",), "zhipu", "judge-fixed"),
    Refusal("writer", ("",), "ollama", "不能为空"),
    Refusal("writer", ("qwen 7b",), "ollama", "空白"),
    Refusal("writer", ("qwen2.5:7b",), "", "--provider"),
    Refusal("poet", ("qwen2.5:7b",), "ollama", "未知角色"),
    Refusal("writer", ("deepseek-chat",), "deepseek", "无需再次核准"),
]


@pytest.mark.parametrize("case", REFUSALS, ids=lambda c: f"{c.role}-{c.models[0] or 'empty'}")
def test_bad_approvals_are_refused_and_store_nothing(engine, case):
    with pytest.raises((InvalidInput, ModelNotAllowed)) as refused:
        approve_model(engine, role=case.role, provider=case.provider, models=list(case.models))
    assert case.words in str(refused.value)
    with engine.connect() as conn:
        assert stored_approvals(conn) == []


def test_the_judge_whitelist_stays_exact_after_an_approval(engine):
    approval = approve_model(engine, role="blind_judge", provider="x", models=["judge-model-9"])
    policy = frozen_policy(effective_catalog(engine), "judge")

    assert approval.role == "judge" and approval.policy_name == "judge-fixed"
    assert approval.patterns == () and approval.reported_aliases == {}
    assert policy.allowance.models[-1] == "judge-model-9"
    check_reported_model(policy, "judge-model-9", "judge-model-9")
    with pytest.raises(ModelMismatch):  # no dated alias, no switch among whitelist members
        check_reported_model(policy, "judge-model-9", "judge-model-9-2026-01-01")
    with pytest.raises(ModelNotAllowed):
        check_model_allowed(effective_catalog(engine), "judge", "x", "judge-model-9b")


def test_receipts_record_where_the_model_came_from(call, stub, engine):
    stub.reply_json(DRAFT).reply_json(DRAFT)
    with recorded_choice(ModelChoice("writer", "stub", "deepseek-chat", "work", "t", "作者")):
        call()
    with recorded_choice(ModelChoice("writer", "stub", "other-model", "work")):
        call()  # the call does not use the chosen model: nothing recorded
    with engine.connect() as conn:
        params = [
            r.request_params
            for r in conn.execute(select(model_calls).order_by(model_calls.c.started_at))
        ]
    assert params[0]["modelChoice"]["source"] == "work"
    assert params[0]["modelChoice"]["model"] == "deepseek-chat"
    assert "modelChoice" not in params[1]
