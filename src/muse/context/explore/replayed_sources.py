"""Folding replayed reads into the frozen WriterContext (spec 001 §5, spec 000 §7.1).

Spec 001 says the generation input holds only the replayed materials plus the length and style
contracts. In Muse the retrieval plan's reads are always the first reads of the exploration
manifest, and the plan-based assembly (``sources.collect``: baseline chapters, cards with their
stateAsOf, excerpts re-read by card pointers, similar scenes, style and patterns) is the
deterministic execution of exactly those reads. So every replayed read is either

* ``covered``: the plan-based assembly already holds its content (a baseline chapter, a card
  already hit, a chunk already excerpted, the outline, style or patterns) — it points at the
  evidence ids and costs nothing twice; or
* ``included``: its content is added as evidence within the budget share it belongs to (cards →
  cards, chapters and search hits → historical evidence), with a manifest source; or
* ``omitted`` / ``partial``: what did not fit is listed in omittedSources with its reason.

No material reaches the writer that is not the result of a manifest read.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from muse.context.card_hits import content_identity, summarize
from muse.context.contracts import FactEvidence, ManifestSource, OmittedSource, TokenBudget
from muse.context.explore.contracts import ReplayedMaterial, ReplayedRead
from muse.context.reread import Excerpt
from muse.context.sources import SourcePack, add_excerpt
from muse.context.tokens import estimate_tokens
from muse.core.canonical import sha256_hex
from muse.knowledge import CardState

_COVERED_FIELD = {
    "get_outline": "已作为已确认细纲（fineOutline）提供",
    "get_style": "已作为文风约束（styleConstraints）提供",
    "get_patterns": "已作为范式参考（patternReferences）提供，超出范式预算的见 omittedSources",
}


def fold_replayed(
    pack: SourcePack,
    replayed: Sequence[ReplayedRead],
    budget: TokenBudget,
    baseline: set[int],
    as_of: int,
) -> list[ReplayedMaterial]:
    """Add what the replayed reads found beyond the plan-based assembly; one record per read."""
    return [_fold_one(pack, read, budget, baseline, as_of) for read in replayed]


def _material(
    read: ReplayedRead, status: str, tokens: int = 0, ids: Iterable[str] = (), note: str = ""
) -> ReplayedMaterial:
    return ReplayedMaterial(
        read_id=read.read_id,
        origin=read.origin,
        tool=read.tool,
        args=read.args,
        why=read.why,
        status=status,  # type: ignore[arg-type]
        result_sha256=read.content_sha256,
        tokens=tokens,
        evidence_ids=tuple(ids),
        note=note,
    )


def _fold_one(
    pack: SourcePack, read: ReplayedRead, budget: TokenBudget, baseline: set[int], as_of: int
) -> ReplayedMaterial:
    if read.status in ("refused", "error"):
        reason = f"回放失败（{read.status}）：{read.error}"
        pack.omitted.append(OmittedSource(kind="tool_read", source_id=read.read_id, reason=reason))
        return _material(read, "failed", note=reason)
    if read.status == "empty":
        return _material(read, "empty", note="回放无结果。")
    if read.tool in _COVERED_FIELD:
        return _material(read, "covered", note=_COVERED_FIELD[read.tool])
    if read.tool == "get_card":
        return _fold_card(pack, read, budget, as_of)
    return _fold_prose(pack, read, budget, baseline)


def _fold_card(
    pack: SourcePack, read: ReplayedRead, budget: TokenBudget, as_of: int
) -> ReplayedMaterial:
    state = CardState.model_validate(read.content)
    if state.card_id in pack.card_facts:
        return _material(read, "covered", ids=[pack.card_facts[state.card_id]])
    text = summarize(state)
    tokens = estimate_tokens(text) + estimate_tokens(str(read.content)) // 4
    if not pack.spend("cards", tokens, budget.cards):
        reason = f"超出卡片预算（{budget.cards} tokens）：写手探索 {read.read_id}「{read.why}」"
        pack.omitted.append(OmittedSource(kind="card", source_id=state.card_id, reason=reason))
        return _material(read, "omitted", note=reason)
    fact_id = f"fe-card-{state.card_id}"
    pack.card_facts[state.card_id] = fact_id
    pack.facts.append(
        FactEvidence(
            id=fact_id,
            source_type="confirmed_card",
            source_ref={"cardId": state.card_id, "asOf": as_of, "readId": read.read_id},
            sha256=sha256_hex(text),
            text=text,
        )
    )
    pack.sources.append(
        ManifestSource(
            kind="card",
            source_id=f"card:{pack.work_id}:{state.type}:{state.name}",
            source_version=f"asof:{as_of}",
            chapter=None,
            start=None,
            end=None,
            content_sha256=content_identity(read.content),
            reason=f"写手探索 {read.read_id}：{read.why}",
            tokens=tokens,
        )
    )
    return _material(read, "included", tokens, [fact_id])


def _fold_prose(
    pack: SourcePack, read: ReplayedRead, budget: TokenBudget, baseline: set[int]
) -> ReplayedMaterial:
    """read_chapter (whole chapter) and search_prose (hits) → proseEvidence, or covered."""
    purpose = "explored_chapter" if read.tool == "read_chapter" else "explored"
    if read.tool == "read_chapter":
        c = read.content
        pieces = [(c["number"], c["revision"], 0, len(c["text"]), c["text"])]
    else:
        pieces = [
            (h["chapter"], h["revision"], h["start"], h["end"], h["snippet"]) for h in read.content
        ]
    ids: list[str] = []
    added = omitted = 0
    tokens_before = pack.used.get("historicalEvidence", 0)
    for chapter, revision, start, end, text in pieces:
        covering = _covering(pack, chapter, start, end, baseline)
        if covering is not None:
            ids.append(covering)
            continue
        omitted_before = len(pack.omitted)
        reason = f"写手探索 {read.read_id}：{read.why}"
        add_excerpt(
            pack, Excerpt(chapter, revision, start, end, text, purpose, reason), budget, owner=None
        )
        if len(pack.omitted) > omitted_before:
            omitted += 1
        else:
            added += 1
            ids.append(f"pe-{purpose}-{chapter}-{start}")
    tokens = pack.used.get("historicalEvidence", 0) - tokens_before
    if added == 0 and omitted == 0:
        return _material(read, "covered", ids=ids)
    status = "included" if omitted == 0 else ("partial" if added or ids else "omitted")
    note = f"{omitted} 处超出历史证据预算，见 omittedSources。" if omitted else ""
    return _material(read, status, tokens, ids, note)


def _covering(
    pack: SourcePack, chapter: int, start: int, end: int, baseline: set[int]
) -> str | None:
    """The id of evidence already in the pack that contains ``[start, end)`` of ``chapter``."""
    if chapter in baseline:
        return f"pe-baseline-{chapter}"
    for prose in pack.prose:
        if prose.chapter == chapter and prose.start <= start and end <= prose.end:
            return prose.id
    return None
