"""Model approvals: the author approves a model for a role as a new, immutable policy version.

spec 003: a new model is approved explicitly, by its full id, as a new policy version; tasks
frozen under an older version keep theirs. The built-in versions live in ``roles.yaml``; the
author's approvals live in ``model_policy_versions`` (one immutable row per version, with who
approved it, when, and which provider/model ids it added). :func:`effective_catalog` merges both
into one :class:`RoleCatalog`, whose role points at its newest approved version, so the
dispatcher enforces an approved version exactly like a built-in one.

An approval extends the role's current version: the same policy name, every model it allowed,
plus the new ids. ``judge-fixed`` stays an exact whitelist: an approved judge id is a full id,
never a pattern, and no reported-id alias comes with it.
"""

from __future__ import annotations

import getpass
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Engine, func, insert, select
from sqlalchemy.exc import IntegrityError, OperationalError, ProgrammingError

from muse.agents.contracts import ModelAllowance, RoleCatalog, load_roles
from muse.agents.errors import ModelNotAllowed
from muse.agents.tables import model_policy_versions
from muse.core.canonical import hash_value
from muse.core.clock import iso, utc_now
from muse.core.errors import InvalidInput
from muse.store.engine import reading
from muse.store.prepared import Prepared

_GLOB_CHARS = "*?[]"
_MAX_ID = 200


@dataclass(frozen=True)
class Approval:
    """One approved policy version as stored."""

    version: str
    role: str
    policy_name: str
    base_version: str
    models: tuple[str, ...]
    patterns: tuple[str, ...]
    reported_aliases: dict[str, tuple[str, ...]]
    added: tuple[dict[str, str], ...]
    content_sha256: str
    approved_by: str
    approved_at: str | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "role": self.role,
            "policy": self.policy_name,
            "baseVersion": self.base_version,
            "models": list(self.models),
            "patterns": list(self.patterns),
            "reportedAliases": {k: list(v) for k, v in self.reported_aliases.items()},
            "added": list(self.added),
            "contentSha256": self.content_sha256,
            "approvedBy": self.approved_by,
            "approvedAt": self.approved_at,
        }


def current_user() -> str:
    """Who is approving: the operating-system user (no secret, no environment model choice)."""
    try:
        return getpass.getuser() or "unknown"
    except (OSError, KeyError):
        return "unknown"


_APPROVALS = Prepared(
    select(model_policy_versions).order_by(
        model_policy_versions.c.approved_at, model_policy_versions.c.version
    )
)


def stored_approvals(conn: Connection) -> list[Approval]:
    """Every approved version, oldest first."""
    return [_approval(row) for row in _APPROVALS.run(conn).mappings()]


def _approval(row: Any) -> Approval:
    return Approval(
        version=row["version"],
        role=row["role"],
        policy_name=row["policy_name"],
        base_version=row["base_version"],
        models=tuple(row["models"]),
        patterns=tuple(row["patterns"]),
        reported_aliases={k: tuple(v) for k, v in (row["reported_aliases"] or {}).items()},
        added=tuple(row["added"]),
        content_sha256=row["content_sha256"],
        approved_by=row["approved_by"],
        approved_at=iso(row["approved_at"]),
    )


def merge_approvals(catalog: RoleCatalog, approvals: list[Approval]) -> RoleCatalog:
    """``catalog`` plus the approved versions; each role's newest approval becomes current."""
    if not approvals:
        return catalog
    policies = {version: dict(names) for version, names in catalog.policies.items()}
    roles = dict(catalog.roles)
    for item in approvals:
        allowance = ModelAllowance(
            models=item.models,
            patterns=item.patterns,
            reportedAliases=item.reported_aliases,
        )
        policies[item.version] = {item.policy_name: allowance}  # type: ignore[dict-item]
        if item.role in roles:
            roles[item.role] = roles[item.role].model_copy(
                update={"modelPolicyVersion": item.version}
            )
    return catalog.model_copy(update={"policies": policies, "roles": roles})


def effective_catalog(engine: Engine | Connection | None) -> RoleCatalog:
    """The packaged role catalog merged with the author's approvals stored in the database."""
    catalog = load_roles()
    if engine is None:
        return catalog
    try:
        if isinstance(engine, Connection):
            return merge_approvals(catalog, stored_approvals(engine))
        with reading(engine) as conn:  # a read: never the write lock (SQLite)
            return merge_approvals(catalog, stored_approvals(conn))
    except (OperationalError, ProgrammingError):  # a database migrated before 0021
        return catalog


