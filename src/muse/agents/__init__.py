"""Role contracts, model policy, prompts, providers, read-only tools, dispatch (spec 003).

Every model call in Muse goes through :func:`muse.agents.dispatch` (``dispatching.py``). What
other packages use is this face (``__all__`` below); the modules behind it:

    dispatching                  one role call → validated output + receipt id
    roles.yaml, contracts        the five roles, tasks, tool and model policies
    policy                       model allowed? reported id equal to frozen id?
    tools, asof_reader           read-only tools over a frozen view
    ledger                       the run's tool reads
    receipts                     stored receipts (model_calls)
    providers                    resolve_provider / register_provider; providers.offline holds the
                                 offline registry (register_offline_generator)
    config, probe, approvals     the author's config file; ``muse models``
    model_choice                 which model a role uses for a work

Only ``providers/openai_compatible.py`` imports the ``openai`` SDK.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from muse.core.faces import lazy_face

if TYPE_CHECKING:
    from muse.agents.approvals import (
        approve_model,
        current_policies,
        merge_approvals,
        policies_in_force,
        stored_approvals,
    )
    from muse.agents.config import (
        CONFIG_ENV,
        CONFIG_TEMPLATE,
        config_path,
        load_config,
        register_configured_secrets,
    )
    from muse.agents.contracts import ToolName, load_roles
    from muse.agents.dispatching import DispatchResult, dispatch, stored_reply
    from muse.agents.errors import (
        AgentCallError,
        AsOfViolation,
        DispatchRefused,
        ForbiddenInput,
        InvalidOutput,
        ToolNotAllowed,
    )
    from muse.agents.ledger import LedgerBatch, ToolRead, dependency_list, tool_reads_of_run
    from muse.agents.model_choice import (
        SOURCE_LABELS,
        ModelChoice,
        choose_model,
        recorded_choice,
        resolve_model,
        resolve_offered,
        work_choices,
    )
    from muse.agents.policy import check_model_allowed
    from muse.agents.probe import CheckResult, ProviderStatus, check_model, provider_statuses
    from muse.agents.providers import resolve_provider
    from muse.agents.providers.offline import (
        builtin_generator,
        offline_seed,
        set_builtin_loader,
        stable_input,
    )
    from muse.agents.receipts import (
        HEAVY_COLUMNS,
        ReceiptRow,
        last_ok_call,
        ok_calls,
        receipt_of,
        receipt_summaries,
        run_call_rows,
        run_token_sums,
        usage_by_model,
    )
    from muse.agents.schemas import json_schema
    from muse.agents.structured import RetryPolicy
    from muse.agents.tools import TOOL_SPECS, ToolSet

__all__ = [
    "DispatchResult",
    "stored_reply",
    "AgentCallError",
    "AsOfViolation",
    "CONFIG_ENV",
    "CONFIG_TEMPLATE",
    "CheckResult",
    "DispatchRefused",
    "ForbiddenInput",
    "HEAVY_COLUMNS",
    "InvalidOutput",
    "LedgerBatch",
    "ModelChoice",
    "ProviderStatus",
    "RetryPolicy",
    "SOURCE_LABELS",
    "TOOL_SPECS",
    "ToolName",
    "ToolNotAllowed",
    "ToolRead",
    "ToolSet",
    "approve_model",
    "builtin_generator",
    "check_model",
    "check_model_allowed",
    "choose_model",
    "json_schema",
    "config_path",
    "dependency_list",
    "dispatch",
    "last_ok_call",
    "load_config",
    "load_roles",
    "merge_approvals",
    "offline_seed",
    "ok_calls",
    "policies_in_force",
    "provider_statuses",
    "receipt_of",
    "ReceiptRow",
    "receipt_summaries",
    "recorded_choice",
    "register_configured_secrets",
    "resolve_model",
    "resolve_provider",
    "run_call_rows",
    "run_token_sums",
    "set_builtin_loader",
    "stable_input",
    "stored_approvals",
    "tool_reads_of_run",
    "usage_by_model",
    "work_choices",
    "current_policies",
    "resolve_offered",
    "DispatchResult",
]

_FACE: dict[str, tuple[str, ...]] = {
    "approvals": (
        "approve_model",
        "merge_approvals",
        "policies_in_force",
        "stored_approvals",
        "current_policies",
    ),
    "config": (
        "CONFIG_ENV",
        "CONFIG_TEMPLATE",
        "config_path",
        "load_config",
        "register_configured_secrets",
    ),
    "contracts": ("ToolName", "load_roles"),
    "dispatching": ("dispatch", "stored_reply", "DispatchResult"),
    "errors": (
        "AgentCallError",
        "AsOfViolation",
        "DispatchRefused",
        "ForbiddenInput",
        "InvalidOutput",
        "ToolNotAllowed",
    ),
    "ledger": ("LedgerBatch", "ToolRead", "dependency_list", "tool_reads_of_run"),
    "model_choice": (
        "ModelChoice",
        "SOURCE_LABELS",
        "choose_model",
        "recorded_choice",
        "resolve_model",
        "work_choices",
        "resolve_offered",
    ),
    "policy": ("check_model_allowed",),
    "probe": ("CheckResult", "ProviderStatus", "check_model", "provider_statuses"),
    "providers": ("resolve_provider",),
    "providers.offline": (
        "builtin_generator",
        "offline_seed",
        "set_builtin_loader",
        "stable_input",
    ),
    "receipts": (
        "HEAVY_COLUMNS",
        "ReceiptRow",
        "last_ok_call",
        "ok_calls",
        "receipt_of",
        "receipt_summaries",
        "run_call_rows",
        "run_token_sums",
        "usage_by_model",
    ),
    "schemas": ("json_schema",),
    "structured": ("RetryPolicy",),
    "tools": ("TOOL_SPECS", "ToolSet"),
}

__getattr__, __dir__ = lazy_face(globals(), _FACE)
