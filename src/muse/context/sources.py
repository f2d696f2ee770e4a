"""Collecting what the writer may read, within the token budget (spec 000 §5.3, §7.1).

Order of priority: the four-chapter baseline (kept whole, never trimmed — spec 000 §5.3), then
card hits (cards budget), then excerpts re-read by the cards' pointers and similar past scenes
(historical-evidence budget). What does not fit is listed in omittedSources with its reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from muse.context.as_of import AsOfView
from muse.context.card_hits import card_hits, content_identity, summarize
from muse.context.contracts import (
    CardHit,
    FactEvidence,
    ManifestSource,
    OmittedSource,
    ProseEvidence,
    RetrievalPlan,
    TokenBudget,
)
from muse.context.reread import Excerpt, excerpts_for_card
from muse.context.tokens import estimate_tokens
from muse.core.canonical import hash_value, sha256_hex
from muse.knowledge import CardState
from muse.planning import FineOutline
from muse.works import ChapterText


@dataclass
class SourcePack:
    work_id: int
    sources: list[ManifestSource] = field(default_factory=list)
    omitted: list[OmittedSource] = field(default_factory=list)
    hits: list[CardHit] = field(default_factory=list)
    facts: list[FactEvidence] = field(default_factory=list)
    prose: list[ProseEvidence] = field(default_factory=list)
    matched: dict[str, CardState] = field(default_factory=dict)
    card_facts: dict[str, str] = field(default_factory=dict)
    card_prose: dict[str, list[str]] = field(default_factory=dict)
    used: dict[str, int] = field(default_factory=dict)
    read_revisions: dict[int, int] = field(default_factory=dict)
    style: dict | None = None
    patterns: list[dict] = field(default_factory=list)

    def spend(self, category: str, tokens: int, budget: int) -> bool:
        if self.used.get(category, 0) + tokens > budget:
            return False
        self.used[category] = self.used.get(category, 0) + tokens
        return True


def collect(
    view: AsOfView, outline: FineOutline, plan: RetrievalPlan, chapters: list[ChapterText]
) -> SourcePack:
    """Execute the plan's reads through the as-of view, in priority order, within budget."""
    pack = SourcePack(work_id=view.work_id)
    add_baseline(pack, chapters)
    add_cards(pack, view, outline, plan.token_budget)
    add_excerpts(pack, view, {c.number for c in chapters}, plan.token_budget)
    add_similar_scenes(pack, view, plan, {c.number for c in chapters})
    add_style_and_patterns(pack, view, plan.token_budget)
    return pack


def add_style_and_patterns(pack: SourcePack, view: AsOfView, budget: TokenBudget) -> None:
    """The confirmed style profile and the bound patterns (spec 001 §1A stage 3): structural
    method references only, within the patterns budget."""
    style = view.style()
    if style is not None:
        pack.style = style
        pack.sources.append(
            ManifestSource(
                kind="style",
                source_id=f"style:{view.work_id}",
                source_version="confirmed",
                chapter=None,
                start=None,
                end=None,
                content_sha256=hash_value(style),
                reason="已确认的文风画像（阶段 3）",
                tokens=estimate_tokens(str(style)),
            )
        )
    for pattern in view.patterns():
        tokens = estimate_tokens(str(pattern.get("content", "")))
        if not pack.spend("patterns", tokens, budget.patterns):
            pack.omitted.append(
                OmittedSource(
                    kind="pattern",
                    source_id=str(pattern["id"]),
                    reason=f"超出范式预算（{budget.patterns} tokens）",
                )
            )
            continue
        pack.patterns.append(pattern)
        pack.sources.append(
            ManifestSource(
                kind="pattern",
                source_id=f"pattern:{pattern['key']}",
                source_version=str(pattern["version"]),
                chapter=None,
                start=None,
                end=None,
                content_sha256=pattern["contentSha256"],
                reason=f"已确认装配绑定的范式：{pattern['name']}",
                tokens=tokens,
            )
        )


def add_similar_scenes(
    pack: SourcePack, view: AsOfView, plan: RetrievalPlan, baseline: set[int]
) -> None:
    """Past scenes of the same kind as this chapter's hard events, through the search index,
    outside the baseline chapters (those are already read whole)."""
    for query in plan.queries:
        if query.purpose != "similar_scene":
            continue
        hits = [
            h for h in view.search_text(query.text, query.top_k + 12) if h.chapter not in baseline
        ]
        if not hits:
            pack.omitted.append(
                OmittedSource(
                    kind="similar_scene",
                    source_id=query.query_id,
                    reason="检索无命中：冻结点前没有同类场景。",
                )
            )
            continue
        for hit in hits[: query.top_k]:
            reason = (
                f"与细纲{query.query_id.split(':', 1)[1]}同类的历史场景（检索得分 {hit.score:.3f}）"
            )
            excerpt = Excerpt(
                hit.chapter, hit.revision, hit.start, hit.end, hit.text, "similar_scene", reason
            )
            add_excerpt(pack, excerpt, plan.token_budget, owner=None)