def _check_model_id(role: str, policy_name: str, model: str) -> str:
    model = (model or "").strip()
    if not model:
        raise InvalidInput("模型 ID 不能为空：请写出完整的模型 ID，例如 qwen2.5:7b。")
    if len(model) > _MAX_ID or any(ch.isspace() or not ch.isprintable() for ch in model):
        raise InvalidInput(f"模型 ID 无效：{model!r}（不能含空白或控制字符，最长 {_MAX_ID} 字）。")
    if any(ch in model for ch in _GLOB_CHARS):
        exact = (
            "评委（judge-fixed）只接受精确 ID"
            if policy_name == "judge-fixed"
            else "核准只接受完整 ID"
        )
        raise InvalidInput(
            f"{exact}，不能使用通配符：{model}。", hint="请写出服务端使用的完整模型 ID。"
        )
    return model


def approve_model(
    engine: Engine,
    *,
    role: str,
    provider: str,
    models: list[str],
    approved_by: str | None = None,
) -> Approval:
    """Record a new policy version for ``role`` that adds ``models`` (full ids) to its current one.

    Refuses an unknown role, an empty or wildcard id, and a request that adds nothing new. The
    new row is immutable; concurrent approvals of the same role cannot share a version id.
    """
    provider = (provider or "").strip()
    if not provider:
        raise InvalidInput("请用 --provider 指明这个模型来自哪个提供方，例如 ollama。")
    with engine.begin() as conn:
        catalog = effective_catalog(conn)
        try:
            role_name = catalog.canonical_role(role)
        except InvalidInput as err:
            raise InvalidInput(err.message) from None
        contract = catalog.roles[role_name]
        base = catalog.allowance(contract.modelPolicyVersion, contract.modelPolicy)
        wanted = [_check_model_id(role_name, contract.modelPolicy, m) for m in models]
        new = [m for m in dict.fromkeys(wanted) if m not in base.models]
        if not new:
            raise ModelNotAllowed(
                f"角色 {role_name} 的当前策略 {contract.modelPolicyVersion} 已允许 "
                f"{'、'.join(wanted)}，无需再次核准。"
            )
        content = _content(contract.modelPolicy, base, new)
        version = _next_version(conn, role_name)
        row = {
            "version": version,
            "role": role_name,
            "policy_name": contract.modelPolicy,
            "base_version": contract.modelPolicyVersion,
            "models": content["models"],
            "patterns": content["patterns"],
            "reported_aliases": content["reportedAliases"],
            "added": [{"provider": provider, "model": m} for m in new],
            "content_sha256": hash_value(content),
            "approved_by": approved_by or current_user(),
            "approved_at": utc_now(),
        }
        try:
            conn.execute(insert(model_policy_versions).values(**row))
        except IntegrityError as err:
            raise InvalidInput(f"另一个核准刚刚写入了 {version}，本次未记录；请重新运行。") from err
    return _approval(row)


def _content(policy_name: str, base: ModelAllowance, new: list[str]) -> dict[str, Any]:
    judge = policy_name == "judge-fixed"
    return {
        "models": [*base.models, *new],
        "patterns": [] if judge else list(base.patterns),
        "reportedAliases": {} if judge else {k: list(v) for k, v in base.reportedAliases.items()},
    }


def _next_version(conn: Connection, role: str) -> str:
    count = conn.execute(
        select(func.count()).where(model_policy_versions.c.role == role)
    ).scalar_one()
    return f"{role}-approved-v{count + 1}"


def policies_in_force(catalog: RoleCatalog, approvals: list[Approval]) -> list[dict[str, Any]]:
    """Per role: the version in force, its models and patterns, and where it came from."""
    by_version = {a.version: a for a in approvals}
    rows = []
    for name, role in catalog.roles.items():
        allowance = catalog.allowance(role.modelPolicyVersion, role.modelPolicy)
        approval = by_version.get(role.modelPolicyVersion)
        rows.append(
            {
                "role": name,
                "displayName": role.displayName,
                "aliases": [a for a, target in catalog.aliases.items() if target == name],
                "policy": role.modelPolicy,
                "policyVersion": role.modelPolicyVersion,
                "source": "approved" if approval else "builtin",
                "models": list(allowance.models),
                "patterns": list(allowance.patterns),
                "approval": approval.to_dict() if approval else None,
            }
        )
    return rows


def current_policies(conn: Connection) -> list[dict[str, Any]]:
    """The versions in force per role: the built-in ones merged with the author's approvals
    (``muse models list`` / ``policy``, the workbench's 模型 page)."""
    approvals = stored_approvals(conn)
    return policies_in_force(merge_approvals(load_roles(), approvals), approvals)
