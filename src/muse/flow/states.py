"""The allowed transitions, in one place (ARCHITECTURE.md §5; spec 000 §9; spec 001 §3).

Runs follow the production chain; candidates carry the business state the author sees. Every
move goes through :func:`muse.flow.transitions.move_run` / ``move_candidate``, which look the
move up here and apply it by compare-and-set. Terminal states never move again.

The same tables are installed as database triggers (:mod:`muse.flow.triggers`, migrations 0010
and 0011), so a raw ``UPDATE`` that skips the code meets the same rules. Changing a table here
therefore needs a new migration that re-installs the triggers; ``tests/flow/test_state_machine.py``
fails until it exists.

Every working node has a deadline (:mod:`muse.flow.deadlines`); when it passes, the run moves
to ``<node>_timeout``, a terminal state, and a late result of that node is discarded.

Two terminal states end a run for the author to decide: ``blocked_user_action`` (a check
blocked and the automatic rewrites are used up, or the coverage gate / canon blocked) and
``authorization_required`` (spec 001 §5/§6: the detector lacked evidence and Muse found some in
the as-of view; continuing, gathering more evidence, rewriting or changing direction is the
author's call, through a new run).
"""

from __future__ import annotations

# Nodes where the system works and the author waits: each has a deadline and a timeout state.
# shadow_ready waits for the author (no deadline); accepted and canonical_committed live only
# inside the one accept transaction and are never seen committed.
WORKING_NODES: tuple[str, ...] = (
    "validating_context",
    "retrieving",
    "writing",
    "detecting",
    "rewriting",
    "edited_candidate",
    "accept_preflight",
)
TIMEOUT_STATES: dict[str, str] = {node: f"{node}_timeout" for node in WORKING_NODES}

_RUN_WORK: dict[str, frozenset[str]] = {
    "validating_context": frozenset({"retrieving", "failed", "authorization_stale"}),
    "retrieving": frozenset({"writing", "blocked_user_action", "failed"}),
    "writing": frozenset({"detecting", "failed"}),
    "detecting": frozenset(
        {"shadow_ready", "rewriting", "blocked_user_action", "authorization_required", "failed"}
    ),
    "rewriting": frozenset({"detecting", "failed"}),
    "shadow_ready": frozenset({"accept_preflight", "edited_candidate", "discarded"}),
    "edited_candidate": frozenset({"detecting"}),
    "accept_preflight": frozenset(
        {"accepted", "revision_conflict", "authorization_stale", "source_stale", "quality_stale"}
    ),
    "accepted": frozenset({"canonical_committed"}),
    "canonical_committed": frozenset({"extraction_queued"}),
}
RUN_TRANSITIONS: dict[str, frozenset[str]] = {
    state: targets | ({TIMEOUT_STATES[state]} if state in TIMEOUT_STATES else frozenset())
    for state, targets in _RUN_WORK.items()
}
RUN_TERMINAL = frozenset(
    {
        "blocked_user_action",
        "authorization_required",
        "failed",
        "discarded",
        "revision_conflict",
        "authorization_stale",
        "source_stale",
        "quality_stale",
        "extraction_queued",
        *TIMEOUT_STATES.values(),
    }
)
RUN_INITIAL = frozenset({"validating_context"})  # the only state a run may be inserted in

CANDIDATE_TRANSITIONS: dict[str, frozenset[str]] = {
    "DRAFT": frozenset({"CHECKING", "DISCARDED"}),
    "CHECKING": frozenset({"PASSED", "REJECTED", "DISCARDED"}),
    "PASSED": frozenset({"ACCEPTED", "ARCHIVED", "DISCARDED"}),
}
CANDIDATE_TERMINAL = frozenset({"REJECTED", "ACCEPTED", "ARCHIVED", "DISCARDED"})
CANDIDATE_INITIAL = frozenset({"DRAFT"})

# Columns fixed at insert (spec 001 §3: a move is bound to run id + attempt + candidate version
# + candidate sha256; spec 001 §7: run_type never changes after insert).
RUN_IDENTITY = ("id", "work_id", "target_chapter", "run_type", "mode", "quality_policy_version")
CANDIDATE_IDENTITY = (
    "id",
    "run_id",
    "work_id",
    "chapter",
    "version",
    "sha256",
    "body",
    "acceptance_eligible",
)

_NODE_LABELS = {
    "validating_context": "校验上下文",
    "retrieving": "检索取证",
    "writing": "写作中",
    "detecting": "检测中",
    "rewriting": "返修中",
    "edited_candidate": "已编辑待复检",
    "accept_preflight": "接受前置校验",
}
RUN_STATE_LABELS = {
    **_NODE_LABELS,
    "shadow_ready": "候选待审",
    "accepted": "已接受",
    "canonical_committed": "已入正式正文",
    "extraction_queued": "已入正文，章后抽取已排队",
    "blocked_user_action": "已停止，等待作者决定",
    "authorization_required": "待作者授权",
    "failed": "失败",
    "discarded": "已丢弃",
    "revision_conflict": "版本冲突",
    "authorization_stale": "授权失效",
    "source_stale": "来源已变化",
    "quality_stale": "质量校验失效",
    **{TIMEOUT_STATES[n]: f"{label}超时" for n, label in _NODE_LABELS.items()},
}

# Steps inside a node that a live display and ``muse run show`` name (they are not run states).
STEP_LABELS = {
    "mechanical_gate": "机械门",
    "semantic_detector": "语义检测",
    "evidence_search": "补证检索",
}
OUTCOME_LABELS = {
    "passed": "通过",
    "rejected": "未通过（可返修）",
    "forged": "检测报告造假，已拒收",
    "detector_failed": "检测员调用失败",
    "authorization_required": "证据不足，待作者授权",
    "canon_conflict": "与正典冲突，失败关闭",
}


def run_move_allowed(current: str, new: str) -> bool:
    return new in RUN_TRANSITIONS.get(current, frozenset())


def candidate_move_allowed(current: str, new: str) -> bool:
    return new in CANDIDATE_TRANSITIONS.get(current, frozenset())


def timeout_state(node: str) -> str | None:
    """The terminal state a run in ``node`` moves to when its deadline passes (None: no deadline)."""
    return TIMEOUT_STATES.get(node)


def run_states() -> frozenset[str]:
    """Every run state the table knows."""
    return (
        frozenset(RUN_TRANSITIONS)
        | RUN_TERMINAL
        | frozenset(t for targets in RUN_TRANSITIONS.values() for t in targets)
    )


def candidate_states() -> frozenset[str]:
    return frozenset(CANDIDATE_TRANSITIONS) | CANDIDATE_TERMINAL
