"""What ``muse write`` and ``muse run show`` print for the author (presentation only).

The live display follows the run node by node: a spinner while a node runs, then one line per
node with ✓ / ✗ / ■ and its elapsed milliseconds; rewrite attempts are numbered. The closing
summary says where the run ended, which candidate it produced, each finding with its quote
located in the text, and what to do next.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from muse.cli.output import console, escape, local_time
from muse.flow import OUTCOME_LABELS, RUN_STATE_LABELS, STEP_LABELS, NodeEvent, RunSummary

if TYPE_CHECKING:
    from rich.status import Status

MARKS = {"ok": "[green]✓[/]", "failed": "[red]✗[/]", "blocked": "[yellow]■[/]"}
_LABELS = {
    "validating_context": "校验授权",
    "retrieving": "检索与冻结上下文",
    "writing": "写手生成",
    "rewriting": "写手返修",
    "detecting": "检测",
    **STEP_LABELS,
}


def label(node: str) -> str:
    return _LABELS.get(node, RUN_STATE_LABELS.get(node, node))


class LiveProgress:
    """An ``observer`` for ``write_chapter``: live, node by node."""

    def __init__(self) -> None:
        self._status: Status | None = None
        self._attempt = 1

    def __call__(self, event: NodeEvent) -> None:
        if event.attempt != self._attempt:
            self._attempt = event.attempt
            console.print(f"[bold]— 第 {event.attempt} 稿（自动返修第 {event.attempt - 1} 轮）—[/]")
        indent = "    " if event.node in STEP_LABELS else "  "
        if event.status == "running":
            self._stop()
            self._status = console.status(f"{indent}{label(event.node)}…", spinner="dots")
            self._status.start()
            return
        if event.node not in STEP_LABELS:
            self._stop()
        mark = MARKS.get(event.status, event.status)
        console.print(f"{indent}{mark} {label(event.node)}  [dim]{event.elapsed_ms} ms[/]")

    def _stop(self) -> None:
        if self._status is not None:
            self._status.stop()
            self._status = None

    def close(self) -> None:
        self._stop()


def render_summary(s: RunSummary, chapter: int) -> None:
    head = f"运行 {s.run_id}：{RUN_STATE_LABELS.get(s.state, s.state)}"
    if s.attempt > 1:
        head += f"（第 {s.attempt} 稿，自动返修 {s.attempt - 1} 轮；上限 {s.max_rewrites} 轮）"
    console.print(f"[bold]{escape(head)}[/]")
    if s.reason:
        console.print(f"原因：{escape(s.reason)}")
    if s.candidate_id:
        last = s.attempts[-1] if s.attempts else None
        version = f"v{last.version}，" if last else ""
        console.print(f"候选 {s.candidate_id}（{version}{s.han_count} 汉字）")
    for a in s.attempts[:-1]:
        console.print(
            f"  第 {a.attempt} 稿 {a.candidate_id}：{OUTCOME_LABELS.get(a.outcome, a.outcome)}，"
            f"{len(a.revision_list)} 条返修意见"
        )
    _findings(s.findings)
    render_gaps(s.evidence_gaps, s.new_setting_candidates)
    console.print(f"[bold]下一步：[/]{escape(next_step(s, chapter))}")


def _findings(findings: list[dict[str, Any]]) -> None:
    if not findings:
        return
    console.print("检测发现：")
    for f in findings:
        where = f.get("location")
        at = f"第 {where['paragraph']} 段 " if where else ""
        console.print(f"  [{f['severity']}] {f['kind']} {at}", markup=False, highlight=False)
        console.print(f"      {f['message']}", markup=False, highlight=False)
        if where:
            console.print(f"      原文：{where['excerpt']}", markup=False, highlight=False)
        elif f.get("quote"):
            console.print(f"      引文：{f['quote']}", markup=False, highlight=False)


def render_gaps(gaps: list[dict[str, Any]], new_settings: list[dict[str, Any]]) -> None:
    if gaps:
        console.print("证据缺口（已在冻结点前检索）：")
        for g in gaps:
            console.print(f"  · {g['subject']}：{g['note']}", markup=False, highlight=False)
            for e in g["factEvidence"]:
                console.print(f"      {e['label']}：{e['text'][:60]}", markup=False)
    if new_settings:
        console.print("新设定候选（不会自动入正典，由你决定）：")
        for n in new_settings:
            console.print(f"  · {n['name']}（{n['kind']}）：{n['statement']}", markup=False)


def next_step(s: RunSummary, chapter: int) -> str:
    cand, run = s.candidate_id, s.run_id
    if s.state == "shadow_ready":
        extra = "；新设定候选需你确认后再补进设定卡" if s.new_setting_candidates else ""
        return (
            f"审阅 muse candidate show {cand}，然后由你决定：采纳 muse accept {cand}；"
            f'改后合并 muse candidate edit {cand}；改写 muse revise {cand} "改：…"；'
            f"丢弃 muse discard {cand}{extra}。"
        )
    if s.state == "authorization_required":
        return (
            f"找到的材料已附入运行记录（muse run show {run}）。由你决定：继续、补证（补卡或补细纲）、"
            f"重写或换方向（改细纲），然后以新运行 muse write {chapter} 继续。"
        )
    if s.state == "blocked_user_action":
        look = f"查看问题 muse candidate show {cand}；" if cand else ""
        return (
            f"{look}修改细纲或设定后重新运行 muse write {chapter}"
            "（--max-rewrites 可调整自动返修轮数）。"
        )
    if s.state == "authorization_stale":
        return f"检查作品的授权与来源状态后重新运行 muse write {chapter}。"
    return f"查看运行详情 muse run show {run}，处理后重新运行 muse write {chapter}。"


_DETAIL_LABELS = {
    "authorizationSnapshotId": "授权快照",
    "purpose": "用途",
    "maxRewrites": "自动返修上限",
    "contextSnapshotId": "冻结上下文",
    "planId": "检索计划",
    "manifestId": "读取清单",
    "sha256": "sha256",
    "sources": "来源",
    "omitted": "排除",
    "cardHits": "卡片命中",
    "exploration": "探索",
    "reads": "读取",
    "plannedReads": "计划内",
    "exploredReads": "自主探索",
    "dropped": "舍弃",
    "round": "轮次",
    "receiptId": "回执",
    "modelReturned": "报告模型",
    "toolsSent": "带工具",
    "candidateId": "候选",
    "candidateVersion": "版本",
    "candidateSha256": "候选哈希",
    "revisionItems": "返修条目",
    "findings": "发现",
    "blocking": "阻断",
    "writerReceiptId": "写手回执",
    "status": "结论",
    "gaps": "证据缺口",
    "outcome": "结果",
    "runState": "运行状态",
    "reason": "原因",
}
_HIDDEN_DETAIL = {"gaps", "revisionList", "deadlineAt", "deadlineS", "replaySha256"}
_SOURCES = {"flag": "命令行参数", "work": "作品的模型选择", "run": "沿用原运行"}


def _short(value: Any) -> str:
    text = "—" if value is None else str(value)
    if len(text) == 64 and all(c in "0123456789abcdef" for c in text):
        return text[:12] + "…"
    if isinstance(value, bool):
        return "是" if value else "否"
    return text


def detail_text(detail: dict[str, Any]) -> str:
    """A node's detail as ``标签 值`` pairs (hashes shortened, nested objects flattened)."""
    parts = []
    for key, value in detail.items():
        if key in _HIDDEN_DETAIL or value is None or value == []:
            continue
        name = _DETAIL_LABELS.get(key, key)
        if isinstance(value, dict):
            inner = detail_text(value)
            parts.append(f"{name}（{inner}）" if inner else name)
        elif isinstance(value, list):
            parts.append(f"{name} {len(value)} 项")
        else:
            parts.append(f"{name} {_short(value)}")
    return "，".join(parts)


