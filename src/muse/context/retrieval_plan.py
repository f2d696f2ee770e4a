"""RetrievalPlan: a fixed, hashed description of what to read for a chapter (spec 000 §5.1).

The plan is derived only from the confirmed fine outline, the freeze point and the index
versions, so the same inputs always give the same ``planId`` (runId is excluded from it).
"""

from __future__ import annotations

from muse.context.contracts import PlanFilters, PlanQuery, RetrievalPlan, TokenBudget
from muse.context.tokens import estimate_tokens
from muse.core.canonical import hash_value
from muse.planning import FineOutline
from muse.works import ChapterText

BASELINE_CHAPTERS = 4  # spec 000 §5.3: the 4 consecutive full chapters before the target
PROSE_INDEX_VERSION = "chapter-reader-v1"
CARD_INDEX_VERSION = "cards-none"  # a work without confirmed cards
DEFAULT_BUDGET = TokenBudget(
    cards=6000, consecutive_prose=40000, historical_evidence=8000, patterns=2000
)


def build_plan(
    outline: FineOutline,
    *,
    run_id: str,
    work_id: int,
    as_of: int,
    card_index_version: str = CARD_INDEX_VERSION,
    prose_index_version: str = PROSE_INDEX_VERSION,
    budget: TokenBudget = DEFAULT_BUDGET,
) -> RetrievalPlan:
    hc = outline.hard_constraints
    queries = [
        PlanQuery(
            query_id="baseline",
            text=f"第{as_of}章及之前连续{BASELINE_CHAPTERS}章全文",
            entity_type="prose",
            purpose="consecutive_prose",
            top_k=BASELINE_CHAPTERS,
        )
    ]
    queries += [
        PlanQuery(
            query_id=f"entity:{e.id}",
            text=e.name,
            entity_type="character",
            purpose="entity_state",
            top_k=3,
        )
        for e in hc.required_entities
    ]
    queries += [
        PlanQuery(
            query_id=f"foreshadowing:{f.id}",
            text=f.thread,
            entity_type="foreshadowing",
            purpose="callback",
            top_k=2,
        )
        for f in hc.foreshadowing
    ]
    queries += [
        PlanQuery(
            query_id=f"scene:{e.id}",
            text=e.text,
            entity_type="event",
            purpose="similar_scene",
            top_k=1,
        )
        for e in hc.hard_events
    ]
    return RetrievalPlan(
        run_id=run_id,
        as_of=as_of,
        target_chapter=outline.target_chapter,
        queries=tuple(queries),
        card_index_version=card_index_version,
        prose_index_version=prose_index_version,
        filters=PlanFilters(
            work_id=work_id,
            authorization_purpose="production",
            max_chapter=as_of,
            source_status="active",
        ),
        token_budget=budget,
    )


def plan_id(plan: RetrievalPlan) -> str:
    """sha256 of the plan's canonical JSON without runId (spec 000 §5.1)."""
    data = plan.wire()
    data.pop("runId")
    return hash_value(data)


def sized_budget(budget: TokenBudget, baseline: list[ChapterText]) -> TokenBudget:
    """The budget with its consecutive-prose share raised to fit the baseline.

    The four-chapter baseline is never trimmed (spec 000 §5.3) and the context never exceeds its
    budget: both hold because the plan's consecutive-prose budget is at least what the baseline
    costs. The other shares are fixed, and what does not fit them is omitted with its reason.
    """
    needed = sum(estimate_tokens(c.text) for c in baseline)
    if needed <= budget.consecutive_prose:
        return budget
    return budget.model_copy(update={"consecutive_prose": needed})