def add_baseline(pack: SourcePack, chapters: list[ChapterText]) -> None:
    for c in chapters:
        pack.read_revisions[c.number] = c.revision
        tokens = estimate_tokens(c.text)
        pack.used["consecutiveProse"] = pack.used.get("consecutiveProse", 0) + tokens
        pack.sources.append(
            ManifestSource(
                kind="chapter",
                source_id=f"chapter:{c.work_id}:{c.number}",
                source_version=f"r{c.revision}",
                chapter=c.number,
                start=0,
                end=len(c.text),
                content_sha256=c.content_sha256,
                reason="目标章之前连续四章全文基线",
                tokens=tokens,
            )
        )
        pack.prose.append(
            ProseEvidence(
                id=f"pe-baseline-{c.number}",
                chapter=c.number,
                start=0,
                end=len(c.text),
                sha256=c.content_sha256,
                purpose="baseline",
                excerpt=c.text,
            )
        )


def add_cards(pack: SourcePack, view: AsOfView, outline: FineOutline, budget: TokenBudget) -> None:
    hits, matched = card_hits(view, outline)
    versions = view.card_versions()
    kept_ids = set()
    for hit in hits:
        state = CardState.model_validate(hit.state_as_of)
        text = summarize(state)
        tokens = estimate_tokens(text) + estimate_tokens(str(hit.state_as_of)) // 4
        if not pack.spend("cards", tokens, budget.cards):
            pack.omitted.append(
                OmittedSource(
                    kind="card",
                    source_id=hit.card_id,
                    reason=f"超出卡片预算（{budget.cards} tokens）",
                )
            )
            continue
        kept_ids.add(hit.card_id)
        pack.hits.append(hit)
        fact_id = f"fe-card-{hit.card_id}"
        pack.card_facts[hit.card_id] = fact_id
        pack.facts.append(
            FactEvidence(
                id=fact_id,
                source_type="confirmed_card",
                source_ref={
                    "cardId": hit.card_id,
                    "specSha256": versions[hit.card_id][2],
                    "asOf": view.as_of,
                },
                sha256=sha256_hex(text),
                text=text,
            )
        )
        pack.sources.append(
            ManifestSource(
                kind="card",
                source_id=f"card:{view.work_id}:{hit.type}:{hit.name}",
                source_version="sha:" + versions[hit.card_id][2][:16],
                chapter=None,
                start=None,
                end=None,
                content_sha256=content_identity(hit.state_as_of),
                reason=hit.retrieval_reason,
                tokens=tokens,
            )
        )
    pack.matched = {k: v for k, v in matched.items() if v.card_id in kept_ids}


def add_excerpts(pack: SourcePack, view: AsOfView, baseline: set[int], budget: TokenBudget) -> None:
    for hit in pack.hits:
        state = CardState.model_validate(hit.state_as_of)
        for excerpt in excerpts_for_card(view, state, baseline):
            add_excerpt(pack, excerpt, budget, owner=hit.card_id)


def add_excerpt(pack: SourcePack, excerpt: Excerpt, budget: TokenBudget, owner: str | None) -> None:
    evidence_id = f"pe-{excerpt.purpose}-{excerpt.chapter}-{excerpt.start}"
    if evidence_id in {p.id for p in pack.prose}:
        if owner:
            pack.card_prose.setdefault(owner, []).append(evidence_id)
        return
    tokens = estimate_tokens(excerpt.text)
    if not pack.spend("historicalEvidence", tokens, budget.historical_evidence):
        pack.omitted.append(
            OmittedSource(
                kind="prose_excerpt",
                source_id=evidence_id,
                reason=f"超出历史证据预算（{budget.historical_evidence} tokens）：{excerpt.reason}",
            )
        )
        return
    pack.read_revisions[excerpt.chapter] = excerpt.revision
    pack.prose.append(
        ProseEvidence(
            id=evidence_id,
            chapter=excerpt.chapter,
            start=excerpt.start,
            end=excerpt.end,
            sha256=excerpt.sha256,
            purpose=excerpt.purpose,
            excerpt=excerpt.text,
        )
    )
    pack.sources.append(
        ManifestSource(
            kind="prose_excerpt",
            source_id=f"chapter:{pack.work_id}:{excerpt.chapter}",
            source_version=f"r{excerpt.revision}",
            chapter=excerpt.chapter,
            start=excerpt.start,
            end=excerpt.end,
            content_sha256=excerpt.sha256,
            reason=excerpt.reason,
            tokens=tokens,
        )
    )
    if owner:
        pack.card_prose.setdefault(owner, []).append(evidence_id)
