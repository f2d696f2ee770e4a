"""Dispatch: the one entry point through which every model call in Muse goes.

    dispatch(engine, role=…, task=…, provider=…, model=…, task_input=…, output_model=…)

in this order, each step able to end the call with a named error:

1. the role (or alias) and task must be declared in ``roles.yaml``;
2. provider and model must be explicit, and the model allowed by the role's policy version
   (the current one, or ``policy_version`` for a task frozen under an older one);
3. the input guards of the role (blind judge: no arm identity, oracle, hashes, paths, other
   judges' results) run before anything is sent;
4. a ToolSet offered to a tool-less task (writer generate, judge) is refused;
5. the provider is built (a missing key fails here), the prompt rendered (identity + contract
   section + frozen input + output schema) and the structured-output loop run, every reply's
   model id checked against the frozen id.

Whatever happens, one receipt is written in its own transaction before ``dispatch`` returns or
raises (an ``AgentCallError`` subclass naming the failure; an unexpected exception — a reply
nested too deep, a string no encoder takes — becomes ``CallCrashed`` naming its type), so the dashboard shows failed calls
as well as good ones. The one exception: a ``task_input`` that is not a JSON object (a non-dict,
a set, an integer beyond 2^53) is a caller bug that cannot be stored, and raises ``InvalidInput``
without a receipt.
"""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel
from sqlalchemy import Engine, select

from muse.agents.approvals import effective_catalog
from muse.agents.config import MuseConfig
from muse.agents.contracts import RoleCatalog
from muse.agents.errors import (
    AgentCallError,
    CallCrashed,
    ProviderConfigError,
    ToolsRefused,
    UnknownRoleOrTask,
)
from muse.agents.guards import check_input
from muse.agents.model_choice import choice_for_receipt
from muse.agents.policy import check_model_allowed, check_reported_model
from muse.agents.prompts import ToolBrief, render_prompt
from muse.agents.providers import resolve_provider
from muse.agents.providers.base import CallMeta
from muse.agents.receipts import CallTrace, write_receipt
from muse.agents.structured import RetryPolicy, ensure_json_word, output_mode_for, run_structured
from muse.agents.tables import model_calls
from muse.agents.tools import TOOL_SPECS, ToolSession, ToolSet
from muse.core.canonical import canonical_json, hash_value
from muse.core.errors import InvalidInput, MuseError
from muse.core.redaction import register_secret

DEFAULT_TIMEOUT_S = 600.0


@dataclass(frozen=True)
class DispatchResult:
    output: BaseModel  # validated instance of output_model
    receipt_id: str
    model_returned: str
    raw_text: str


def dispatch(
    engine: Engine,
    *,
    role: str,
    task: str,
    provider: str,
    model: str,
    task_input: dict[str, Any],
    output_model: type[BaseModel],
    run_id: str | None = None,
    tools: ToolSet | None = None,
    timeout_s: float | None = None,
    cancel: threading.Event | None = None,
    policy_version: str | None = None,
    retry: RetryPolicy | None = None,
    config: MuseConfig | None = None,
    http_client: Any = None,
) -> DispatchResult:
    """Run one model call for ``role``/``task`` and return its validated output.

    ``policy_version`` freezes the model policy (default: the role's current version);
    ``retry`` tunes backoff and bounds; ``config`` and ``http_client`` override the author's
    configuration file and the SDK's HTTP client (tests, embedding).
    """
    canonical = _require_json(task_input)
    trace = CallTrace(
        run_id=run_id,
        role=role,
        task=task,
        provider=provider or "",
        model_requested=model or "",
        task_input=task_input,
        input_sha256=hashlib.sha256(canonical).hexdigest(),  # = hash_value(task_input)
    )
    choice = choice_for_receipt(trace.provider, trace.model_requested)
    if choice is not None:  # where the model came from: the command line or the work's choice
        trace.request_params["modelChoice"] = choice
    try:
        output = _run(
            engine,
            trace,
            task=task,
            output_model=output_model,
            tools=tools,
            timeout_s=timeout_s or DEFAULT_TIMEOUT_S,
            cancel=cancel,
            policy_version=policy_version,
            retry=retry or RetryPolicy(),
            config=config,
            http_client=http_client,
        )
    except AgentCallError as err:
        write_receipt(engine, trace, status=err.status, error=str(err))
        raise
    except MuseError as err:  # a broken prompt template or roles file: still recorded
        write_receipt(engine, trace, status=ProviderConfigError.status, error=str(err))
        raise ProviderConfigError(err.message, hint=err.hint) from err
    except Exception as err:  # noqa: BLE001 - every other failure still ends as a named error
        crash = CallCrashed(f"模型调用内部错误（{type(err).__name__}：{str(err)[:300]}）。")
        write_receipt(engine, trace, status=crash.status, error=str(crash))
        raise crash from err
    trace.output = output.model_dump(mode="json")
    write_receipt(engine, trace, status="ok", error=None)
    return DispatchResult(output, trace.id, trace.model_returned or "", trace.last_text)


