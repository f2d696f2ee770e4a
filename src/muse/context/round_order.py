"""The fixed input order of a writing round (spec 001 §2.3, node W).

Every round's input is assembled in one fixed order; from round 2 on only item 7 changes (the
author's latest "改：…" words, verbatim), items 1–6 stay the same and in the same order:

    1 库事实            the work, target chapter and as_of; narrative state; factEvidence;
                         the replayed materials of the explore phase
    2 已确认细纲        the confirmed fine outline and its evidence coverage
    3 前章正式正文基线  proseEvidence: the four-chapter baseline, re-read and explored excerpts
    4 文风 + 已绑定范式 style constraints and the bound patterns
    5 prevent 约束投影  the output contract: length bands, declaration rule, no frontmatter;
                         the confirmed style profile's AI 味 blacklist and style rules
    6 方法合同（只读）  not built yet (spec 001 §2.3 marks it 待建): present, and empty
    7 本轮人指令        round 1: may be empty (「写第 N 章」); later: the author's words

The provenance fields (schema version, run, snapshot, plan, manifest, exploration manifest,
budget, omitted sources) come first: they say what the input is, they instruct nothing.
``writer_input`` is the generation task input: exactly ``context.wire()`` (same keys, same
values), with its keys in this order, so the prompt the writer reads follows spec 001 §2.3.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from muse.context.contracts import AuthorInstruction, WriterContext
from muse.core.errors import ContractViolation, InvalidInput
from muse.core.text import normalize_text

PROVENANCE = (
    "schemaVersion",
    "runId",
    "attempt",
    "mode",
    "qualityPolicyVersion",
    "contextSnapshot",
    "sourceVersion",
    "authorizationSnapshot",
    "sourceStatus",
    "retrievalPlan",
    "manifest",
    "exploration",
    "tokenBudget",
    "omittedSources",
)
ITEMS: tuple[tuple[int, str, str, tuple[str, ...]], ...] = (
    (
        1,
        "work_facts",
        "库事实：作品 / 目标章 / as_of",
        ("workId", "targetChapter", "asOf", "narrativeState", "factEvidence", "replayedMaterials"),
    ),
    (2, "fine_outline", "已确认细纲", ("fineOutline", "evidenceCoverage")),
    (3, "previous_chapters", "前章正式正文基线", ("proseEvidence",)),
    (4, "style_and_patterns", "文风 + 已绑定范式", ("styleConstraints", "patternReferences")),
    (
        5,
        "prevention",
        "prevent 约束投影（篇幅、申报合同、AI 味黑名单）",
        ("outputContract", "prevention"),
    ),
    (6, "method_checks", "方法合同（只读）", ()),
    (7, "author_words", "本轮人指令", ("authorInstruction",)),
)
METHOD_CHECKS_NOTE = "方法检查待建（第 6 项）：本轮没有装载方法检查。"


@dataclass(frozen=True)
class RoundInput:
    position: int  # 1–7, spec 001 §2.3
    key: str
    title: str
    content: dict[str, Any]  # the context's wire fields of this item, in order
    summary: str = ""


def author_instruction(round_number: int, words: str | None) -> AuthorInstruction:
    """Item 7 for ``round_number``: round 1 may be empty, later rounds need the author's words."""
    text = normalize_text(words) if words is not None else None
    if text is not None and not text.strip():
        text = None
    if round_number < 1:
        raise InvalidInput(f"回合号必须从 1 开始，收到 {round_number}。")
    if round_number > 1 and text is None:
        raise InvalidInput(
            f"第 {round_number} 轮必须带上作者上一轮的原话（「改：…」）。",
            hint="第 1 轮可以不带人指令；之后每一轮第 7 项都是作者的原话。",
        )
    return AuthorInstruction(round=round_number, words=text)


def instruction_text(context: WriterContext) -> str:
    """What item 7 says: the author's words, or round 1's 「写第 N 章」."""
    instruction = context.author_instruction
    if instruction is None or instruction.words is None:
        return f"写第 {context.target_chapter} 章"
    return instruction.words


def round_inputs(context: WriterContext) -> tuple[RoundInput, ...]:
    """The seven items of this round's input, in the fixed order of spec 001 §2.3."""
    wire = context.wire()
    items = []
    for position, key, title, fields in ITEMS:
        summary = ""
        if position == 6:
            summary = METHOD_CHECKS_NOTE
        elif position == 7:
            summary = instruction_text(context)
        content = {f: wire[f] for f in fields if f in wire}
        items.append(RoundInput(position, key, title, content, summary))
    return tuple(items)


def writer_input(context: WriterContext) -> dict[str, Any]:
    """The generation task input: ``context.wire()`` with its keys in spec 001 §2.3's order."""
    wire = context.wire()
    order = PROVENANCE + tuple(f for *_, fields in ITEMS for f in fields)
    unplaced = sorted(set(wire) - set(order))
    if unplaced:
        raise ContractViolation(
            f"WriterContext 的字段 {'、'.join(unplaced)} 没有归入任何输入项，拒绝组装写手输入。"
        )
    return {key: wire[key] for key in order if key in wire}
