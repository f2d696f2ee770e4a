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

from muse.agents.providers.offline import builtin_generator, stable_input
from muse.core.canonical import canonical_json
from muse.core.text import count_han

_TEXTURE = (
    "{a}沉默片刻，目光越过众人，落在远处那一线天光上。",
    "风从山口灌进来，卷起地上的落叶，{a}抬手按住衣角，心中暗暗盘算。",
    "{a}想起先前种种，只觉千头万绪，一时竟不知从何说起。",
    "四下里静得出奇，只听得见{a}自己的呼吸声和远处隐约的水声。",
    "{a}定了定神，把方才听到的话又在心里过了一遍，越想越觉得其中另有文章。",
    "众人面面相觑，谁也没有先开口，{a}便踱到一旁，细细打量周遭的情形。",
    "“此事不可操之过急。”{a}低声道，“且看明日如何。”",
    "日头渐渐西斜，影子拉得老长，{a}却仍立在原处，一动不动。",
    "{a}忽然笑了一笑，那笑意却未到眼底，旁人看了，心里都是一紧。",
    "路边的野花开得正盛，{a}无心细看，脚下却不由得慢了几分。",
)


_REQUEST_MARKER = re.compile(r"【补证：([^】]+)】")


def evidence_requests(outline: dict[str, Any]) -> list[dict[str, str]]:
    """The requests a ``【补证：…】`` marker in the outline's title or beats asks for."""
    texts = [outline.get("title", "")] + [b["text"] for b in outline.get("adjustable_beats", [])]
    queries = [
        q.strip()
        for text in texts
        for found in _REQUEST_MARKER.findall(text)
        for q in found.split("；")
        if q.strip()
    ]
    return [{"query": q, "reason": f"离线写手：需要「{q}」的前文依据。"} for q in queries]


def _seed(task_input: dict[str, Any]) -> int:
    """Same book, outline, cards and length: same seed (run ids, hashes and times left out)."""
    stable = canonical_json(stable_input(task_input))
    return int.from_bytes(hashlib.sha256(stable).digest()[:8], "big")


def _sentence(text: str) -> str:
    text = text.strip().rstrip("。！？!?.；;")
    return text + "。"


@builtin_generator("writer", "generate")
def write_chapter(task_input: dict[str, Any], _schema: object = None) -> dict[str, Any] | None:
    """WriterDraft (as a dict) for a WriterContext v1 wire dict; declines (None) anything else,
    so the offline provider falls back to its generic schema-valid output."""
    if task_input.get("schemaVersion") != "writer-context-v1":
        return None
    outline = task_input["fineOutline"]
    hc = outline["hard_constraints"]
    names = [e["name"] for e in hc["required_entities"]]
    target = task_input["outputContract"]["lengthTarget"]["targetChars"]
    _low, high = task_input["outputContract"]["generationBand"]
    seed = _seed(task_input)
    claims: list[dict[str, Any]] = []
    core: list[str] = []

    def claim(constraint_id: str, sentence: str) -> None:
        core.append(sentence)
        claims.append({"constraintId": constraint_id, "quote": sentence})

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
    claims.append({"constraintId": hc["chapter_end_hook"]["id"], "quote": hook})
    return {
        "paragraphs": paragraphs,
        "claims": claims,
        "evidenceRequests": evidence_requests(outline),
        "newSettingDeclarations": [],
        "selfCheck": {
            "coveredConstraintIds": [c["constraintId"] for c in claims],
            "notes": "离线写手：逐条兑现硬约束，其余为中性质感句。",
        },
    }


def _fill(core: list[str], names: list[str], seed: int, want: int, limit: int) -> list[str]:
    """Texture paragraphs (four sentences each) between the core sentences until ``want`` Han
    characters, never past ``limit``."""
    texture: list[str] = []
    total = sum(count_han(p) for p in core)
    step = 0
    current = ""
    while total < want:
        pick = (seed + step * 7) % len(_TEXTURE)
        sentence = _TEXTURE[pick].format(a=names[(seed + step) % len(names)])
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
