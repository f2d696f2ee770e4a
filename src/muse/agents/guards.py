"""Input guards: what a blind role must never see, checked before anything is sent.

Spec 003 (judge): a blind judge receives anonymous candidates, the shared fine outline and the
rubric; never the experiment arm, the card-injection strategy, an oracle or reference answer,
candidate hashes, raw paths, prompt differences, another judge's result or a run/session
identity. The check walks the whole task input (nested keys and path-like string values) and
refuses the call with the JSON path of every offending key, so the caller can fix the input
instead of guessing. Matching is deliberately broad: a false refusal is visible and cheap, a
leak into a blind judge is invisible and expensive.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from muse.agents.errors import ForbiddenInput


@dataclass(frozen=True)
class _Rule:
    label: str  # Chinese, shown to the caller
    words: frozenset[str] = frozenset()  # any camel/snake word of the key
    fragments: tuple[str, ...] = ()  # substring of the normalised key
    exact: frozenset[str] = frozenset()  # the whole normalised key


_RULES: dict[str, _Rule] = {
    "arm_identity": _Rule(
        "实验臂身份或注卡策略",
        words=frozenset({"arm", "arms"}),
        fragments=(
            "injectionstrategy",
            "cardstrategy",
            "promptdiff",
            "promptvariant",
            "实验臂",
            "注卡策略",
            "提示词差异",
        ),
        exact=frozenset({"variant", "treatment", "condition"}),
    ),
    "oracle": _Rule(
        "标准答案或参考答案（oracle）",
        words=frozenset({"oracle", "gold", "groundtruth"}),
        fragments=(
            "referenceanswer",
            "standardanswer",
            "answerkey",
            "groundtruth",
            "goldanswer",
            "expectedoutput",
            "targetchaptertext",
            "标准答案",
            "参考答案",
            "真值",
        ),
        exact=frozenset({"reference", "answer", "expected", "solution", "truth"}),
    ),
    # The oracle red line of every production role (001 §7): never a reference answer or the
    # text of the chapter being written. Narrower than ``oracle`` (a blind judge's rule), whose
    # bare words (truth, answer, expected …) are ordinary keys of a plan or a context.
    "oracle_answer": _Rule(
        "标准答案或参考答案（oracle）",
        words=frozenset({"oracle", "groundtruth"}),
        fragments=(
            "referenceanswer",
            "standardanswer",
            "answerkey",
            "groundtruth",
            "goldanswer",
            "expectedoutput",
            "targetchaptertext",
            "标准答案",
            "参考答案",
        ),
    ),
    "candidate_hash": _Rule(
        "候选哈希",
        words=frozenset({"sha", "hash", "hashes", "digest", "checksum"}),
        fragments=("sha256", "sha1", "md5", "哈希"),
    ),
    "raw_path": _Rule(
        "原始文件路径",
        words=frozenset({"path", "paths", "filepath", "filename", "dir", "directory"}),
        fragments=("rawpath", "路径"),
    ),
    "other_judge_result": _Rule(
        "其他评委的结果",
        fragments=(
            "otherjudge",
            "judgeresult",
            "judgescore",
            "judgeverdict",
            "judgereport",
            "peerreview",
            "previousscore",
            "priorscore",
            "judgement",
            "judgment",
            "评委结果",
            "其他评委",
        ),
    ),
    "run_identity": _Rule(
        "运行或会话身份、历史会话",
        fragments=(
            "runid",
            "sessionid",
            "conversationid",
            "callid",
            "receiptid",
            "chathistory",
            "运行id",
            "会话",
        ),
        exact=frozenset({"run", "attempt", "history", "messages", "conversation"}),
    ),
}

_HINTS = {
    "judge": "盲评输入只能含匿名候选、共同细纲与量表；请在组装任务输入时去掉这些字段。",
    "detector": "检测员只看当前候选、冻结证据与细纲，不得含运行身份、原始路径或标准答案。",
}

_PATH_VALUE = re.compile(r"^(~?/[^\s/]+/|[A-Za-z]:\\|file://|\.{1,2}/)")


def _words(key: str) -> set[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", key)
    return set(re.findall(r"[a-z]+|\d+", spaced.lower()))


def _normalised(key: str) -> str:
    return re.sub(r"[\s_\-.]", "", key.lower())


@lru_cache(maxsize=8192)
def _key_hits(key: str, guards: tuple[str, ...]) -> tuple[str, ...]:
    """The labels of the rules in ``guards`` that ``key`` breaks. A pure function of the key
    and the guards, kept per pair: a chapter's inputs repeat the same few hundred keys over a
    thousand times (every scene, card and hit carries the same field names)."""
    words, norm = _words(key), _normalised(key)
    hits = []
    for guard in guards:
        rule = _RULES[guard]
        if words & rule.words or norm in rule.exact or any(f in norm for f in rule.fragments):
            hits.append(rule.label)
    return tuple(hits)


def forbidden_input_findings(task_input: dict[str, Any], guards: Iterable[str]) -> list[str]:
    """Human-readable findings (``path（label）``) for every forbidden key or path value, in the
    order of a pre-order walk of ``task_input`` (each node's key first, then its value)."""
    findings: list[str] = []
    _visit(task_input, "", tuple(guards), findings)
    return findings


def _visit(value: Any, path: str, guards: tuple[str, ...], findings: list[str]) -> None:
    """The findings below ``value`` (at json path ``path``). A node's path is written only
    when the node has a finding or children: most nodes are clean leaves."""
    raw_paths = "raw_path" in guards
    if isinstance(value, dict):
        for key, child in value.items():
            labels = _key_hits(str(key), guards)
            raw = raw_paths and isinstance(child, str) and _PATH_VALUE.match(child) is not None
            nested = isinstance(child, dict | list)
            if labels or raw or nested:
                child_path = f"{path}.{key}" if path else str(key)
                if labels or raw:
                    _add(findings, child_path, labels, raw)
                if nested:
                    _visit(child, child_path, guards, findings)
    elif isinstance(value, list):
        for index, child in enumerate(value):
            raw = raw_paths and isinstance(child, str) and _PATH_VALUE.match(child) is not None
            nested = isinstance(child, dict | list)
            if raw or nested:
                child_path = f"{path}[{index}]"
                if raw:
                    _add(findings, child_path, (), raw)
                if nested:
                    _visit(child, child_path, guards, findings)


def _add(findings: list[str], path: str, labels: tuple[str, ...], raw: bool) -> None:
    every = [*labels, _RULES["raw_path"].label] if raw else list(labels)
    findings.extend(f"{path}（{label}）" for label in dict.fromkeys(every))


def check_input(role: str, task_input: dict[str, Any], guards: Iterable[str]) -> None:
    """Refuse the call before dispatch when ``task_input`` carries anything ``guards`` forbid."""
    findings = forbidden_input_findings(task_input, guards)
    if findings:
        raise ForbiddenInput(
            f"角色 {role} 的输入含禁止字段，已在派发前拒绝：{'；'.join(findings)}",
            hint=_HINTS.get(role, "模型输入不得含标准答案、冻结点之后的原文或运行身份。"),
        )
