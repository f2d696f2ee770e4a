"""The allowed transitions, in one place (ARCHITECTURE.md §5; spec 000 §9; spec 001 §3).

Runs follow the production chain; candidates carry the business state the author sees. Every
move goes through :func:`muse.flow.transitions.move_run` / ``move_candidate``, which look the
move up here and apply it by compare-and-set. Terminal states never move again.
"""

from __future__ import annotations

RUN_TRANSITIONS: dict[str, frozenset[str]] = {
    "validating_context": frozenset({"retrieving", "failed", "authorization_stale"}),
    "retrieving": frozenset({"writing", "blocked_user_action", "failed"}),
    "writing": frozenset({"detecting", "failed"}),
    "detecting": frozenset({"shadow_ready", "rewriting", "blocked_user_action", "failed"}),
    "rewriting": frozenset({"detecting", "failed"}),
    "shadow_ready": frozenset({"accept_preflight", "edited_candidate", "discarded"}),
    "edited_candidate": frozenset({"detecting"}),
    "accept_preflight": frozenset(
        {"accepted", "revision_conflict", "authorization_stale", "source_stale", "quality_stale"}
    ),
    "accepted": frozenset({"canonical_committed"}),
    "canonical_committed": frozenset({"extraction_queued"}),
}
RUN_TERMINAL = frozenset(
    {
        "blocked_user_action",
        "failed",
        "discarded",
        "revision_conflict",
        "authorization_stale",
        "source_stale",
        "quality_stale",
        "extraction_queued",
    }
)

CANDIDATE_TRANSITIONS: dict[str, frozenset[str]] = {
    "DRAFT": frozenset({"CHECKING", "DISCARDED"}),
    "CHECKING": frozenset({"PASSED", "REJECTED", "DISCARDED"}),
    "PASSED": frozenset({"ACCEPTED", "ARCHIVED", "DISCARDED"}),
}
CANDIDATE_TERMINAL = frozenset({"REJECTED", "ACCEPTED", "ARCHIVED", "DISCARDED"})

RUN_STATE_LABELS = {
    "validating_context": "校验上下文",
    "retrieving": "检索取证",
    "writing": "写作中",
    "detecting": "检测中",
    "rewriting": "返修中",
    "shadow_ready": "候选待审",
    "edited_candidate": "已编辑待复检",
    "accept_preflight": "接受前置校验",
    "accepted": "已接受",
    "canonical_committed": "已入正式正文",
    "extraction_queued": "已入正文，章后抽取已排队",
    "blocked_user_action": "已停止，等待作者决定",
    "failed": "失败",
    "discarded": "已丢弃",
    "revision_conflict": "版本冲突",
    "authorization_stale": "授权失效",
    "source_stale": "来源已变化",
    "quality_stale": "质量校验失效",
}


def run_move_allowed(current: str, new: str) -> bool:
    return new in RUN_TRANSITIONS.get(current, frozenset())


def candidate_move_allowed(current: str, new: str) -> bool:
    return new in CANDIDATE_TRANSITIONS.get(current, frozenset())
