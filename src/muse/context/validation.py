"""Reference integrity of a WriterContext (spec 000 §7.1: "引用的 ID、版本和 hash 必须存在且一致").

Every id the context cites must be defined in it, every hash must match the text it covers, and
the bands must nest. A context that fails is never stored or sent.
"""

from __future__ import annotations

from muse.context.contracts import WriterContext
from muse.core.canonical import sha256_hex
from muse.core.errors import ContractViolation


def problems(context: WriterContext) -> list[str]:
    found: list[str] = []
    fact_ids = [f.id for f in context.fact_evidence]
    prose_ids = [p.id for p in context.prose_evidence]
    for ids, label in ((fact_ids, "factEvidence"), (prose_ids, "proseEvidence")):
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            found.append(f"{label} id 重复：{', '.join(dupes)}")
    known = set(fact_ids) | set(prose_ids)
    for row in context.evidence_coverage:
        found += [
            f"覆盖项 {row.element_id} 引用了不存在的证据 {e}"
            for e in row.evidence_ids
            if e not in known
        ]
    for fact in context.fact_evidence:
        if sha256_hex(fact.text) != fact.sha256:
            found.append(f"factEvidence {fact.id} 的哈希与内容不符")
    for prose in context.prose_evidence:
        if sha256_hex(prose.excerpt) != prose.sha256:
            found.append(f"proseEvidence {prose.id} 的哈希与内容不符")
        if prose.end - prose.start != len(prose.excerpt):
            found.append(f"proseEvidence {prose.id} 的 offset 与片段长度不符")
        if prose.chapter > context.as_of:
            found.append(f"proseEvidence {prose.id} 来自冻结点之后的第 {prose.chapter} 章")
    found += _exploration_problems(context, known)
    gen, acc = context.output_contract.generation_band, context.output_contract.acceptance_band
    if not (acc[0] <= gen[0] <= gen[1] <= acc[1]):
        found.append(f"接受区间 {acc} 未包含生成区间 {gen}")
    if context.manifest.plan_id == "" or context.retrieval_plan.as_of != context.as_of:
        found.append("检索计划与上下文的冻结点不一致")
    return found


def _exploration_problems(context: WriterContext, known: set[str]) -> list[str]:
    """The replayed materials point at evidence that exists; the exploration is this freeze's."""
    found = [
        f"回放材料 {m.read_id} 引用了不存在的证据 {e}"
        for m in context.replayed_materials
        for e in m.evidence_ids
        if e not in known
    ]
    exploration = context.exploration
    if exploration is None:
        if context.replayed_materials:
            found.append("有回放材料却没有探索清单")
        return found
    if (exploration.as_of, exploration.target_chapter) != (context.as_of, context.target_chapter):
        found.append("探索清单的冻结点或目标章与上下文不一致")
    listed = [r.read_id for r in exploration.reads]
    if [m.read_id for m in context.replayed_materials] != listed:
        found.append("回放材料与探索清单的读取不一一对应")
    return found


def validate_references(context: WriterContext) -> None:
    issues = problems(context)
    if issues:
        raise ContractViolation("WriterContext 引用不一致：" + "；".join(issues))
