"""The ``writer-eval-v1`` state machine of one evaluation run (one preregistered sample).

    preregistered → generating → detecting → judging_pair → stable_report
    judging_pair → adjudicating → adjudicated_report | invalid_unstable
    authorization, freeze, contract or model failures → failed_* (terminal)

Spec 000 §10. A separate machine from the production rewrite loop (``muse.flow.states``). The
table is installed as database triggers (``muse.evaluation.triggers``, migration 0020).
"""

from __future__ import annotations

FAILED = ("failed_authorization", "failed_freeze", "failed_contract", "failed_model")

EVAL_TRANSITIONS: dict[str, frozenset[str]] = {
    "preregistered": frozenset({"generating", "failed_authorization", "failed_freeze"}),
    "generating": frozenset({"detecting", *FAILED}),
    "detecting": frozenset({"judging_pair", "failed_contract", "failed_model"}),
    "judging_pair": frozenset({"stable_report", "adjudicating", "failed_contract", "failed_model"}),
    "adjudicating": frozenset(
        {"adjudicated_report", "invalid_unstable", "failed_contract", "failed_model"}
    ),
}
EVAL_TERMINAL = frozenset({"stable_report", "adjudicated_report", "invalid_unstable", *FAILED})
EVAL_INITIAL = frozenset({"preregistered"})
REPORT_STATES = frozenset({"stable_report", "adjudicated_report"})
EVAL_IDENTITY = (
    "id",
    "set_id",
    "sample_key",
    "work_id",
    "target_chapter",
    "as_of",
    "scene_class",
    "quality_policy_version",
    "labels",
)

EVAL_STATE_LABELS = {
    "preregistered": "已预注册",
    "generating": "三臂生成中",
    "detecting": "检测中",
    "judging_pair": "双评委评审中",
    "stable_report": "评审稳定",
    "adjudicating": "第三评委裁决中",
    "adjudicated_report": "第三评委裁决后稳定",
    "invalid_unstable": "评委不稳定，样本无效",
    "failed_authorization": "授权失败",
    "failed_freeze": "冻结失败",
    "failed_contract": "合同失败",
    "failed_model": "模型调用失败",
}


def eval_move_allowed(current: str, new: str) -> bool:
    return new in EVAL_TRANSITIONS.get(current, frozenset())
