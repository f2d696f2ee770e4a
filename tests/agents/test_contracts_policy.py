"""Role contracts, model policy and input guards (spec 003)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from muse.agents.contracts import ROLES_FILE, load_roles
from muse.agents.errors import ForbiddenInput, ModelMismatch, ModelNotAllowed
from muse.agents.guards import check_input, forbidden_input_findings
from muse.agents.policy import (
    check_model_allowed,
    check_reported_model,
    frozen_policy,
    policy_fingerprint,
)
from muse.agents.prompts import PROMPTS_DIR
from muse.core.errors import ConfigError, InvalidInput
from tests.agents.role_outputs import ROLE_OUTPUTS

# A published policy version never changes: add a new version instead of editing one.
PUBLISHED_POLICIES = {
    "role-policy-v1": "99b154289f67d32ae6f3a07c85fa89b734108d58c1ac9c5fbbbc94af9199d2fe",
}


def test_published_policy_versions_are_unchanged():
    catalog = load_roles()
    for version, digest in PUBLISHED_POLICIES.items():
        assert policy_fingerprint(catalog, version) == digest, f"{version} was edited in place"


def test_the_five_roles_their_aliases_and_policies():
    catalog = load_roles()
    assert set(catalog.roles) == {"writer", "planner", "extractor", "detector", "judge"}
    assert catalog.canonical_role("blind_judge") == "judge"
    assert catalog.canonical_role("semantic_detector") == "detector"
    assert {r: catalog.roles[r].modelPolicy for r in catalog.roles} == {
        "writer": "fixed",
        "planner": "fixed",
        "extractor": "governed",
        "detector": "governed",
        "judge": "judge-fixed",
    }
    assert all(role.explicitModelRequired for role in catalog.roles.values())


def test_every_task_has_its_prompt_and_a_default_output():
    catalog = load_roles()
    for name, role in catalog.roles.items():
        assert (PROMPTS_DIR / role.promptFile).is_file()
        for task_name, task in role.tasks.items():
            assert (PROMPTS_DIR / task.prompt).is_file()
            assert (name, task_name) in ROLE_OUTPUTS


def test_tool_less_tasks():
    catalog = load_roles()
    assert catalog.task("writer", "generate").tools == ()
    assert catalog.task("blind_judge", "score").tools == ()
    assert "read_chapter" in catalog.task("writer", "explore").tools


def test_unknown_role_or_task():
    with pytest.raises(InvalidInput):
        load_roles().canonical_role("editor")
    with pytest.raises(InvalidInput):
        load_roles().task("writer", "publish")


def test_offline_model_is_allowed_for_every_role():
    catalog = load_roles()
    for role in [*catalog.roles, *catalog.aliases]:
        check_model_allowed(catalog, role, "offline", "offline-1")


@dataclass(frozen=True)
class Case:
    role: str
    model: str
    allowed: bool


@pytest.mark.parametrize(
    "case",
    [
        Case("writer", "deepseek-chat", True),
        Case("writer", "qwen3-coder-plus", False),  # fixed: no patterns
        Case("detector", "qwen3-coder-plus", True),  # governed: qwen* pattern
        Case("semantic_detector", "glm-4-air", True),
        Case("judge", "deepseek-v4.1-flash", True),
        Case("judge", "muse-spark-1.3-contributor", True),
        Case("judge", "deepseek-chat", False),  # exact whitelist
        Case("blind_judge", "deepseek-v4.1-flash-*", False),
        Case("judge", "DeepSeek-V4.1-Flash", False),  # no case folding
    ],
    ids=lambda c: f"{c.role}:{c.model}",
)
def test_model_policy(case: Case):
    catalog = load_roles()
    if case.allowed:
        check_model_allowed(catalog, case.role, "deepseek", case.model)
    else:
        with pytest.raises(ModelNotAllowed) as caught:
            check_model_allowed(catalog, case.role, "deepseek", case.model)
        policy = frozen_policy(catalog, case.role)
        assert policy.label in caught.value.message


def test_reported_model_must_equal_the_frozen_id_or_a_declared_alias():
    catalog = load_roles()
    writer = frozen_policy(catalog, "writer")
    check_reported_model(writer, "gpt-4o", "gpt-4o-2024-08-06")
    with pytest.raises(ModelMismatch):
        check_reported_model(writer, "gpt-4o", "gpt-4o-mini")
    with pytest.raises(ModelMismatch):
        check_reported_model(writer, "deepseek-chat", "")
    judge = frozen_policy(catalog, "judge")
    with pytest.raises(ModelMismatch):
        check_reported_model(judge, "deepseek-v4.1-flash", "deepseek-v4.1-flash-2026")


def _catalog_file(tmp_path: Path, mutate) -> Path:
    data = yaml.safe_load(ROLES_FILE.read_text(encoding="utf-8"))
    mutate(data)
    path = tmp_path / "roles.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return path


def test_a_new_policy_version_never_changes_a_task_frozen_under_the_old_one(tmp_path):
    def add_v2(data):
        v2 = yaml.safe_load(yaml.safe_dump(data["policies"]["role-policy-v1"]))
        v2["fixed"]["models"].remove("deepseek-chat")
        v2["fixed"]["models"].append("deepseek-v5")
        data["policies"]["role-policy-v2"] = v2
        for role in data["roles"].values():
            role["modelPolicyVersion"] = "role-policy-v2"

    catalog = load_roles(_catalog_file(tmp_path, add_v2))
    check_model_allowed(catalog, "writer", "deepseek", "deepseek-chat", version="role-policy-v1")
    with pytest.raises(ModelNotAllowed) as caught:
        check_model_allowed(catalog, "writer", "deepseek", "deepseek-chat")
    assert "fixed@role-policy-v2" in caught.value.message
    check_model_allowed(catalog, "writer", "deepseek", "deepseek-v5")
    with pytest.raises(ModelNotAllowed):
        check_model_allowed(catalog, "writer", "deepseek", "deepseek-v5", version="role-policy-v1")
    assert policy_fingerprint(catalog, "role-policy-v1") == PUBLISHED_POLICIES["role-policy-v1"]


@pytest.mark.parametrize(
    "mutate",
    [
        lambda d: d["policies"]["role-policy-v1"]["judge-fixed"].update(patterns=["deepseek-*"]),
        lambda d: d["policies"]["role-policy-v1"]["judge-fixed"].update(
            reportedAliases={"deepseek-v4.1-flash": ["deepseek-v4.1-flash-0801"]}
        ),
        lambda d: d["policies"]["role-policy-v1"]["fixed"]["models"].append("gpt-*"),
        lambda d: d["policies"]["role-policy-v1"]["governed"]["models"].remove("offline-1"),
        lambda d: d["roles"]["judge"]["tasks"]["score"].update(tools=["read_chapter"]),
        lambda d: d["roles"]["writer"].update(explicitModelRequired=False),
        lambda d: d["aliases"].update(blind_editor="editor"),
    ],
    ids=[
        "judge-patterns",
        "judge-aliases",
        "wildcard-in-models",
        "no-offline",
        "judge-tools",
        "implicit-model",
        "dangling-alias",
    ],
)
def test_a_malformed_contract_file_is_refused_at_load(tmp_path, mutate):
    with pytest.raises(ConfigError):
        load_roles(_catalog_file(tmp_path, mutate))


# -- input guards ----------------------------------------------------------------------------------

JUDGE_GUARDS = load_roles().role("judge").forbiddenInput


@pytest.mark.parametrize(
    "task_input, expected",
    [
        ({"candidates": [{"label": "A", "text": "……"}], "rubric": "量表", "fineOutline": {}}, []),
        ({"arm": "B"}, ["arm"]),
        ({"candidates": [{"label": "A", "armLabel": "C"}]}, ["candidates[0].armLabel"]),
        ({"cardInjectionStrategy": "full"}, ["cardInjectionStrategy"]),
        ({"referenceAnswer": "…"}, ["referenceAnswer"]),
        ({"meta": {"oracle_text": "…"}}, ["meta.oracle_text"]),
        ({"candidates": [{"label": "A", "sha256": "ab"}]}, ["candidates[0].sha256"]),
        ({"candidate_hash": "ab"}, ["candidate_hash"]),
        ({"rawPath": "x"}, ["rawPath"]),
        ({"source": "/home/author/raw/ch4.txt"}, ["source"]),
        ({"otherJudges": [{"score": 4}]}, ["otherJudges"]),
        ({"judgeResults": []}, ["judgeResults"]),
        ({"runId": "run_1"}, ["runId"]),
        ({"history": []}, ["history"]),
        ({"标准答案": "…"}, ["标准答案"]),
    ],
    ids=lambda v: str(v)[:40],
)
def test_judge_forbidden_keys(task_input, expected):
    findings = forbidden_input_findings(task_input, JUDGE_GUARDS)
    assert [f.split("（")[0] for f in findings] == expected


def test_guards_do_not_flag_harmless_words():
    harmless = {
        "candidates": [{"label": "A", "text": "他抬起手臂（arm），望向远处的警报（alarm）。"}],
        "rubric": {"charm": "角色魅力", "harmony": "节奏"},
        "dimensions": ["settingFidelity"],
    }
    assert forbidden_input_findings(harmless, JUDGE_GUARDS) == []


def test_check_input_refuses_with_every_path():
    with pytest.raises(ForbiddenInput) as caught:
        check_input("judge", {"arm": "A", "oracle": "…"}, JUDGE_GUARDS)
    assert "arm" in caught.value.message and "oracle" in caught.value.message


def test_detector_guard_is_narrower_than_the_judge_guard():
    detector = load_roles().role("semantic_detector").forbiddenInput
    assert forbidden_input_findings({"candidateSha256": "ab"}, detector) == []  # its binding
    assert forbidden_input_findings({"oracle": "…"}, detector) != []
    # 003 detector input boundary: no run identity, no raw path (issue 19)
    assert forbidden_input_findings({"runId": "r"}, detector) != []
    assert forbidden_input_findings({"meta": {"sessionId": "s"}}, detector) != []
    assert forbidden_input_findings({"source": "/home/author/book.txt"}, detector) != []
    assert forbidden_input_findings({"filePath": "x"}, detector) != []


@pytest.mark.parametrize("role", ["writer", "planner", "extractor", "semantic_detector", "judge"])
def test_every_role_input_is_guarded_by_the_oracle_red_line(role):
    guards = load_roles().role(role).forbiddenInput
    for key in ("referenceAnswer", "oracle", "goldAnswer", "targetChapterText", "标准答案"):
        assert forbidden_input_findings({"x": {key: "…"}}, guards) != [], (role, key)


def test_the_production_oracle_guard_leaves_ordinary_plan_keys_alone():
    guards = load_roles().role("planner").forbiddenInput
    plan = {"work_core": {"truth": "…", "theme": "…"}, "expected_length": 3000, "answer": "…"}
    assert forbidden_input_findings(plan, guards) == []


def test_the_kept_key_verdicts_equal_the_rules_applied_afresh():
    """``_key_hits`` is kept per (key, guards): the findings, their order and a second call
    over the same keys are what the rules give when applied to each key afresh."""
    from muse.agents import guards as guard_module

    roles = load_roles()
    keys = ["arm", "runId", "candidateSha256", "filePath", "oracle_text", "text", "标准答案"]
    task_input = {
        "scenes": [{k: f"值{i}" for k in keys} for i in range(3)],
        "meta": {"sessionId": "s", "source": "/home/author/book.txt", "rubric": {"arm": "A"}},
    }
    for role in ("writer", "planner", "extractor", "semantic_detector", "judge"):
        guards = tuple(roles.role(role).forbiddenInput)
        for key in (*keys, "sessionId", "source", "rubric", "meta", "scenes"):
            fresh = guard_module._key_hits.__wrapped__(key, guards)
            assert guard_module._key_hits(key, guards) == fresh
            assert guard_module._key_hits(key, guards) == fresh  # the kept answer
        first = forbidden_input_findings(task_input, guards)
        first.append("caller's own list")  # a caller changing its findings changes nothing kept
        assert forbidden_input_findings(task_input, guards) == first[:-1]


def _walked_findings(task_input, guards):
    """The walk ``forbidden_input_findings`` replaced: every node's path, key and value."""
    from muse.agents import guards as guard_module

    def walk(value, path):
        if isinstance(value, dict):
            for key, child in value.items():
                child_path = f"{path}.{key}" if path else str(key)
                yield child_path, str(key), child
                yield from walk(child, child_path)
        elif isinstance(value, list):
            for index, child in enumerate(value):
                child_path = f"{path}[{index}]"
                yield child_path, None, child
                yield from walk(child, child_path)

    guards = tuple(guards)
    findings = []
    for path, key, value in walk(task_input, ""):
        labels = list(guard_module._key_hits.__wrapped__(key, guards)) if key is not None else []
        if (
            "raw_path" in guards
            and isinstance(value, str)
            and guard_module._PATH_VALUE.match(value)
        ):
            labels.append(guard_module._RULES["raw_path"].label)
        findings.extend(f"{path}（{label}）" for label in dict.fromkeys(labels))
    return findings


_GUARD_KEYS = st.sampled_from(
    ["arm", "runId", "sha256", "filePath", "oracle", "text", "source", "标准答案", "rubric", 3]
)
_GUARD_LEAVES = st.one_of(
    st.sampled_from(["/home/a/b.txt", "C:\\x", "file://x", "./x", "正文", "arm", ""]),
    st.integers(),
    st.none(),
)
_GUARD_INPUT = st.recursive(
    _GUARD_LEAVES,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.tuples(inner),
        st.dictionaries(_GUARD_KEYS, inner, max_size=4),
    ),
    max_leaves=14,
)


@settings(max_examples=300, deadline=None)
@given(task_input=st.dictionaries(_GUARD_KEYS, _GUARD_INPUT, max_size=4))
def test_the_findings_are_the_walks_in_the_same_order(task_input):
    roles = load_roles()
    for role in ("writer", "semantic_detector", "judge"):
        guards = roles.role(role).forbiddenInput
        assert forbidden_input_findings(task_input, guards) == _walked_findings(task_input, guards)
