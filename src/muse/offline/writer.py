"""The offline provider's writer: a deterministic chapter built from the WriterContext alone.

It exists for the demo, dry runs and tests (no network, same input → same output). It follows
the output contract the way a good writer must: every hard constraint of the fine outline gets a
sentence and a claim that quotes it verbatim, every required entity is named, the chapter-end hook
closes the chapter, and the body is filled to the generation band's target with neutral texture
sentences. It has no literary ambition and never stands in for checking logic.

Evidence requests: only when the fine outline asks for them with a test marker
``【补证：甲；乙】`` in its title or an adjustable beat does it return one evidenceRequest per
listed query (tests of the evidence-request round); otherwise it asks for nothing.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from pydantic import BaseModel

from muse.agents import builtin_generator, stable_input
from muse.context import DraftClaim, EvidenceRequest, SelfCheck, WriterDraft
from muse.core.canonical import canonical_json
from muse.core.text import count_han
from muse.offline.wire import emit

# Texture sentences are composed from three parts so that no sentence, paragraph or long
# n-gram repeats within a chapter: the mechanical gate blocks degenerate repetition
# (quality/repetition.py), and a fake writer must not look degenerate.
_OPENINGS = tuple(
    [
        "片刻之后",
        "过了半晌",
        "这时节",
        "不多时",
        "转眼间",
        "又过了一阵",
        "正说话间",
        "夜色渐深",
        "天光微亮",
        "四下无人",
        "风声稍歇",
        "忽然之间",
        "山路尽头",
        "灯影摇曳",
        "檐下雨住",
        "更鼓初响",
        "晨雾未散",
    ]
)
_ACTIONS = tuple(
    [
        "沉默不语",
        "抬头望天",
        "缓步走开",
        "低声叹息",
        "停下脚步",
        "回身张望",
        "默然点头",
        "暗暗盘算",
        "握紧双拳",
        "皱起眉头",
        "整了整衣襟",
        "轻轻摇头",
        "倚着门框",
        "拨弄灯芯",
        "望向窗外",
    ]
)
_ENDINGS = tuple(
    [
        "心中另有计较",
        "一时无人作声",
        "远处几声犬吠",
        "神色难以捉摸",
        "似有千言万语",
        "话到嘴边又咽下",
        "眼底掠过一丝倦意",
        "手心微微出汗",
        "只觉夜风更冷",
        "却不肯先开口",
        "像是想起旧事",
        "脚下落叶沙沙",
    ]
)


def _texture(step: int, name: str) -> str:
    opening = _OPENINGS[step % len(_OPENINGS)]
    action = _ACTIONS[(step * 5 + step // len(_OPENINGS)) % len(_ACTIONS)]
    ending = _ENDINGS[(step * 7 + step // len(_ACTIONS)) % len(_ENDINGS)]
    return f"{opening}，{name}{action}，{ending}。"


_REQUEST_MARKER = re.compile(r"【补证：([^】]+)】")


def evidence_requests(outline: dict[str, Any]) -> list[EvidenceRequest]:
    """The requests a ``【补证：…】`` marker in the outline's title or beats asks for."""
    texts = [outline.get("title", "")] + [b["text"] for b in outline.get("adjustable_beats", [])]
    queries = [
        q.strip()
        for text in texts
        for found in _REQUEST_MARKER.findall(text)
        for q in found.split("；")
        if q.strip()
    ]
    return [EvidenceRequest(query=q, reason=f"离线写手：需要「{q}」的前文依据。") for q in queries]


def _seed(task_input: dict[str, Any]) -> int:
    """Same book, outline, cards and length: same seed (run ids, hashes and times left out)."""
    stable = canonical_json(stable_input(task_input))
    return int.from_bytes(hashlib.sha256(stable).digest()[:8], "big")


def _sentence(text: str) -> str:
    text = text.strip().rstrip("。！？!?.；;")
    return text + "。"


@builtin_generator("writer", "generate")
def write_chapter(
    task_input: dict[str, Any], model: type[BaseModel] = WriterDraft
) -> dict[str, Any] | None:
    """A WriterDraft for a WriterContext v1 wire dict; declines (None) any other input or output
    model, so the offline provider falls back to its generic schema-valid output."""
    if model is not WriterDraft or task_input.get("schemaVersion") != "writer-context-v1":
        return None
    outline = task_input["fineOutline"]
    hc = outline["hard_constraints"]
    names = [e["name"] for e in hc["required_entities"]]
    target = task_input["outputContract"]["lengthTarget"]["targetChars"]
    _low, high = task_input["outputContract"]["generationBand"]
    seed = _seed(task_input)
    claims: list[DraftClaim] = []
    core: list[str] = []

    def claim(constraint_id: str, sentence: str) -> None:
        core.append(sentence)
        claims.append(DraftClaim(constraint_id=constraint_id, quote=sentence))

    opening = (
        f"却说{names[0]}" + ("、".join([""] + names[1:]) if len(names) > 1 else "") + "各怀心事，"
    )
    core.append(opening + "一夜无话。")
    for event in hc["hard_events"]:
        claim(event["id"], _sentence(event["text"]))
    for action in hc.get("foreshadowing", []):
        claim(action["id"], _sentence(action["text"]))
    claim(hc["result_direction"]["id"], _sentence(hc["result_direction"]["text"]))
    hook = _sentence(hc["chapter_end_hook"]["text"])
    paragraphs = _fill(core, names, seed, target - count_han(hook), high - count_han(hook))
    paragraphs.append(hook)
    claims.append(DraftClaim(constraint_id=hc["chapter_end_hook"]["id"], quote=hook))
    draft = WriterDraft(
        paragraphs=tuple(paragraphs),
        claims=tuple(claims),
        evidence_requests=tuple(evidence_requests(outline)),
        new_setting_declarations=(),
        self_check=SelfCheck(
            covered_constraint_ids=tuple(c.constraint_id for c in claims),
            notes="离线写手：逐条兑现硬约束，其余为中性质感句。",
        ),
    )
    return emit(draft)


def _fill(core: list[str], names: list[str], seed: int, want: int, limit: int) -> list[str]:
    """Texture paragraphs (four sentences each) between the core sentences until ``want`` Han
    characters, never past ``limit``."""
    texture: list[str] = []
    total = sum(count_han(p) for p in core)
    step = 0
    current = ""
    while total < want:
        sentence = _texture(seed + step, names[(seed + step) % len(names)])
        if total + count_han(sentence) > limit:
            break
        current += sentence
        total += count_han(sentence)
        step += 1
        if step % 4 == 0:
            texture.append(current)
            current = ""
    if current:
        texture.append(current)
    paragraphs: list[str] = []
    per_gap = -(-len(texture) // max(1, len(core)))  # ceil: spread texture after each core line
    for index, sentence in enumerate(core):
        paragraphs.append(sentence)
        paragraphs.extend(texture[index * per_gap : (index + 1) * per_gap])
    return paragraphs