def stored_reply(
    engine: Engine,
    *,
    run_id: str,
    role: str,
    task: str,
    task_input: dict[str, Any],
    output_model: type[BaseModel],
) -> DispatchResult | None:
    """The receipted successful reply of ``run_id``'s ``role``/``task`` call with exactly this
    task input (by its input hash), validated again; None when there is none.

    For a caller that resumes after a crash between a model's reply and the commit of what it
    produced: the reply is already stored and paid for, so it is used instead of asked again.
    """
    wanted = hash_value(task_input)
    with engine.connect() as conn:
        row = conn.execute(
            select(model_calls.c.id, model_calls.c.output, model_calls.c.model_returned)
            .where(
                model_calls.c.run_id == run_id,
                model_calls.c.role == role,
                model_calls.c.task == task,
                model_calls.c.status == "ok",
                model_calls.c.input_sha256 == wanted,
            )
            .order_by(model_calls.c.finished_at.desc())
        ).first()
    if row is None or row.output is None:
        return None
    output = output_model.model_validate(row.output)
    return DispatchResult(output, row.id, row.model_returned or "", "")


def _require_json(task_input: Any) -> bytes:
    """``task_input``'s canonical JSON (its receipt hash is of these bytes), or InvalidInput."""
    if not isinstance(task_input, dict):
        raise InvalidInput("task_input 必须是 JSON 对象（dict）。")
    try:
        return canonical_json(task_input)
    except Exception as err:  # noqa: BLE001 - rfc8785 raises several types
        raise InvalidInput(f"task_input 不是可以存储的 JSON：{err}") from err


def _resolve_role(catalog: RoleCatalog, trace: CallTrace, task: str) -> tuple[str, tuple[str, ...]]:
    """Canonical role and the task's tool whitelist, or UnknownRoleOrTask."""
    try:
        role = catalog.canonical_role(trace.role)
        whitelist = catalog.task(role, task).tools
    except InvalidInput as err:
        raise UnknownRoleOrTask(err.message) from err
    trace.request_params["roleRequested"] = trace.role
    trace.role = role
    return role, whitelist


def _run(
    engine: Engine,
    trace: CallTrace,
    *,
    task: str,
    output_model: type[BaseModel],
    tools: ToolSet | None,
    timeout_s: float,
    cancel: threading.Event | None,
    policy_version: str | None,
    retry: RetryPolicy,
    config: MuseConfig | None,
    http_client: Any,
) -> BaseModel:
    catalog = effective_catalog(engine)
    role, whitelist = _resolve_role(catalog, trace, task)
    policy = check_model_allowed(
        catalog, role, trace.provider, trace.model_requested, policy_version
    )
    trace.policy = policy
    check_input(role, trace.task_input, catalog.role(role).forbiddenInput)
    if tools is not None and not whitelist:
        raise ToolsRefused(
            f"{role}/{task} 是无工具任务（例如生成阶段），不得提供任何工具，已拒绝派发。"
        )

    provider = resolve_provider(trace.provider, config=config, http_client=http_client)
    trace.base_url, trace.secrets = provider.base_url, provider.secrets()
    for secret in trace.secrets:
        register_secret(secret)
    trace.price = provider.capabilities.price_for(trace.model_requested)
    session = (
        ToolSession(tools, whitelist, engine=engine, run_id=trace.run_id, call_id=trace.id)
        if tools is not None
        else None
    )
    if session and session.offered and not provider.capabilities.supports_tools:
        raise ProviderConfigError(
            f"提供方 {provider.name} 不支持工具调用，无法执行 {role}/{task}。"
        )
    mode, json_schema = output_mode_for(provider.capabilities, output_model, provider.name)
    trace.output_mode = mode

    briefs = [ToolBrief(n, TOOL_SPECS[n].description) for n in (session.offered if session else ())]
    prompt = render_prompt(catalog, role, task, trace.task_input, output_model, briefs)
    trace.messages = ensure_json_word(prompt.messages, provider.capabilities, mode)
    trace.messages_sha256 = hash_value(trace.messages)
    trace.prompt_templates = {**prompt.templates, "sha256": prompt.templates_sha256}
    trace.request_params.update(
        {
            "outputMode": mode,
            "outputModel": output_model.__name__,
            "jsonSchema": json_schema,
            "toolsOffered": list(session.offered) if session else [],
            "timeoutS": timeout_s,
        }
    )
    return run_structured(
        provider,
        model=trace.model_requested,
        output_model=output_model,
        meta=CallMeta(role, task, trace.task_input, output_model),
        mode=mode,
        json_schema=json_schema,
        tools=session if session and session.offered else None,
        retry=retry,
        timeout_s=timeout_s,
        cancel=cancel,
        verify_model=lambda reported: check_reported_model(policy, trace.model_requested, reported),
        trace=trace,
    )