def render_run(d: dict[str, Any]) -> None:
    """``muse run show``: the run, its frozen inputs, each attempt node by node, candidates,
    model receipts and evidence gaps, as sections (``--json`` prints the same data)."""
    console.print(f"[bold]运行 {d['id']}[/] · 第 {d['chapter']} 章 · {d['stateLabel']}")
    console.print(
        f"  模型：{d['provider']}/{d['model']} · 冻结点：第 {d['asOf']} 章 · "
        f"第 {d['attempt']} 稿（自动返修上限 {d.get('maxRewrites', '—')} 轮）",
        highlight=False,
    )
    console.print(f"  开始于：{local_time(d.get('createdAt'))}", highlight=False)
    if d["reason"]:
        console.print(f"  原因：{d['reason']}", highlight=False)
    _section("授权与冻结上下文")
    console.print(f"  授权快照：{d['authorizationSnapshotId'] or '—'}", highlight=False)
    for snap in d["contextSnapshots"]:
        console.print(
            f"  冻结上下文 {snap['id']}（第 {snap['attempt']} 稿）：sha256 {_short(snap['sha256'])}"
            f" · 检索计划 {_short(snap['planId'])} · 读取清单 {_short(snap['manifestId'])}",
            highlight=False,
        )
    for a in d["attempts"]:
        _section(f"第 {a['attempt']} 稿（{a['durationMs']} ms）")
        ended = {e["node"] for e in a["nodes"] if e["status"] != "started"}
        for e in a["nodes"]:
            if e["status"] == "started" and e["node"] in ended:
                continue  # its end line follows, with the duration
            mark = MARKS.get(e["status"], "·")
            console.print(f"  {mark} {e['label']}  [dim]{e['durationMs']} ms[/]", highlight=False)
            text = detail_text(e["detail"])
            if text:
                console.print(f"      {text}", highlight=False)
            for item in e["detail"].get("revisionList", []):
                console.print(f"      返修：{item['problem']} → {item['fix']}", highlight=False)
    _render_run_tail(d)


