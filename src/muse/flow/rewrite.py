"""The automatic rewrite loop's policy and the writer's rewrite input (spec 000 §3.1, §9).

REJECTED → a structured revision list → ``rewriting`` with ``attempt + 1`` → the writer is called
again, still without tools, with the *same* frozen context plus the revision list → a new
candidate (the next ``candidateVersion`` of the run, a new row: a candidate's body and hash never
change) → ``detecting`` again. At most ``max_rewrites`` rewrites (default 2, spec 000 §9;
``MUSE_MAX_REWRITES`` or ``muse write --max-rewrites``; 0 turns the loop off); after that the run
stops in ``blocked_user_action`` with the last findings, and further rewrites are the author's
call through a new run (spec 001 §5). Only verified, located problems are rewritten
(``Verdict.rewritable``): a forged report fails the run, and evidence gaps go to the author.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from muse.context import WriterContext
from muse.context import writer_input as round_writer_input
from muse.core.errors import ConfigError
from muse.quality import RevisionItem, Verdict

DEFAULT_MAX_REWRITES = 2
MAX_REWRITES_ENV = "MUSE_MAX_REWRITES"
UPPER_LIMIT = 10  # a guard against typos: each rewrite is a full chapter generation
REVISION_KEY = "revisionRequest"
_INSTRUCTION = (
    "上一稿没有通过检测。请在同一份冻结任务输入的基础上重写整章，逐条解决下面返修单中的问题："
    "quote 是上一稿中出问题的原句，problem 说明问题，fix 说明怎么改。"
    "返修单之外、没有问题的部分保持细纲与文风要求不变；不要解释修改过程，只交付新的完整正文。"
)


@dataclass(frozen=True)
class RewritePolicy:
    max_rewrites: int = DEFAULT_MAX_REWRITES

    def __post_init__(self) -> None:
        if not 0 <= self.max_rewrites <= UPPER_LIMIT:
            raise ConfigError(
                f"自动返修轮数必须在 0–{UPPER_LIMIT} 之间，收到 {self.max_rewrites}。",
                hint=f"用 --max-rewrites 或环境变量 {MAX_REWRITES_ENV} 设置；0 表示不自动返修。",
            )

    def may_rewrite(self, attempt: int) -> bool:
        """Whether a rejected ``attempt`` (from 1) may be followed by another one."""
        return attempt - 1 < self.max_rewrites

    @classmethod
    def resolve(
        cls, max_rewrites: int | None = None, environ: Mapping[str, str] | None = None
    ) -> RewritePolicy:
        """The explicit limit, else ``MUSE_MAX_REWRITES``, else the default (2)."""
        if max_rewrites is not None:
            return cls(max_rewrites)
        raw = (environ if environ is not None else os.environ).get(MAX_REWRITES_ENV, "").strip()
        if not raw:
            return cls()
        try:
            return cls(int(raw))
        except ValueError:
            raise ConfigError(
                f"自动返修轮数 {MAX_REWRITES_ENV}=「{raw}」不是整数。",
                hint="例如 MUSE_MAX_REWRITES=2。",
            ) from None


def revision_request(attempt: int, items: Sequence[RevisionItem]) -> dict[str, Any]:
    """What the writer receives besides the frozen context when rewriting ``attempt``."""
    return {
        "attempt": attempt,
        "instruction": _INSTRUCTION,
        "items": [
            {k: v for k, v in item.to_dict().items() if v not in (None, [], ())} for item in items
        ],
    }


def writer_input(context: WriterContext, revision: dict[str, Any] | None = None) -> dict[str, Any]:
    """The generation call's task input: the frozen context, plus the revision list when
    rewriting. The context itself is never changed (its snapshot hash stays valid)."""
    wire = round_writer_input(context)  # spec 001 §2.3's fixed order
    if revision is None:
        return wire
    return {**wire, REVISION_KEY: revision}


def exhausted_reason(policy: RewritePolicy, attempt: int, last_reason: str | None) -> str:
    """Why a rejected run stops for the author (Chinese)."""
    if policy.max_rewrites == 0:
        head = "自动返修已关闭（上限 0 轮）"
    else:
        head = f"自动返修 {policy.max_rewrites} 轮后，第 {attempt} 稿仍未通过检测"
    return f"{head}：{last_reason or ''}请根据检测结果修改细纲或设定，或以新运行重写。"


@dataclass(frozen=True)
class Decision:
    """Where a checked attempt sends its run, and why (Chinese)."""

    run_state: str
    reason: str | None


def decide(
    policy: RewritePolicy, verdict: Verdict, attempt: int, withheld: str | None = None
) -> Decision:
    """The rewrite policy's answer to ``verdict`` of ``attempt`` (from 1). ``withheld``: why
    this verdict must not go back to the writer at all (Chinese); the run stops instead."""
    may_rewrite = policy.may_rewrite(attempt) and withheld is None
    state = verdict.run_state(may_rewrite=may_rewrite)
    reason = verdict.reason
    if verdict.rewritable and withheld is not None:
        reason = f"{verdict.reason or ''}{withheld}"
    elif verdict.rewritable and not may_rewrite:
        reason = exhausted_reason(policy, attempt, verdict.reason)
    elif verdict.outcome == "passed" and attempt > 1:
        reason = f"第 {attempt} 稿（自动返修 {attempt - 1} 轮后）通过检测。"
    return Decision(state, reason)


W = TypeVar("W")


def rewrite_loop(
    policy: RewritePolicy,
    *,
    write: Callable[[int, dict[str, Any] | None], W],
    check: Callable[[W, int], Verdict],
    commit: Callable[[W, int, Verdict, Decision], None],
    withhold: Callable[[Verdict], str | None] | None = None,
) -> tuple[int, Verdict, Decision]:
    """The automatic rewrite loop, one implementation for every caller (the production run and
    the evaluation's production arm C): write attempt 1, check it, let :func:`decide` say where
    the run goes and ``commit`` that; while the answer is ``rewriting``, write the next attempt
    from the same frozen context plus the revision list and check again.

    ``write(attempt, revision)`` produces the attempt's candidate (``revision`` is None for
    attempt 1); ``check`` returns its verdict without storing anything; ``commit`` applies the
    verdict and decision. ``withhold(verdict)`` names a reason the verdict's revision list must
    not reach the writer (the evaluation's oracle-derived findings), or None. A caller that resumes after a crash passes idempotent steps (a stored
    candidate, a receipted reply, an already committed verdict are returned, not redone).
    Returns the last attempt, its verdict and the decision that ended the loop.
    """
    attempt, revision = 1, None
    while True:
        written = write(attempt, revision)
        verdict = check(written, attempt)
        decision = decide(policy, verdict, attempt, withhold(verdict) if withhold else None)
        commit(written, attempt, verdict, decision)
        if decision.run_state != "rewriting":
            return attempt, verdict, decision
        attempt += 1
        revision = revision_request(attempt, verdict.revision_list)
