"""The role contract catalog: ``roles.yaml`` read into strict models (spec 003).

The YAML file is the one place where roles, their tasks, tool whitelists and model policies are
declared; this module refuses a malformed file at load time instead of letting a bad entry
surface in the middle of a run. Aliases (``blind_judge`` ≡ ``judge``, ``semantic_detector`` ≡
``detector``) resolve to the same contract.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, ValidationError, model_validator

from muse.core.contract import UnaliasedContract
from muse.core.errors import ConfigError, InvalidInput
from muse.core.packaged_yaml import PackagedYamlError, load_packaged

ROLES_FILE = Path(__file__).with_name("roles.yaml")
OFFLINE_MODEL = "offline-1"

ToolName = Literal[
    "read_chapter", "search_prose", "get_card", "get_outline", "get_style", "get_patterns"
]
PolicyName = Literal["fixed", "governed", "judge-fixed"]
InputGuard = Literal[
    "arm_identity",
    "oracle",
    "oracle_answer",
    "candidate_hash",
    "raw_path",
    "other_judge_result",
    "run_identity",
]


class TaskContract(UnaliasedContract):
    prompt: str
    tools: tuple[ToolName, ...] = Field(description="read-only tools the task may offer; () = none")


class RoleContract(UnaliasedContract):
    displayName: str
    promptFile: str
    modelPolicy: PolicyName
    modelPolicyVersion: str
    explicitModelRequired: Literal[True]
    toolPolicy: Literal["readonly_tools", "none"]
    forbiddenInput: tuple[InputGuard, ...]
    tasks: dict[str, TaskContract]
    contract: str

    @model_validator(mode="after")
    def _tool_policy_holds(self) -> RoleContract:
        if self.toolPolicy == "none":
            armed = [name for name, task in self.tasks.items() if task.tools]
            if armed:
                raise ValueError(f"toolPolicy none but tasks {armed} list tools")
        return self


class ModelAllowance(UnaliasedContract):
    """The models one policy name allows within one policy version."""

    models: tuple[str, ...]
    patterns: tuple[str, ...] = ()
    reportedAliases: dict[str, tuple[str, ...]] = {}

    @model_validator(mode="after")
    def _exact_ids(self) -> ModelAllowance:
        wild = [m for m in self.models if any(c in m for c in "*?[]")]
        if wild:
            raise ValueError(f"models must be exact ids; put patterns under `patterns`: {wild}")
        return self


class RoleCatalog(UnaliasedContract):
    schemaVersion: Literal["role-contracts-v1"]
    aliases: dict[str, str]
    toolSets: dict[str, tuple[ToolName, ...]] = {}
    roles: dict[str, RoleContract]
    policies: dict[str, dict[PolicyName, ModelAllowance]]

    @model_validator(mode="after")
    def _consistent(self) -> RoleCatalog:
        for alias, target in self.aliases.items():
            if target not in self.roles:
                raise ValueError(f"alias {alias} points at unknown role {target}")
        for version in self.policies.values():
            judge = version.get("judge-fixed")
            if judge and (judge.patterns or judge.reportedAliases):
                raise ValueError("judge-fixed is an exact whitelist: no patterns, no aliases")
        for name, role in self.roles.items():
            allowance = self.policies.get(role.modelPolicyVersion, {}).get(role.modelPolicy)
            if allowance is None:
                raise ValueError(
                    f"role {name}: policy {role.modelPolicy} missing in {role.modelPolicyVersion}"
                )
            if OFFLINE_MODEL not in allowance.models:
                raise ValueError(f"role {name}: current policy must allow {OFFLINE_MODEL}")
        return self

    def canonical_role(self, name: str) -> str:
        role = self.aliases.get(name, name)
        if role not in self.roles:
            known = "、".join([*self.roles, *self.aliases])
            raise InvalidInput(f"未知角色：{name}。可用角色：{known}")
        return role

    def role(self, name: str) -> RoleContract:
        return self.roles[self.canonical_role(name)]

    def task(self, role: str, task: str) -> TaskContract:
        contract = self.role(role)
        if task not in contract.tasks:
            known = "、".join(contract.tasks)
            raise InvalidInput(f"角色 {role} 没有任务 {task}。已登记的任务：{known}")
        return contract.tasks[task]

    def allowance(self, version: str, policy: PolicyName) -> ModelAllowance:
        try:
            return self.policies[version][policy]
        except KeyError:
            raise InvalidInput(f"模型策略版本 {version} 中没有策略 {policy}。") from None


def load_roles(path: Path | None = None) -> RoleCatalog:
    """The role catalog; the packaged file is read once, another ``path`` each time."""
    if path is None:
        return _packaged_catalog()
    return _read_catalog(path)


@lru_cache(maxsize=1)
def _packaged_catalog() -> RoleCatalog:
    return _read_catalog(ROLES_FILE)


def _read_catalog(path: Path) -> RoleCatalog:
    try:
        # the install-time JSON of the packaged file when it is fresh (no `import yaml`)
        data = load_packaged(path)
        return RoleCatalog.model_validate(data)
    except (OSError, PackagedYamlError, ValidationError) as err:
        raise ConfigError(f"角色合同文件 {path} 无效：{err}") from err