def _section(title: str) -> None:
    console.print(f"[bold]── {title}[/]")


def _cached(tokens: int | None) -> str:
    return "" if tokens is None else f"（缓存 {tokens}）"


def _render_run_tail(d: dict[str, Any]) -> None:
    _section("候选")
    for c in d["candidates"]:
        console.print(
            f"  {c['id']} v{c['version']} {c['state']} · {c['hanCount']} 汉字 · sha256 "
            f"{_short(c['sha256'])} · 机械门 {c['mechanical']} · 语义 {c['semantic']}",
            highlight=False,
        )
    cache = d.get("tokenCache") or {}
    if cache.get("share") is not None:
        console.print(
            f"输入缓存命中：{cache['share']:.0%}（{cache['tokensCached']}/{cache['tokensIn']} tokens）",
            highlight=False,
        )
    _section("模型调用回执")
    for r in d["receipts"]:
        console.print(
            f"  {r['id']} {r['role']}/{r['task']} · {r['provider']}/{r['modelRequested']}"
            f" → {r['modelReturned'] or '（无回复）'} · {r['status']} · {local_time(r['startedAt'])}",
            markup=False,
            highlight=False,
        )
        source = _SOURCES.get((r.get("modelChoice") or {}).get("source", ""), "")
        console.print(
            f"      输入 {r['tokensIn']} + 输出 {r['tokensOut']} tokens{_cached(r.get('tokensCached'))}"
            f" · {r['latencyMs']} ms"
            f" · 输入哈希 {_short(r['inputSha256'])} · 输出哈希 {_short(r['outputSha256'])}"
            + (f" · 模型来源：{source}" if source else ""),
            markup=False,
            highlight=False,
        )
    if d["evidenceGaps"]:
        _section("证据缺口")
        for g in d["evidenceGaps"]:
            console.print(
                f"  第 {g['attempt']} 稿 · {g['subject']} → {g['outcome']}：{g['note']}",
                highlight=False,
            )
