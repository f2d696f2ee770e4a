"""Errors of the agents layer. Every way a model call can end badly has its own class.

Each class carries the ``status`` written to the call's receipt (``model_calls.status``), so a
failed call is recorded under a name the dashboard can show, and the caller can catch exactly
what it can handle. ``retryable`` marks transient transport failures that the structured-output
loop retries with bounded backoff.

    ProviderError (muse.core.errors)
    ├── DispatchRefused             refused before any request was sent (attempts = 0)
    │   ├── UnknownRoleOrTask       role or task not in roles.yaml                refused_task
    │   ├── ModelNotAllowed         model not in the role's policy version       refused_policy
    │   ├── ForbiddenInput          blind input carries forbidden keys            refused_input
    │   ├── ToolsRefused            tools offered to a tool-less task             refused_tools
    │   └── RealRequestsDisabled    MUSE_ALLOW_MODEL_REQUESTS=0, remote URL       requests_disabled
    ├── MissingApiKey (+ConfigError) no key in env var or config file             missing_key
    ├── ProviderConfigError (+ConfigError) unknown provider, bad config entry      config_error
    ├── TransportError              connection failed                   retryable transport_error
    ├── RateLimited                 HTTP 429                            retryable rate_limited
    ├── ServerError                 HTTP 5xx                            retryable server_error
    ├── ProviderRejected            other HTTP 4xx (bad key, bad request)         provider_rejected
    ├── MalformedResponse           reply envelope is not a chat completion       malformed_response
    ├── ProviderTimeout             the call's deadline passed                    timeout
    ├── Cancelled                   the caller's cancel event was set             cancelled
    ├── EmptyReply                  blank content after the retry                 empty_reply
    ├── InvalidOutput               not valid JSON / schema after one repair      invalid_output
    │   └── TruncatedOutput         finish_reason = length                        truncated_output
    ├── ModelMismatch               reported model id is not the frozen id        model_mismatch
    ├── ToolNotAllowed              a tool outside the task's whitelist           tool_refused
    ├── ToolRoundsExceeded          the tool loop did not settle                  tool_rounds_exceeded
    └── CallCrashed                 any other exception inside the call           internal_error

``AsOfViolation`` (a ContractViolation, not a provider error) is raised by a reader asked for a
chapter after the freeze point; inside a tool loop it becomes a logged refusal.
"""

from __future__ import annotations

from muse.core.errors import ConfigError, ContractViolation, ProviderError


class AgentCallError(ProviderError):
    """Base of the agents layer's provider errors; ``status`` names the failure in receipts."""

    status = "internal_error"
    retryable = False

    def __init__(
        self, message: str, *, hint: str | None = None, retry_after_s: float | None = None
    ) -> None:
        super().__init__(message, hint=hint)
        self.retry_after_s = retry_after_s


class DispatchRefused(AgentCallError):
    status = "refused"


class UnknownRoleOrTask(DispatchRefused):
    status = "refused_task"


class ModelNotAllowed(DispatchRefused):
    status = "refused_policy"


class ForbiddenInput(DispatchRefused):
    status = "refused_input"


class ToolsRefused(DispatchRefused):
    status = "refused_tools"


class RealRequestsDisabled(DispatchRefused):
    status = "requests_disabled"


class MissingApiKey(AgentCallError, ConfigError):
    status = "missing_key"


class ProviderConfigError(AgentCallError, ConfigError):
    status = "config_error"


class TransportError(AgentCallError):
    status = "transport_error"
    retryable = True


class RateLimited(AgentCallError):
    status = "rate_limited"
    retryable = True


class ServerError(AgentCallError):
    status = "server_error"
    retryable = True


class ProviderRejected(AgentCallError):
    status = "provider_rejected"


class MalformedResponse(AgentCallError):
    status = "malformed_response"


class ProviderTimeout(AgentCallError):
    status = "timeout"


class Cancelled(AgentCallError):
    status = "cancelled"


class EmptyReply(AgentCallError):
    status = "empty_reply"


class InvalidOutput(AgentCallError):
    status = "invalid_output"


class TruncatedOutput(InvalidOutput):
    status = "truncated_output"


class ModelMismatch(AgentCallError):
    status = "model_mismatch"


class ToolNotAllowed(AgentCallError):
    status = "tool_refused"


class ToolRoundsExceeded(AgentCallError):
    status = "tool_rounds_exceeded"


class CallCrashed(AgentCallError):
    """Anything unexpected inside a call, turned into a named failure (its type in the text)."""

    status = "internal_error"


class AsOfViolation(ContractViolation):
    """A read past the freeze point (ARCHITECTURE.md principle 4)."""


# Every status a receipt can carry; the table's CHECK constraint lists the same names.
RECEIPT_STATUSES = (
    "ok",
    "refused_task",
    "refused_policy",
    "refused_input",
    "refused_tools",
    "requests_disabled",
    "missing_key",
    "config_error",
    "transport_error",
    "rate_limited",
    "server_error",
    "provider_rejected",
    "malformed_response",
    "timeout",
    "cancelled",
    "empty_reply",
    "invalid_output",
    "truncated_output",
    "model_mismatch",
    "tool_refused",
    "tool_rounds_exceeded",
    "internal_error",
)
