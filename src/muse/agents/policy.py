"""Model policy: which models a role may use, and which reported ids count as that model.

Every call names its provider and model; nothing is taken from the environment. The role's
policy name (``fixed``, ``governed``, ``judge-fixed``) and a *policy version* select the allowed
set. A task is frozen under a version; a later version never changes what an older frozen task
may use, so callers replaying a frozen task pass its version explicitly.

- ``fixed``: exact model ids; an explicit alias map may declare that a provider reports a dated
  id for a name (``gpt-4o`` → ``gpt-4o-2024-08-06``).
- ``governed``: exact ids plus glob patterns (``qwen*``), with the same alias map.
- ``judge-fixed``: exact ids only, no patterns, no aliases: the reported id must equal the
  requested id (spec 003, judge).
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass

from muse.agents.contracts import ModelAllowance, PolicyName, RoleCatalog
from muse.agents.errors import ModelMismatch, ModelNotAllowed
from muse.core.canonical import hash_value


@dataclass(frozen=True)
class FrozenPolicy:
    """The policy a call runs under: the role's policy name within one policy version."""

    name: PolicyName
    version: str
    allowance: ModelAllowance

    @property
    def label(self) -> str:
        return f"{self.name}@{self.version}"


def frozen_policy(catalog: RoleCatalog, role: str, version: str | None = None) -> FrozenPolicy:
    """The policy for ``role``: its current version, or ``version`` for a frozen task."""
    contract = catalog.role(role)
    version = version or contract.modelPolicyVersion
    if version not in catalog.policies:
        raise ModelNotAllowed(
            f"模型策略版本 {version} 不存在。", hint="请检查冻结任务记录的策略版本。"
        )
    return FrozenPolicy(
        contract.modelPolicy, version, catalog.allowance(version, contract.modelPolicy)
    )


def is_allowed(policy: FrozenPolicy, model: str) -> bool:
    if model in policy.allowance.models:
        return True
    if policy.name == "judge-fixed":
        return False
    return any(fnmatch.fnmatchcase(model, pattern) for pattern in policy.allowance.patterns)


def check_model_allowed(
    catalog: RoleCatalog, role: str, provider: str, model: str, version: str | None = None
) -> FrozenPolicy:
    """Refuse a call without an explicit provider and model, or with a model the policy lacks."""
    if not provider or not provider.strip() or not model or not model.strip():
        raise ModelNotAllowed(
            "每次模型调用都必须显式指定 provider 与 model，不会从环境变量补全。",
            hint="例如 --provider deepseek --model deepseek-chat，或 --provider offline --model offline-1。",
        )
    policy = frozen_policy(catalog, role, version)
    if not is_allowed(policy, model):
        role_name = catalog.canonical_role(role)
        raise ModelNotAllowed(
            f"模型 {model} 不在角色 {role_name} 的模型策略 {policy.label} 中，已拒绝派发。",
            hint=f"允许的模型：{'、'.join(policy.allowance.models)}。"
            f"要使用新模型，先核准它（记为新的策略版本）：muse models approve --role {role_name} "
            f"--provider {provider} --model {model}",
        )
    return policy


def accepted_reported_ids(policy: FrozenPolicy, model: str) -> frozenset[str]:
    """Model ids the server may report for ``model``: itself, plus declared dated aliases."""
    if policy.name == "judge-fixed":
        return frozenset({model})
    return frozenset({model, *policy.allowance.reportedAliases.get(model, ())})


def check_reported_model(policy: FrozenPolicy, requested: str, reported: str) -> None:
    """The reported model id must equal the frozen id (or a declared alias of it)."""
    if reported not in accepted_reported_ids(policy, requested):
        raise ModelMismatch(
            f"服务端报告的模型 {reported or '（空）'} 与冻结的模型 {requested} 不一致，"
            f"调用已终止（策略 {policy.label}）。",
            hint="提供方可能静默切换了模型；若这是同一模型的带日期版本，请在新的策略版本中登记别名。",
        )


def policy_fingerprint(catalog: RoleCatalog, version: str) -> str:
    """SHA-256 of one policy version's content; a published version must never change."""
    return hash_value(
        {
            name: allowance.model_dump(mode="json")
            for name, allowance in catalog.policies[version].items()
        }
    )


def roles_allowing(catalog: RoleCatalog, model: str) -> list[str]:
    """Roles whose *current* policy allows ``model`` (for `muse models check`)."""
    return [role for role in catalog.roles if is_allowed(frozen_policy(catalog, role), model)]
