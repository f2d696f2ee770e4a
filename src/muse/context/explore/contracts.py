"""Contracts of the two-phase writer's context side (spec 001 §5, spec 003 "两阶段写手").

The explore phase returns an ``ExploreDraft`` (the model-facing shape: flat, every field
required, so that strict ``json_schema`` accepts it). Muse vets it into an
``ExplorationManifest`` (strict: only the writer's read-only tools, arguments valid for the tool,
nothing after as_of) with the retrieval plan's reads first. The deterministic replay turns each
read into a ``ReplayedRead``; the freeze folds them into the WriterContext as
``ReplayedMaterial`` records that point at the evidence they became.
"""

from __future__ import annotations

from typing import Any, Final, Literal

from pydantic import Field

from muse.agents import ToolName
from muse.core.contract import Contract, UnaliasedContract

EXPLORATION_VERSION: Final = "exploration-manifest-v1"
EXPLORE_INPUT_VERSION: Final = "writer-explore-input-v1"
ReadOrigin = Literal["plan", "explore"]
DropReason = Literal["unknown_tool", "not_whitelisted", "bad_args", "future_chapter", "duplicate"]


# -- model-facing output of writer/explore ---------------------------------------------------------


class ExploreDraftRead(UnaliasedContract):
    tool: str = Field(
        description="只读工具名：read_chapter、search_prose、get_card、get_outline、get_style、"
        "get_patterns 之一"
    )
    number: int | None = Field(description="read_chapter 的章号；其他工具为 null")
    query: str | None = Field(description="search_prose 的检索词；其他工具为 null")
    name: str | None = Field(description="get_card 的实体名或别名；其他工具为 null")
    limit: int | None = Field(description="search_prose 最多返回几条命中；其他工具为 null")
    why: str = Field(description="为什么生成阶段需要这份材料")


class ExploreDraft(UnaliasedContract):
    """What the writer's explore call returns: the reads to replay and a short summary."""

    reads: list[ExploreDraftRead]
    notes: str = Field(description="取材小结：已经掌握什么、还缺什么")


# -- the vetted manifest ---------------------------------------------------------------------------


class ExplorationRead(Contract):
    read_id: str  # p01… for the plan's reads, x01… for explored ones; stable across replays
    origin: ReadOrigin
    tool: ToolName
    args: dict[str, Any]  # validated and normalised by the tool's argument model
    why: str


class DroppedRead(Contract):
    """A proposed read that was not kept, and why (never silently lost)."""

    tool: str
    args: dict[str, Any]
    why: str
    reason: DropReason
    detail: str


class ExplorationManifest(Contract):
    manifest_version: Literal["exploration-manifest-v1"] = EXPLORATION_VERSION
    work_id: int
    target_chapter: int
    as_of: int
    reads: tuple[ExplorationRead, ...]
    dropped: tuple[DroppedRead, ...] = ()
    notes: str = ""
    explore_receipt_id: str | None = None  # the explore call; None: plan reads only


# -- replay ----------------------------------------------------------------------------------------


class SourcePointer(Contract):
    kind: Literal["chapter", "prose_chunk", "card", "outline", "style", "pattern"]
    source_id: str
    version: str
    chapter: int | None = None
    start: int | None = None  # code point offsets, half-open
    end: int | None = None
    sha256: str


class ReplayedRead(Contract):
    read_id: str
    origin: ReadOrigin
    tool: ToolName
    args: dict[str, Any]
    why: str
    status: Literal["ok", "empty", "refused", "error"]
    content: Any = None  # the tool's JSON result, exactly as a model would have seen it
    content_sha256: str | None = None  # sha256 of the canonical JSON of content
    sources: tuple[SourcePointer, ...] = ()
    tokens: int = 0  # estimate for the content (context/tokens.py)
    error: str | None = None


class ReplayedMaterial(Contract):
    """One replayed read inside the frozen WriterContext: what it became in the context.

    ``included``: its content was added (as factEvidence / proseEvidence); ``covered``: the
    plan-based assembly already holds it (``evidenceIds`` or the named field); ``partial``: some
    of its hits were added, the rest did not fit; ``omitted``: nothing fitted the budget (see
    omittedSources); ``empty``: the read found nothing; ``failed``: the replay was refused.
    """

    read_id: str
    origin: ReadOrigin
    tool: ToolName
    args: dict[str, Any]
    why: str
    status: Literal["included", "covered", "partial", "omitted", "empty", "failed"]
    result_sha256: str | None
    tokens: int  # tokens this read added to the context
    evidence_ids: tuple[str, ...] = ()
    note: str = ""
