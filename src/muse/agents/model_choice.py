"""The model an author chose for a role (``muse models use writer deepseek:deepseek-chat``).

Every call still names its provider and model explicitly (spec 003): a command resolves them
*before* calling, in this order, and never from an environment variable:

1. ``--provider`` and ``--model`` on the command line;
2. the work's choice for the role (``model_choices``, latest row wins);
3. a command's own fallback (``revise`` keeps the original run's model), else a clear error.

The resolved choice says where it came from; :func:`recorded_choice` makes every receipt written
inside it carry that as ``request_params.modelChoice``, so a run shows whether its model was
typed on the command line or chosen once for the work.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import asdict, dataclass
from typing import Any

from sqlalchemy import Connection, Engine, insert, select

from muse.agents.approvals import current_user, effective_catalog
from muse.agents.policy import check_model_allowed
from muse.agents.tables import model_choices
from muse.core.clock import iso, utc_now
from muse.core.errors import InvalidInput

SOURCE_LABELS = {"flag": "命令行参数", "work": "作品的模型选择", "run": "沿用原运行"}


@dataclass(frozen=True)
class ModelChoice:
    role: str
    provider: str
    model: str
    source: str  # flag | work | run
    chosen_at: str | None = None
    chosen_by: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


_current: ContextVar[ModelChoice | None] = ContextVar("muse_model_choice", default=None)


def parse_choice(spec: str) -> tuple[str, str]:
    """``provider:model`` → (provider, model); the model id may itself contain ``:``."""
    provider, sep, model = (spec or "").strip().partition(":")
    if not sep or not provider.strip() or not model.strip():
        raise InvalidInput(
            f"模型写法应为 提供方:模型ID，例如 deepseek:deepseek-chat 或 ollama:qwen2.5:7b；收到：{spec!r}。"
        )
    return provider.strip(), model.strip()


def choose_model(engine: Engine, work_id: int, role: str, spec: str) -> ModelChoice:
    """Record the work's model for ``role``; refused unless the role's policy allows it."""
    provider, model = parse_choice(spec)
    with engine.begin() as conn:
        catalog = effective_catalog(conn)
        role_name = catalog.canonical_role(role)
        check_model_allowed(catalog, role_name, provider, model)
        chosen_by, chosen_at = current_user(), utc_now()
        conn.execute(
            insert(model_choices).values(
                work_id=work_id,
                role=role_name,
                provider=provider,
                model=model,
                chosen_by=chosen_by,
                chosen_at=chosen_at,
            )
        )
    return ModelChoice(role_name, provider, model, "work", iso(chosen_at), chosen_by)


def work_choices(conn: Connection, work_id: int) -> dict[str, ModelChoice]:
    """The choice in force per role for the work (the latest row of each role)."""
    rows = conn.execute(
        select(model_choices).where(model_choices.c.work_id == work_id).order_by(model_choices.c.id)
    ).mappings()
    return {
        r["role"]: ModelChoice(
            r["role"], r["provider"], r["model"], "work", iso(r["chosen_at"]), r["chosen_by"]
        )
        for r in rows
    }


def resolve_model(
    engine: Engine,
    work_id: int,
    role: str,
    provider: str | None,
    model: str | None,
    fallback: tuple[str, str] | None = None,
) -> ModelChoice:
    """The provider and model a command calls ``role`` with, and where they came from."""
    if provider and model:
        return ModelChoice(role, provider, model, "flag")
    if provider or model:
        raise InvalidInput(
            "--provider 与 --model 须同时给出。",
            hint=f"或者不写这两个参数，先用 muse models use {role} 提供方:模型ID 为作品选定模型。",
        )
    with engine.connect() as conn:
        chosen = work_choices(conn, work_id).get(role)
    if chosen is not None:
        return chosen
    if fallback is not None:
        return ModelChoice(role, fallback[0], fallback[1], "run")
    raise InvalidInput(
        f"没有指定模型：这部作品还没有为「{role}」选定模型，命令行也没有给出 --provider/--model。",
        hint=f"例如 muse models use {role} deepseek:deepseek-chat；"
        "不联网试用：muse models use " + role + " offline:offline-1。",
    )


def resolve_offered(
    engine: Engine, work_id: int, role: str, provider: str | None, model: str | None
) -> ModelChoice:
    """A page's model fields, prefilled with the work's choice: submitted unchanged they are that
    choice (source ``work``), changed they are the author's explicit pick (``flag``)."""
    provider, model = (provider or "").strip() or None, (model or "").strip() or None
    with engine.connect() as conn:
        chosen = work_choices(conn, work_id).get(role)
    if chosen is not None and (provider, model) in ((None, None), (chosen.provider, chosen.model)):
        return chosen
    return resolve_model(engine, work_id, role, provider, model)


@contextmanager
def recorded_choice(choice: ModelChoice) -> Iterator[ModelChoice]:
    """Receipts written inside record ``choice`` (when the call uses its provider and model)."""
    token = _current.set(choice)
    try:
        yield choice
    finally:
        _current.reset(token)


def choice_for_receipt(provider: str, model: str) -> dict[str, Any] | None:
    """The choice in scope, if this call uses exactly its provider and model."""
    choice = _current.get()
    if choice is None or (choice.provider, choice.model) != (provider, model):
        return None
    return choice.to_dict()
